"""CPU of a whole process tree, orphans included, for the benches that compare sandbox backends.

`os.wait4` and RUSAGE_CHILDREN count only the descendants someone waited for. bubblewrap's monitor
exits as soon as the test command does, without waiting for its pid-1 helper, which has reaped the
test: under the bwrap backend the tests' CPU never reaches assay's rusage. A cgroup v1 `cpuacct`
group counts every process started in it, whoever reaps it (assay moves its runs into pids and
memory cgroups only, other hierarchies under v1). Elsewhere (cgroup v2, no permission) this falls
back to rusage and says so.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path("/sys/fs/cgroup/cpuacct")


class Meter:
    """`group` is the cpuacct group processes join (`join()` in the child, or the bench itself), or
    None: then CPU is read from rusage by the caller."""

    def __init__(self) -> None:
        self.group: Path | None = None
        if (ROOT / "cpuacct.usage").exists():
            group = ROOT / f"assay-bench-{os.getpid()}"
            try:
                group.mkdir(exist_ok=True)
                self.group = group
            except OSError:
                self.group = None

    @property
    def method(self) -> str:
        return "cpuacct cgroup (every process)" if self.group else "rusage (waited-for only)"

    def join(self) -> None:
        """Put the calling process (and so all it starts) in the group."""
        if self.group is not None:
            (self.group / "cgroup.procs").write_text(str(os.getpid()))

    def seconds(self) -> float:
        """CPU seconds used in the group since it was made."""
        assert self.group is not None
        return int((self.group / "cpuacct.usage").read_text()) / 1e9

    def close(self) -> None:
        """Leave the group and remove it (no process may be left in it)."""
        if self.group is None:
            return
        try:
            (ROOT / "cgroup.procs").write_text(str(os.getpid()))
            self.group.rmdir()
        except OSError:
            pass
