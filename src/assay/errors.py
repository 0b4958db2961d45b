"""One error hierarchy for every command: each maps to an exit code and one line for the user, never
a traceback.

- `InputError`: bad paths, files or options (exit 2);
- `ConfigError`: a config file that cannot be used (exit 2);
- `ToolchainError`: a required compiler, interpreter or runner is missing (exit 2,
  with `--require-toolchain`);
- `RunFailed`: the work could not be done on valid input, e.g. a mutation baseline that fails
  (exit 1);
Anything else is assay's own bug: the CLI catches it as an `Exception` (exit 3, the traceback in a
log file).
"""

from __future__ import annotations


class AssayError(Exception):
    """Base of every error assay reports to the user; `exit_code` is what the CLI exits with."""

    exit_code = 2


class InputError(AssayError):
    """Bad input from the user."""


class ConfigError(AssayError):
    """A config file or setting that cannot be used."""


class ToolchainError(AssayError):
    """A tool the work needs is not installed."""


class RunFailed(AssayError):
    """Valid input, but the run could not produce a result (the message says why)."""

    exit_code = 1
