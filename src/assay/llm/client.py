"""`LLMClient`: one provider plus what every call needs - the response cache, bounded retries with
jitter, the run's token/cost budget and the optional recorder. Writers and the review gate only ever
see a client."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from assay.config.llm import LLMConfig, Price
from assay.llm.base import (
    BudgetExhausted,
    Call,
    CallParams,
    Completion,
    LLMError,
    Prompt,
    Provider,
    TransientError,
    Usage,
)
from assay.llm.replay import Recorder
from assay.store import Store

CACHE_NAMESPACE = "llm"


@dataclass
class Budget:
    """Limits shared by every client of one run (writer and reviewer): 0 means no limit."""

    max_tokens: int = 0
    max_cost: float = 0.0
    usage: Usage = field(default_factory=Usage)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def exhausted(self) -> str | None:
        """Why no further call may start, or None."""
        u = self.usage
        if self.max_tokens and u.tokens >= self.max_tokens:
            return f"token budget reached ({u.tokens:,} of {self.max_tokens:,} tokens)"
        if self.max_cost and u.priced and u.cost >= self.max_cost:
            return f"cost budget reached (${u.cost:.4f} of ${self.max_cost:.4f})"
        return None

    def add(self, call: Call) -> None:
        with self.lock:
            u = self.usage
            u.calls += 1
            u.cached_calls += call.cached
            if not call.cached:  # a cached answer costs nothing now
                u.prompt_tokens += call.prompt_tokens
                u.completion_tokens += call.completion_tokens
                if call.cost is not None:
                    u.cost += call.cost
                    u.priced = True
            u.estimated = u.estimated or call.estimated
            u.log.append(call)


class LLMClient:
    def __init__(
        self,
        provider: Provider,
        config: LLMConfig,
        store: Store | None = None,
        use_cache: bool = True,
        budget: Budget | None = None,
        recorder: Recorder | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.provider = provider
        self.config = config
        self.store = store
        self.use_cache = use_cache
        self.budget = budget or Budget()
        self.recorder = recorder
        self.sleep = sleep
        self.spec = f"{provider.name}:{provider.model}"
        self.price: Price | None = config.prices.get(self.spec)
        self.params = CallParams(config.temperature, config.max_output_tokens, config.timeout_s)

    def _key(self, prompt: Prompt) -> str:
        p = self.params
        return f"{self.spec}\0{p.temperature}\0{p.max_tokens}\0{prompt.hash}"

    def complete(self, prompt: Prompt) -> Completion:
        """The answer to `prompt`: from the cache, or from the provider with retries. Raises
        BudgetExhausted before a call the budget no longer allows, PermanentError at once,
        TransientError after the retries."""
        key = self._key(prompt)
        if (
            self.store is not None
            and self.use_cache
            and (hit := self.store.get(CACHE_NAMESPACE, key))
        ):
            completion = Completion(**{**hit, "cached": True, "duration_s": 0.0, "retries": 0})
            self._account(prompt, completion)
            return completion
        if why := self.budget.exhausted():
            raise BudgetExhausted(why)
        completion = self._with_retries(prompt)
        if self.price is not None:
            completion.cost = (
                completion.prompt_tokens * self.price.input
                + completion.completion_tokens * self.price.output
            ) / 1e6
        if self.store is not None and completion.text.strip():
            self.store.put(
                CACHE_NAMESPACE,
                key,
                {
                    k: v
                    for k, v in completion.to_json().items()
                    if k not in ("cached", "duration_s", "retries")
                },
            )
        self._account(prompt, completion)
        return completion

    def _with_retries(self, prompt: Prompt) -> Completion:
        retries = self.config.retries
        for attempt in range(retries + 1):
            try:
                completion = self.provider.complete(prompt, self.params)
                completion.retries = attempt
                return completion
            except TransientError as err:
                if attempt == retries:
                    raise TransientError(f"{err} (gave up after {retries + 1} tries)") from None
                self.sleep(self.backoff(attempt, err.retry_after))
        raise AssertionError("unreachable")  # pragma: no cover

    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """Exponential with full jitter in its upper half, never above `backoff_max_s`; a server's
        Retry-After is honoured up to the same cap."""
        cap = self.config.backoff_max_s
        base = min(cap, self.config.backoff_s * 2**attempt)
        wait = random.uniform(base / 2, base)
        if retry_after is not None:
            wait = max(wait, min(retry_after, cap))
        return wait

    def record(self, prompt: Prompt, completion: Completion) -> Call:
        """The call as reports show it."""
        return Call(
            prompt.purpose,
            self.spec,
            completion.prompt_tokens,
            completion.completion_tokens,
            completion.estimated,
            completion.cached,
            completion.cost,
            completion.duration_s,
            completion.retries,
        )

    def _account(self, prompt: Prompt, completion: Completion) -> None:
        self.budget.add(self.record(prompt, completion))
        if self.recorder is not None:
            self.recorder.add(prompt, completion, self.spec)

    def close(self) -> None:
        self.provider.close()


__all__ = ["Budget", "LLMClient", "LLMError"]
