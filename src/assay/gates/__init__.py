"""Gates in their default order. A gate is any object with `name` and `run(candidate, ctx) -> GateResult`;
new gates register here and slot into the pipeline without changing it."""

from __future__ import annotations

from assay.gates.compile import CompileGate
from assay.gates.green import GreenGate
from assay.gates.mutation import MutationGate
from assay.gates.smells import SmellsGate
from assay.gates.stability import StabilityGate

REGISTRY: dict[str, type] = {
    "compile": CompileGate,
    "green": GreenGate,
    "stability": StabilityGate,
    "mutation": MutationGate,
    "smells": SmellsGate,
}
