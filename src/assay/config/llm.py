"""`[tool.assay.llm]`: how assay talks to language models (endpoints, limits, retries, prices)."""

from __future__ import annotations

from typing import Literal

from assay.section import Section, setting


class Price(Section):
    """US dollars per million tokens."""

    input: float = setting(default=0.0, ge=0)
    output: float = setting(default=0.0, ge=0)


def _specs(value: dict[str, Price]) -> dict[str, Price]:
    bad = [k for k in value if ":" not in k]
    if bad:
        raise ValueError(f"price key {bad[0]!r} is not 'provider:model'")
    return value


class LLMConfig(Section):
    openai_base_url: str | None = setting(
        default=None, description="OpenAI-compatible endpoint; else $OPENAI_BASE_URL"
    )
    openai_api_key_env: str = setting(
        default="OPENAI_API_KEY", description="name of the env var holding the key"
    )
    anthropic_base_url: str | None = setting(default=None, description="else $ANTHROPIC_BASE_URL")
    anthropic_api_key_env: str = setting(
        default="ANTHROPIC_API_KEY", description="name of the env var holding the key"
    )
    timeout_s: float = setting(
        default=120.0, gt=0, le=3600, description="one request, connection to last byte"
    )
    retries: int = setting(
        default=4, ge=0, le=10, description="retries of a 429, 5xx, timeout or connection error"
    )
    backoff_s: float = setting(
        default=1.0, ge=0, le=60, description="first backoff; doubles per retry, with jitter"
    )
    backoff_max_s: float = setting(default=30.0, ge=0, le=600, description="longest single backoff")
    temperature: float = setting(default=0.2, ge=0, le=2)
    max_output_tokens: int = setting(
        default=4096, ge=64, le=200_000, description="completion limit of one call"
    )
    replay_match: Literal["prompt", "order"] = setting(
        default="prompt",
        description="replay:FILE answers the same prompt only, or else (order) the next answer "
        "recorded for the same target, which outlives a change of assay's prompts",
    )
    prices: dict[str, Price] = setting(
        default={}, check=_specs, description="'provider:model' -> price per 1M tokens"
    )
