"""`replay:FILE`: answers from a recorded JSONL file, for reproducible runs and CI. `--record FILE`
on any provider writes such a file (`Recorder`).

An answer is found by the prompt's hash. With `[llm] replay_match = "order"`, failing that, it is
the next answer not yet served that was recorded for the same subject (the target, the task), in
recorded order: such a recording stays usable when assay's prompts change, for a replay then
reproduces the recorded *answers*, not the prompts. A request with no answer is an error, never a
guess."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from assay.config.llm import LLMConfig
from assay.errors import ConfigError
from assay.llm.base import CallParams, Completion, PermanentError, Prompt, estimate_tokens


def load_records(path: Path) -> list[dict[str, Any]]:
    """The records of `path` in recorded order; a ConfigError naming the first bad line."""
    if not path.is_file():
        raise ConfigError(f"replay: no such file: {path}")
    records: list[dict[str, Any]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            str(entry["hash"]), str(entry["text"]), str(entry.get("subject", ""))
        except (ValueError, KeyError, TypeError):
            raise ConfigError(
                f"replay: {path}:{n}: not a record (JSON with 'hash' and 'text')"
            ) from None
        records.append(entry)
    return records


class ReplayProvider:
    name = "replay"

    def __init__(self, model: str, config: LLMConfig):
        self.model = model
        self.path = Path(model)
        self.records = load_records(self.path)
        self.by_order = config.replay_match == "order"
        self.by_hash = {str(r["hash"]): i for i, r in enumerate(self.records)}  # the last wins
        self.served: set[int] = set()
        self.asked: dict[str, int] = {}  # subject -> requests so far
        self._lock = threading.Lock()

    def _find(self, prompt: Prompt) -> int | None:
        hit = self.by_hash.get(prompt.hash)
        if hit is None and self.by_order and prompt.subject:
            hit = next(
                (
                    i
                    for i, r in enumerate(self.records)
                    if i not in self.served and r.get("subject") == prompt.subject
                ),
                None,
            )
        return hit

    def complete(self, prompt: Prompt, params: CallParams) -> Completion:
        with self._lock:
            self.asked[prompt.subject] = self.asked.get(prompt.subject, 0) + 1
            hit = self._find(prompt)
            if hit is not None:
                self.served.add(hit)
        if hit is None:
            about = f"request {self.asked[prompt.subject]} for {prompt.subject}, "
            about = about if prompt.subject else ""
            raise PermanentError(
                f"replay: {self.path.name} has no answer for this {prompt.purpose} prompt "
                f"({about}hash {prompt.hash[:12]}); record it again with --record"
            )
        entry = self.records[hit]
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
    """Appends every answer a client gets (cached ones too) to a JSONL file that `replay:` reads.
    One recorder may serve several clients (a sprint's classifier and each task's writer)."""

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
            "subject": prompt.subject,
            "source": source,
            "text": completion.text,
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "finish": completion.finish,
        }
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
