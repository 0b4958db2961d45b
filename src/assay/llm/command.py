"""`command:PROGRAM ARGS`: any program that reads the prompt on stdin and prints the answer on
stdout (a local model's CLI, a coding agent). It is the user's own tool, run as the user, outside
the sandbox; it reports no token usage, so tokens are estimated from the text."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import time

from assay.config.llm import LLMConfig
from assay.errors import ConfigError
from assay.llm.base import CallParams, Completion, Prompt, TransientError, estimate_tokens

SEPARATOR = "\n\n---\n\n"


class CommandProvider:
    name = "command"

    def __init__(self, model: str, config: LLMConfig):
        try:
            self.argv = shlex.split(model)
        except ValueError as err:
            raise ConfigError(f"command provider: cannot split {model!r}: {err}") from None
        if not self.argv:
            raise ConfigError("command provider: give the program, e.g. command:'my-agent --print'")
        if shutil.which(self.argv[0]) is None:
            raise ConfigError(f"command provider: `{self.argv[0]}` not found on PATH")
        self.model = model

    def complete(self, prompt: Prompt, params: CallParams) -> Completion:
        text_in = prompt.system + SEPARATOR + prompt.user
        start = time.monotonic()
        proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(text_in, timeout=params.timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise TransientError(f"command: no answer within {params.timeout_s:g} s") from None
        if proc.returncode != 0:
            tail = " ".join((err or "").strip().splitlines()[-2:])[:200]
            raise TransientError(
                f"command: `{self.argv[0]}` exited with status {proc.returncode}: {tail}"
            )
        return Completion(
            text=out,
            prompt_tokens=estimate_tokens(text_in),
            completion_tokens=estimate_tokens(out),
            estimated=True,
            duration_s=time.monotonic() - start,
        )

    def close(self) -> None:
        pass
