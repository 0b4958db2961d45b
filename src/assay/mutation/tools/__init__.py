"""Mutation tools by language (see `base`); a new one is a module here plus one registry line."""

from __future__ import annotations

from assay.mutation.tools.base import MutationTool, ToolRequest

REGISTRY: dict[str, MutationTool] = {}

__all__ = ["REGISTRY", "MutationTool", "ToolRequest"]
