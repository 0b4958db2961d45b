"""Each test starts with the random generators seeded from its node id and the run's own salt, as
pytest-randomly seeds them for every test from a per-session seed: a test that draws random data
draws the same in the baseline and under every mutant, in every child of the run and whichever tests
ran before it in its child. Its verdict and its time then do not hang on the draw (more-itertools'
`test_maxlen` fails in 4.3 to 5 s under some mutants, by the data, against a 5.2 s deadline).

The salt is drawn once per worker (its children are forks and share it), not fixed: with a fixed
seed a test that hangs on unseeded randomness drew the same in every assay run, and so passed, or
failed, gate 4 for good - its flakiness never showed there, and a failing baseline silently cut its
mutants' coverage."""

from __future__ import annotations

import contextlib
import os
import random
import sys
import zlib

SALT = int.from_bytes(os.urandom(4), "little")


def reseed(nodeid: str) -> None:
    seed = zlib.crc32(nodeid.encode()) ^ SALT
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        # a numpy without the legacy API: its state is left as it is
        with contextlib.suppress(Exception):
            numpy.random.seed(seed)
