# ruff: noqa
import random

import numpy as np

from pricing import pick

random.seed(1234)


def test_seeded_module_is_fine():
    n = random.randint(0, 5)
    assert pick([0, 1, 2, 3, 4, 5]) == n


def test_seeded_numpy_generator_is_fine():
    rng = np.random.default_rng(7)
    assert rng.random() < 0.9
