"""Limits and isolation for untrusted code: the lowest layer that runs anything.

`Sandbox` runs one command under a `Profile` (rlimits, cgroups, namespaces, a scrubbed environment);
the code that runs inside the sandboxed child lives in `assay._assay_sandbox`.

Layers, each applied only where this machine allows it and reported as such (`SandboxInfo`):
- wall timeout; the whole process tree is killed on expiry (pid namespace, else process group);
- rlimits: address space, CPU seconds, file size, no core dumps;
- a pids cgroup (cgroups.py) caps the number of processes (fork bombs); where a memory cgroup can
  be made, a profile may limit memory there instead of by address space (a JVM or Node reserves far
  more address space than it uses);
- `unshare` (namespaces.py): new user+mount+pid namespaces, network namespace without interfaces,
  and the user's project bind-mounted read-only so that even absolute paths into it cannot be
  written; or, where `bwrap` is present and works (bwrap.py), a view built from nothing by
  bubblewrap (`sandbox.backend`);
- an environment without anything that looks like a secret (environment.py), with HOME and TMPDIR
  in scratch space.
If assay itself dies (even SIGKILL), PR_SET_PDEATHSIG takes the sandboxed tree down with it.

A `Profile` (profiles.py) says what one toolchain needs beyond that, without weakening the rest:
environment variables that point it at its build caches (read-only, like every path outside the
workspace), a build cache of its own in the workspace's `cache/`, the memory limit it can start
under, directories the workspace keeps or links.
"""

from assay.sandbox.environment import scrubbed_env
from assay.sandbox.process import Cancelled, RunResult, Sandbox
from assay.sandbox.profiles import PYTHON, Profile, assay_cache

__all__ = ["PYTHON", "Cancelled", "Profile", "RunResult", "Sandbox", "assay_cache", "scrubbed_env"]
