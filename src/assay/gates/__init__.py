"""Gates in their default order. A gate is a `BaseGate` subclass constructed with the settings; a
new gate registers here and slots into the pipeline without changing it."""

from __future__ import annotations

from assay.gates.base import BaseGate, Facts, Gate, GateContext
from assay.gates.compile import CompileGate
from assay.gates.green import GreenGate
from assay.gates.mutation import MutationGate
from assay.gates.review import ReviewGate
from assay.gates.smells import SmellsGate
from assay.gates.stability import StabilityGate

REGISTRY: dict[str, type[BaseGate]] = {
    "compile": CompileGate,
    "green": GreenGate,
    "stability": StabilityGate,
    "mutation": MutationGate,
    "smells": SmellsGate,
    "review": ReviewGate,
}

__all__ = ["REGISTRY", "BaseGate", "Facts", "Gate", "GateContext"]
