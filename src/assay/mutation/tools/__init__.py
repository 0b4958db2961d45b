"""Mutation tools by language (see `base`); a new one is a module here plus one registry line."""

from __future__ import annotations

from assay.mutation.tools.base import MutationTool, ToolRequest
from assay.mutation.tools.cargo_mutants import CargoMutants
from assay.mutation.tools.go import GoEngine
from assay.mutation.tools.pit import PIT
from assay.mutation.tools.stryker import Stryker

REGISTRY: dict[str, MutationTool] = {
    "java": PIT,
    "typescript": Stryker("typescript"),
    "javascript": Stryker("javascript"),
    "rust": CargoMutants(),
    "go": GoEngine(),
}

__all__ = ["REGISTRY", "MutationTool", "ToolRequest"]
