"""`anthropic:MODEL`: the Messages API through the official `anthropic` SDK (its retries off,
like openai's)."""

from __future__ import annotations

import inspect
import os
import time

from assay.config.llm import LLMConfig
from assay.errors import ConfigError
from assay.llm.base import CallParams, Completion, PermanentError, Prompt, TransientError
from assay.llm.openai_compat import _short, retry_after

FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}


class AnthropicProvider:
    name = "anthropic"

    def __init__(self, model: str, config: LLMConfig):
        try:
            import anthropic
        except ImportError:
            raise ConfigError(
                "the anthropic provider needs the anthropic SDK: pip install 'assay[anthropic]'"
            ) from None
        self._sdk = anthropic
        self.model = model
        key = os.environ.get(config.anthropic_api_key_env)
        if not key:
            raise ConfigError(f"anthropic: no API key: set ${config.anthropic_api_key_env}")
        base_url = config.anthropic_base_url or os.environ.get("ANTHROPIC_BASE_URL")
        self._client = anthropic.Anthropic(
            api_key=key, base_url=base_url, max_retries=0, timeout=config.timeout_s
        )
        # Newer SDKs dropped `temperature` from messages.create (newer models fix it); pass it where
        # it exists.
        self._temperature = (
            "temperature" in inspect.signature(self._client.messages.create).parameters
        )

    def complete(self, prompt: Prompt, params: CallParams) -> Completion:
        sdk = self._sdk
        start = time.monotonic()
        try:
            extra = {"temperature": params.temperature} if self._temperature else {}
            resp = self._client.messages.create(  # type: ignore[call-overload]
                model=self.model,
                max_tokens=params.max_tokens,
                system=prompt.system,
                messages=[{"role": "user", "content": prompt.user}],
                timeout=params.timeout_s,
                **extra,
            )
        except sdk.APITimeoutError:
            raise TransientError(f"anthropic: no answer within {params.timeout_s:g} s") from None
        except sdk.APIConnectionError as err:
            raise TransientError(
                f"anthropic: connection failed: {type(err.__cause__ or err).__name__}"
            ) from None
        except sdk.APIStatusError as err:
            code = err.status_code
            message = f"anthropic: HTTP {code}: {_short(err)}"
            if code in (408, 429, 529) or code >= 500:
                raise TransientError(message, retry_after(err.response.headers)) from None
            raise PermanentError(message) from None
        # an answer that is not JSON or not of the API's shape
        except (sdk.APIError, ValueError) as err:
            raise TransientError(f"anthropic: unreadable answer: {_short(err)}") from None
        text = "".join(getattr(block, "text", "") for block in resp.content or [])
        usage = resp.usage
        return Completion(
            text=text,
            prompt_tokens=getattr(usage, "input_tokens", 0) or 0,
            completion_tokens=getattr(usage, "output_tokens", 0) or 0,
            finish=FINISH.get(resp.stop_reason or "end_turn", "other"),
            estimated=usage is None,
            duration_s=time.monotonic() - start,
        )

    def close(self) -> None:
        self._client.close()
