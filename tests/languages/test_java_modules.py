"""A Maven project that is a named module (`src/main/java/module-info.java`, as joda-convert is):
javac on the candidate alone with the sources on its source path compiles the test into that
module, which does not read JUnit ("package org.junit is not visible"), and joda-convert's sound
tests were rejected at gate 1. Maven patches the module for its tests: the candidate goes to it."""

from __future__ import annotations

import shutil

import pytest

from assay import api
from tests.languages.conftest import copy_example


@pytest.mark.slow
def test_a_test_of_a_named_module_compiles_as_maven_compiles_it(tmp_path):
    """Slow (Maven builds and a JVM, 20-90 s)."""
    if shutil.which("mvn") is None:
        pytest.skip("Maven is not installed")
    project = copy_example("java", tmp_path)
    (project / "src/main/java/module-info.java").write_text(
        "module com.acme {\n    exports com.acme;\n}\n"
    )
    for broken in ("PriceTypoTest", "PriceWrongTest", "PriceFlakyTest"):
        (project / f"src/test/java/com/acme/{broken}.java").unlink()
    report = api.verify(
        [project / "src/test/java/com/acme/PriceTest.java"],
        root=project,
        use_cache=False,
        overrides={"gates": ["compile", "green"]},
    )
    f = report.files[0]
    assert f.verdict.value == "accepted", [g.feedback for g in f.gates]
