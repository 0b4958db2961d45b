"""What every provider takes and returns, and the errors it may raise (no I/O here).

A provider sends one prompt (system + user text) and returns the answer with its token counts;
retries, the response cache, the budget and recording live in `LLMClient`, so a provider module
stays small.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Prompt:
    """One request. `purpose` (write, revise, review, bugcheck) is for reports; `subject` (the
    target, the task) is what it is about, for replays that must outlive a change of prompts.
    Neither is part of the hash."""

    system: str
    user: str
    purpose: str = "write"
    subject: str = ""

    @property
    def hash(self) -> str:
        """The prompt's identity: what the response cache and replay files are keyed by."""
        return hashlib.sha256(f"{self.system}\0{self.user}".encode()).hexdigest()


@dataclass(frozen=True)
class CallParams:
    temperature: float = 0.2
    max_tokens: int = 4096
    timeout_s: float = 120.0


@dataclass
class Completion:
    """An answer and what it cost. `finish` is normalised: stop | length | other."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish: str = "stop"
    estimated: bool = False  # token counts estimated from text length (the provider gave none)
    cached: bool = False
    duration_s: float = 0.0
    cost: float | None = None
    retries: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Call:
    """One completed call as reports show it (no prompt text: it is in the record file when
    asked for)."""

    purpose: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    estimated: bool
    cached: bool
    cost: float | None
    duration_s: float
    retries: int = 0

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["duration_s"] = round(self.duration_s, 3)
        return out


def estimate_tokens(text: str) -> int:
    """About four characters per token: good enough for budgets when a provider reports no usage."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


class LLMError(Exception):
    """A call that did not produce an answer. A `TransientError` is retried by the client."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class TransientError(LLMError):
    """429, 5xx, timeouts, dropped connections: worth another try after a pause."""


class PermanentError(LLMError):
    """Bad key, unknown model, refused request: every further call would fail the same way."""


class BudgetExhausted(LLMError):
    """`--max-tokens` / `--max-cost` reached: no further call is made; accepted work is kept."""


@dataclass
class Usage:
    """Running totals of a client (thread-safe updates happen in the client)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    cached_calls: int = 0
    estimated: bool = False
    priced: bool = False
    log: list[Call] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "cached_calls": self.cached_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tokens": self.tokens,
            "cost": round(self.cost, 6) if self.priced else None,
            "estimated": self.estimated,
        }


class Provider(Protocol):
    """One model behind one API. `name` is the registry name (`openai`), `model` what follows
    the colon."""

    name: str
    model: str

    def complete(self, prompt: Prompt, params: CallParams) -> Completion: ...

    def close(self) -> None: ...
