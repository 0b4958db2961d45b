"""Run the `run:` steps of the repository's composite action (`action.yml`) on this machine, in
order, as a GitHub runner would: `${{ }}` expressions substituted from the inputs and a pull
request's context, `$GITHUB_OUTPUT` read into `steps.<id>.outputs`, `$GITHUB_STEP_SUMMARY` kept.
`uses:` steps (setup-python, the SARIF upload) cannot run here: they are listed with their
arguments, so a caller can check what they would have received.

    python ci/run_action_locally.py --workspace DIR [--input NAME=VALUE ...] [--base-ref main]

Prints one JSON object (exit code, outputs, the summary's path, the `uses:` steps) and exits with
the code the job would end with. Needs PyYAML."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

ACTION = Path(__file__).resolve().parent.parent / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
# what GitHub runs for `shell: bash`
BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]


def substitute(text: str, context: dict[str, Any]) -> str:
    """Each `${{ a.b.c }}` by its value; an output a step did not set is empty, as on GitHub; any
    other name missing, or an expression that is not a plain name (this runner evaluates no
    functions or operators), is an error."""

    def value(match: re.Match[str]) -> str:
        node: Any = context
        parts = match.group(1).split(".")
        for part in parts:
            if not isinstance(node, dict) or part not in node:
                if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
                    return ""
                raise SystemExit(f"run_action_locally: cannot evaluate ${{{{ {match.group(1)} }}}}")
            node = node[part]
        return str(node)

    return EXPRESSION.sub(value, text)


def read_outputs(path: Path) -> dict[str, str]:
    """`name=value` lines and `name<<DELIMITER` blocks, as the runner reads $GITHUB_OUTPUT."""
    out: dict[str, str] = {}
    lines = path.read_text().splitlines() if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            out[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        name, _, val = line.partition("=")
        out[name] = val
        i += 1
    return out


def run(workspace: Path, inputs: dict[str, str], base_ref: str, temp: Path) -> dict[str, Any]:
    action = yaml.safe_load(ACTION.read_text())
    defaults = {k: str(v.get("default", "")) for k, v in action.get("inputs", {}).items()}
    unknown = set(inputs) - set(defaults)
    if unknown:
        raise SystemExit(f"run_action_locally: the action has no input {sorted(unknown)[0]}")
    summary = temp / "step_summary.md"
    summary.touch()
    context: dict[str, Any] = {
        "inputs": {**defaults, **inputs},
        "github": {
            "action_path": str(ACTION.parent),
            "workspace": str(workspace),
            "base_ref": base_ref,
            "event_name": "pull_request" if base_ref else "push",
        },
        "runner": {"temp": str(temp)},
        "steps": {},
    }
    result: dict[str, Any] = {"exit_code": 0, "summary": str(summary), "uses": [], "ran": []}
    for number, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {number}")
        if "uses" in step:
            with_ = {k: substitute(str(v), context) for k, v in step.get("with", {}).items()}
            # not evaluated here: `if` (GitHub's functions), listed for the caller to read
            result["uses"].append(
                {"name": name, "uses": step["uses"], "if": step.get("if", ""), "with": with_}
            )
            continue
        output = temp / f"output_{number}"
        output.touch()
        env = {
            **os.environ,
            **{k: substitute(str(v), context) for k, v in step.get("env", {}).items()},
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_ACTION_PATH": str(ACTION.parent),
            "RUNNER_TEMP": str(temp),
            "CI": "true",
        }
        script = temp / f"step_{number}.sh"
        script.write_text(substitute(step["run"], context))
        print(f"run_action_locally: {name}", file=sys.stderr, flush=True)
        # the step's log on stderr: stdout carries only the JSON result
        done = subprocess.run([*BASH, str(script)], cwd=workspace, env=env, stdout=sys.stderr)
        if "id" in step:
            context["steps"][step["id"]] = {"outputs": read_outputs(output)}
        result["ran"].append(name)
        if done.returncode != 0:  # the job stops at a failing step
            result["exit_code"] = done.returncode
            break
    outputs = action.get("outputs", {})
    result["outputs"] = {k: substitute(str(v["value"]), context) for k, v in outputs.items()}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspace", type=Path, default=Path.cwd(), help="the checked-out repo")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--base-ref", default="", help="the pull request's base branch")
    parser.add_argument("--temp", type=Path, help="RUNNER_TEMP (default: a new directory)")
    args = parser.parse_args()
    inputs = dict(item.partition("=")[::2] for item in args.input)
    temp = args.temp or Path(tempfile.mkdtemp(prefix="assay-action-"))
    result = run(args.workspace.resolve(), inputs, args.base_ref, temp)
    print(json.dumps(result, indent=2))
    sys.exit(result["exit_code"])


if __name__ == "__main__":
    main()
