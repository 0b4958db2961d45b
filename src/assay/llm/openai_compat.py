"""`openai:MODEL`: any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp's server, LM
Studio) through the official `openai` SDK. The SDK's own retries are off: `LLMClient` retries with
its own bounded backoff, so that every provider behaves the same and every retry is counted."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from urllib.parse import urlsplit

from assay.config.llm import LLMConfig
from assay.errors import ConfigError
from assay.llm.base import CallParams, Completion, PermanentError, Prompt, TransientError

FINISH = {"stop": "stop", "length": "length"}
# a model on this machine's CPU writes 1-15 tokens/s: a 1500-token answer needs minutes
LOCAL_TIMEOUT_S = 300.0


def request_timeout(config: LLMConfig, base_url: str | None) -> float:
    """Seconds one request may take: `timeout_s`, but at least LOCAL_TIMEOUT_S for a server on
    this machine unless `timeout_s` was set."""
    host = urlsplit(base_url or "").hostname or ""
    local = host in ("localhost", "::1", "0.0.0.0") or host.startswith("127.")
    if local and "timeout_s" not in config.model_fields_set:
        return max(config.timeout_s, LOCAL_TIMEOUT_S)
    return config.timeout_s


def retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from a Retry-After header (numbers only; dates are rare on these APIs)."""
    try:
        value = headers.get("retry-after") if headers is not None else None
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


class OpenAIProvider:
    name = "openai"

    def __init__(self, model: str, config: LLMConfig):
        try:
            import openai
        except ImportError:
            raise ConfigError(
                "the openai provider needs the openai SDK: pip install 'assay[openai]'"
            ) from None
        self._sdk = openai
        self.model = model
        base_url = config.openai_base_url or os.environ.get("OPENAI_BASE_URL")
        # A local server needs no key; the SDK insists on one, so a placeholder stands in
        # (never logged).
        key = os.environ.get(config.openai_api_key_env) or ("not-needed" if base_url else None)
        if key is None:
            raise ConfigError(
                f"openai: no API key: set ${config.openai_api_key_env} (or OPENAI_BASE_URL for a "
                "local server)"
            )
        self.timeout_s = request_timeout(config, base_url)
        self._client = openai.OpenAI(
            api_key=key, base_url=base_url, max_retries=0, timeout=self.timeout_s
        )

    def complete(self, prompt: Prompt, params: CallParams) -> Completion:
        sdk = self._sdk
        start = time.monotonic()
        timeout = max(params.timeout_s, self.timeout_s)  # a local server's floor
        try:
            resp = self._client.chat.completions.create(
                model=self.model,
                temperature=params.temperature,
                max_tokens=params.max_tokens,
                messages=[
                    {"role": "system", "content": prompt.system},
                    {"role": "user", "content": prompt.user},
                ],
                timeout=timeout,
            )
        except sdk.APITimeoutError:
            raise TransientError(f"openai: no answer within {timeout:g} s") from None
        except sdk.APIConnectionError as err:
            raise TransientError(
                f"openai: connection failed: {type(err.__cause__ or err).__name__}"
            ) from None
        except sdk.APIStatusError as err:
            code = err.status_code
            message = f"openai: HTTP {code}: {_short(err)}"
            if code == 429 or code >= 500 or code == 408:
                raise TransientError(message, retry_after(err.response.headers)) from None
            raise PermanentError(message) from None
        # an answer that is not JSON or not of the API's shape
        except (sdk.APIError, ValueError) as err:
            raise TransientError(f"openai: unreadable answer: {_short(err)}") from None
        if not resp.choices:
            raise TransientError("openai: answer without choices")
        choice = resp.choices[0]
        text = choice.message.content or ""
        usage = resp.usage
        return Completion(
            text=text,
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            finish=FINISH.get(choice.finish_reason or "stop", "other"),
            estimated=usage is None,
            duration_s=time.monotonic() - start,
        )

    def close(self) -> None:
        self._client.close()


def _short(err: Exception) -> str:
    """The server's message in one line, at most 200 characters."""
    text = " ".join(str(getattr(err, "message", None) or err).split())
    return text[:200]
