"""Entry of every sandboxed Python process: `<command> <job.json>` (see `launch.argv`).

- `pytest JOB`: one pytest run described by a `protocol.PytestJob` (a batch of them: `batch`);
- `mutation JOB`: the mutation worker for a `protocol.MutationJob`;
- `mutation-standby REQUEST`: a worker on standby that forks one mutation worker per job written
  to REQUEST (`mutation.standby`);
- `offline JOB`: the offline writer's probe of one module for a `protocol.OfflineJob`;
- `pytest-main USER_ROOT SCRATCH_ROOT SOURCE_ROOTS ARGS...`: plain pytest with imports from the
  scratch copy (the fresh-process check of mutants).
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    command, args = argv[0], argv[1:]
    if command == "pytest":
        from .pytest_runner import main as run
        from .pytest_runner import start

        job = start(args[0])
        if job.mode == "batch":  # several files, each in a fork of one configured session
            from .batch import run as run_batch

            return run_batch(job)
        return run(job)
    if command == "mutation":
        from .mutation.worker import main as work

        return work(args[0])
    if command == "mutation-standby":
        from .mutation.standby import main as stand_by

        return stand_by(args[0])
    if command == "offline":
        from .offline.worker import main as probe

        return probe(args[0])
    if command == "pytest-main":
        import pytest

        from .boot import isolate_imports

        isolate_imports(args[0], args[1], [r for r in args[2].split(",") if r])
        return int(pytest.main(args[3:]))
    print(f"_assay_sandbox: unknown command {command!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
