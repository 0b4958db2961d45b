"""`replay:FILE`: answers from a recorded JSONL file (prompt hash -> response), for reproducible
runs and CI. `--record FILE` on any provider writes such a file (`Recorder`). A prompt that was
never recorded is an error, never a guess."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from assay.config.llm import LLMConfig
from assay.errors import ConfigError
from assay.llm.base import CallParams, Completion, PermanentError, Prompt, estimate_tokens


def load_records(path: Path) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        raise ConfigError(f"replay: no such file: {path}")
    records: dict[str, dict[str, Any]] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            records[str(entry["hash"])] = entry
            str(entry["text"])
        except (ValueError, KeyError, TypeError):
            raise ConfigError(
                f"replay: {path}:{n}: not a record (JSON with 'hash' and 'text')"
            ) from None
    return records


class ReplayProvider:
    name = "replay"

    def __init__(self, model: str, config: LLMConfig):
        self.model = model
        self.path = Path(model)
        self.records = load_records(self.path)

    def complete(self, prompt: Prompt, params: CallParams) -> Completion:
        entry = self.records.get(prompt.hash)
        if entry is None:
            raise PermanentError(
                f"replay: {self.path.name} has no answer for this {prompt.purpose} prompt "
                f"(hash {prompt.hash[:12]}); record it again with --record"
            )
        text = entry["text"]
        given = "prompt_tokens" in entry and "completion_tokens" in entry
        return Completion(
            text=text,
            prompt_tokens=int(entry.get("prompt_tokens") or estimate_tokens(prompt.user)),
            completion_tokens=int(entry.get("completion_tokens") or estimate_tokens(text)),
            finish=entry.get("finish", "stop"),
            estimated=not given,
        )

    def close(self) -> None:
        pass


class Recorder:
    """Appends every answer a client gets (cached ones too) to a JSONL file that `replay:` reads."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("", encoding="utf-8")
        except OSError as err:
            raise ConfigError(f"--record: cannot write {path}: {err.strerror}") from None

    def add(self, prompt: Prompt, completion: Completion, source: str) -> None:
        entry = {
            "hash": prompt.hash,
            "purpose": prompt.purpose,
            "source": source,
            "text": completion.text,
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "finish": completion.finish,
        }
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
