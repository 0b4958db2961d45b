"""The interpreters a sandboxed Python run of the project's interpreter will ask about, known
before any `Sandbox` exists.

Each one `shown_dirs` names is probed once per run (an interpreter start each: the venv's `python`
and `python3`, a pyenv shim's 0.3 s), at the first sandboxed start: a file's gate-4 worker on
standby, which gates 1-3 waited behind. Asked here, beside the pytest check of the interpreter
(`project_settings`), their answers are there by then; a probe still running is waited for, never
started twice (`installed._probe`).
"""

from __future__ import annotations

import os
import shutil

from assay.config import SandboxConfig
from assay.dependencies.installed import probe_all
from assay.sandbox import bwrap
from assay.sandbox.environment import allowed_env, venv_path
from assay.sandbox.namespaces import HIDDEN
from assay.sandbox.profiles import PYTHON
from assay.sandbox.shown import named_pythons


def python_run_pythons(config: SandboxConfig, python: str) -> list[str]:
    """What `Sandbox._wrap` probes for a run of `python` under the Python profile: its PATH is
    the allowed one with the venv's scripts first, as every Python run's (gates 1-3, gate 4's
    worker). The hidden roots are bwrap's wherever it is installed and not declined: where its
    probe then fails, the built-in view's fewer roots ask about a subset."""
    env = venv_path(allowed_env(passes=PYTHON.passes, named=config.env).env, python)
    asked = os.environ.get(bwrap.ENV_VAR) or config.backend
    bwrap_maybe = asked != "builtin" and shutil.which("bwrap") is not None
    hidden = bwrap.hidden_roots() if bwrap_maybe else HIDDEN
    return named_pythons([python], env, hidden)


def probe_ahead(config: SandboxConfig, python: str) -> None:
    """Probe, at once, every interpreter a sandboxed run of `python` will ask about."""
    probe_all(python_run_pythons(config, python))
