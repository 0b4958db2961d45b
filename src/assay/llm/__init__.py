"""Language models behind one small interface. Writers and reviewers are named `provider:model`;
adding a provider = one module with a class taking `(model, LLMConfig)` + one line in `PROVIDERS`.

SDKs are imported only when their provider is used (`assay[openai]`, `assay[anthropic]` extras)."""

from __future__ import annotations

import importlib
from pathlib import Path

from assay.config.llm import LLMConfig
from assay.errors import ConfigError
from assay.llm.base import (
    BudgetExhausted,
    Completion,
    LLMError,
    PermanentError,
    Prompt,
    TransientError,
    Usage,
)
from assay.llm.client import Budget, LLMClient
from assay.llm.replay import Recorder
from assay.store import Store

PROVIDERS: dict[str, str] = {  # name -> "module:Class", imported on use
    "openai": "assay.llm.openai_compat:OpenAIProvider",
    "anthropic": "assay.llm.anthropic_api:AnthropicProvider",
    "command": "assay.llm.command:CommandProvider",
    "replay": "assay.llm.replay:ReplayProvider",
}

__all__ = [
    "PROVIDERS",
    "Budget",
    "BudgetExhausted",
    "Completion",
    "LLMClient",
    "LLMConfig",
    "LLMError",
    "PermanentError",
    "Prompt",
    "Recorder",
    "TransientError",
    "Usage",
    "make_client",
    "parse_spec",
]


def parse_spec(spec: str, role: str = "writer") -> tuple[str, str]:
    """`provider:model` -> (provider, model); ConfigError naming the choices otherwise."""
    provider, sep, model = spec.partition(":")
    if not sep or not model.strip() or provider not in PROVIDERS:
        raise ConfigError(
            f"{role} {spec!r} is not provider:model (providers: {', '.join(PROVIDERS)}), "
            "e.g. openai:gpt-4.1-mini"
        )
    return provider, model.strip()


def make_client(
    spec: str,
    config: LLMConfig,
    *,
    role: str = "writer",
    store: Store | None = None,
    use_cache: bool = True,
    budget: Budget | None = None,
    recorder: Recorder | None = None,
    root: Path | None = None,
) -> LLMClient:
    """A client for `provider:model`. A relative replay file is taken from `root` (the project);
    a replay is not cached (a cached answer would not count as served, and the order by subject
    would slip)."""
    provider_name, model = parse_spec(spec, role)
    use_cache = use_cache and provider_name != "replay"
    if provider_name == "replay" and root is not None and not Path(model).is_absolute():
        model = str((root / model) if not Path(model).exists() else Path(model).resolve())
    module, _, cls = PROVIDERS[provider_name].partition(":")
    provider = getattr(importlib.import_module(module), cls)(model, config)
    return LLMClient(
        provider, config, store=store, use_cache=use_cache, budget=budget, recorder=recorder
    )
