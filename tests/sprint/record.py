"""Record a real model's answers for the fixture sprint (`tests/sprint/fixture.py`): what the
sprint tests replay with `--writer replay:tests/sprint/recorded/s42.jsonl`.

  python -m tests.sprint.record --url http://127.0.0.1:8741/v1 [--model local]

Runs `assay generate --sprint S42` on a fresh fixture repository with `openai:MODEL` against the
server at URL (any OpenAI-compatible endpoint; bench/llm/serve.py serves Qwen2.5-Coder-1.5B) and
`--record`. The replay answers by target and order, not by prompt, so a change of assay's prompts
does not call for a new recording; a change of the fixture's code or of the repair loop's turns may.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.sprint.fixture import SPRINT, sprint_repo

RECORDED = Path(__file__).resolve().parent / "recorded" / "s42.jsonl"
# the fixture's own [tool.assay] plus what a small local model needs: long calls, few retries
CONFIG = """
[tool.assay.stability]
reruns = 1
budget_s = 0

[tool.assay.generate]
budget_s = 1800

[tool.assay.llm]
timeout_s = 900
retries = 1
max_output_tokens = 1000
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", required=True, help="the OpenAI-compatible endpoint (…/v1)")
    parser.add_argument("--model", default="local")
    parser.add_argument("--out", type=Path, default=RECORDED)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="assay-sprint-record-") as tmp:
        root = sprint_repo(Path(tmp) / "shop")
        config = Path(tmp) / "record.toml"
        config.write_text(CONFIG)
        env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
        env["OPENAI_BASE_URL"] = args.url
        cmd = [sys.executable, "-m", "assay", "generate", "--sprint", SPRINT]
        cmd += ["--tracker", "file:../tasks.json", "--writer", f"openai:{args.model}"]
        cmd += ["--config", str(config), "--record", str(args.out.resolve()), "-f", "json"]
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
        print(proc.stderr[-3000:], file=sys.stderr)
        if not proc.stdout.strip():
            sys.exit(f"generate --sprint failed ({proc.returncode})")
        report = json.loads(proc.stdout)
        for task in report["tasks"]:
            print(f"{task['id']}: kept {task['kept']}, files {task['files']}, {task['note']}")
        print(f"recorded {len(args.out.read_text().splitlines())} answers to {args.out}")


if __name__ == "__main__":
    main()
