"""Gates in their default order. A gate is a `BaseGate` subclass constructed with the settings; a
new gate registers here (its module and class) and slots into the pipeline without changing it.

A gate's module is imported when the gate is first looked up: a run of gates 1-3 does not load
gate 4's mutation engines, gate 5's smell rules nor gate 6's LLM clients (0.2 s of CPU at every
start of `assay verify`)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from assay.gates.base import BaseGate, Facts, Gate, GateContext


class _Registry(Mapping[str, type[BaseGate]]):
    """{gate name: gate class}, each class imported from its "module:Class" on first use."""

    def __init__(self, where: dict[str, str]) -> None:
        self._where = where
        self._loaded: dict[str, type[BaseGate]] = {}

    def __getitem__(self, name: str) -> type[BaseGate]:
        if name not in self._loaded:
            module, cls = self._where[name].split(":")
            self._loaded[name] = getattr(importlib.import_module(module), cls)
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


REGISTRY: Mapping[str, type[BaseGate]] = _Registry(
    {
        "compile": "assay.gates.compile:CompileGate",
        "green": "assay.gates.green:GreenGate",
        "stability": "assay.gates.stability:StabilityGate",
        "mutation": "assay.gates.mutation:MutationGate",
        "smells": "assay.gates.smells:SmellsGate",
        "review": "assay.gates.review:ReviewGate",
    }
)

__all__ = ["REGISTRY", "BaseGate", "Facts", "Gate", "GateContext"]
