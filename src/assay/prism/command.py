"""How a task's `test_command` is run, and how its outcome is read.

The suite *accepts* a member when the command exits 0 and at least one test ran. Three ways to
get there:

- no `test_command`: the language's Runner (`assay.languages`) runs the suite's test files;
- a standard pytest command for a Python task (`python -m pytest ARGS {suite}` or
  `pytest ARGS {suite}`, no shell syntax): the Python runner runs it with the same ARGS, which gives
  the same exit status plus typed per-test outcomes, and runs the project from the scratch copy
  whatever its layout;
- anything else runs as given under `sh -c` in the sandbox (`{suite}` is the suite's path, `{junit}`
  a JUnit XML path the command may write); a pytest command gets `--junitxml` appended when that is
  safe. With JUnit XML the per-test outcomes and "at least one test ran" come from it; without, the
  exit status alone decides.
"""

from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

SHELL_SYNTAX = re.compile(r"[;&|<>`$()\\\n]")
PYTHON = re.compile(r"^(?:.*/)?python(?:3(?:\.\d+)?)?$")


@dataclass(frozen=True)
class CommandPlan:
    kind: str  # runner | shell
    pytest_args: tuple[str, ...] = ()  # runner: what the command passes pytest besides {suite}
    # runner: "suite" = the suite directory ({suite}), "tests" = its test files
    files: str = "suite"
    command: str = ""  # shell: the command with its placeholders
    append_junit: bool = False  # shell: add `--junitxml={junit}` at the end


def _pytest_argv(argv: list[str]) -> list[str] | None:
    """The arguments after `pytest` / `python -m pytest`, or None when argv runs something else."""
    if argv and argv[0] in ("pytest", "py.test"):
        return argv[1:]
    if len(argv) >= 3 and PYTHON.match(argv[0]) and argv[1:3] == ["-m", "pytest"]:
        return argv[3:]
    return None


def plan(language: str, command: str | None) -> CommandPlan:
    """How to run `command` for a task of `language` (see the module docstring)."""
    if command is None:
        return CommandPlan("runner", files="tests")
    try:
        argv = shlex.split(command)
    except ValueError:
        argv = []
    args = _pytest_argv(argv) if argv and not SHELL_SYNTAX.search(command) else None
    if (
        language == "python"
        and args is not None
        and args.count("{suite}") == 1
        and "{junit}" not in command
        and not any("{" in a and a != "{suite}" for a in args)
    ):
        return CommandPlan("runner", tuple(a for a in args if a != "{suite}"))
    append = (
        args is not None
        and "{junit}" not in command
        and not any(a.startswith("--junit") for a in args)
    )
    return CommandPlan("shell", command=command, append_junit=append)


def shell_command(p: CommandPlan, suite: str, junit: Path) -> str:
    """The shell command line with its placeholders filled in."""
    text = p.command.replace("{suite}", shlex.quote(suite)).replace(
        "{junit}", shlex.quote(str(junit))
    )
    return text + f" --junitxml={shlex.quote(str(junit))}" if p.append_junit else text


@dataclass
class JUnitResult:
    tests: dict[str, str] = field(default_factory=dict)  # id -> passed | failed | error | skipped
    messages: dict[str, str] = field(default_factory=dict)


def read_junit(path: Path) -> JUnitResult | None:
    """Per-test outcomes from a JUnit XML file, or None when there is none (or it cannot
    be read)."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    out = JUnitResult()
    for case in root.iter("testcase"):
        where = case.get("file") or (case.get("classname") or "").replace(".", "/")
        test_id = f"{where}::{case.get('name', '?')}" if where else case.get("name", "?")
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            node = case.find(tag)
            if node is not None:
                outcome = "failed" if tag == "failure" else tag
                message = (node.get("message") or node.text or "").strip()
                break
        out.tests[test_id] = outcome
        if message:
            out.messages[test_id] = message
    return out
