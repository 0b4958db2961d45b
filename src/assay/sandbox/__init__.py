"""Limits and isolation for untrusted code: the lowest layer that runs anything.

`Sandbox` runs one command under a `Profile` (rlimits, cgroups, namespaces, a scrubbed environment);
the code that runs inside the sandboxed child lives in `assay._assay_sandbox`."""

from assay.sandbox.process import (
    PYTHON,
    Cancelled,
    Profile,
    RunResult,
    Sandbox,
    assay_cache,
    scrubbed_env,
)

__all__ = ["PYTHON", "Cancelled", "Profile", "RunResult", "Sandbox", "assay_cache", "scrubbed_env"]
