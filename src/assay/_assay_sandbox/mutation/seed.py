"""Each test starts with the random generators seeded from its node id, as pytest-randomly seeds
them for every test: a test that draws random data draws the same in the baseline and under every
mutant, in every run and whichever tests ran before it in its child. Its verdict and its time then
do not hang on the draw (more-itertools' `test_maxlen` fails in 4.3 to 5 s under some mutants, by
the data, against a 5.2 s deadline)."""

from __future__ import annotations

import contextlib
import random
import sys
import zlib


def reseed(nodeid: str) -> None:
    seed = zlib.crc32(nodeid.encode())
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        # a numpy without the legacy API: its state is left as it is
        with contextlib.suppress(Exception):
            numpy.random.seed(seed)
