"""What the repair loop (the generate issue) will do with a compiled language, with in-memory candidates: a first
answer that does not compile, the compiler's feedback going back, a second answer that compiles and passes."""

from __future__ import annotations

import pytest

from assay import api
from assay.config import Settings
from assay.pipeline import Verifier
from assay.project import Project
from tests.languages.conftest import copy_example

pytestmark = pytest.mark.slow

ATTEMPTS = {  # language: (path, first answer, what the feedback must name, second answer)
    "go": ("price/repair_test.go",
           'package price\n\nimport "testing"\n\nfunc TestRepair(t *testing.T) {\n'
           '\tvar got string = Discount(100, 10)\n\tif got != "90" {\n\t\tt.Fatal(got)\n\t}\n}\n',
           "price/repair_test.go:6:",
           'package price\n\nimport "testing"\n\nfunc TestRepair(t *testing.T) {\n'
           '\tif got := Discount(100, 10); got != 90 {\n\t\tt.Fatalf("Discount = %d; want 90", got)\n\t}\n}\n'),
    "rust": ("tests/repair.rs",
             "#[test]\nfn repair() {\n    let got: String = price::discount(100, 10);\n"
             "    assert_eq!(got, \"90\");\n}\n",
             "tests/repair.rs:3:",
             "#[test]\nfn repair() {\n    assert_eq!(price::discount(100, 10), 90);\n}\n"),
    "java": ("src/test/java/com/acme/RepairTest.java",
             "package com.acme;\n\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions"
             ".assertEquals;\n\nclass RepairTest {\n    @Test\n    void discount() {\n"
             "        String got = Price.discount(100, 10);\n        assertEquals(\"90\", got);\n    }\n}\n",
             "src/test/java/com/acme/RepairTest.java:9:",
             "package com.acme;\n\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions"
             ".assertEquals;\n\nclass RepairTest {\n    @Test\n    void discount() {\n"
             "        assertEquals(90, Price.discount(100, 10));\n    }\n}\n"),
    "typescript": ("test/repair.test.ts",
                   'import { expect, it } from "vitest";\nimport { discount } from "../src/price";\n\n'
                   'it("discounts", () => {\n  const got: string = discount(100, 10);\n'
                   '  expect(got).toBe("90");\n});\n',
                   "test/repair.test.ts:5:",
                   'import { expect, it } from "vitest";\nimport { discount } from "../src/price";\n\n'
                   'it("discounts", () => {\n  expect(discount(100, 10)).toBe(90);\n});\n'),
}


@pytest.mark.parametrize("lang", list(ATTEMPTS))
def test_compile_feedback_then_a_repaired_answer_passes(tmp_path, lang):
    """One Verifier for both attempts, as the loop keeps it: the second compile reuses the scratch copy's build
    output (for Java: javac on the file alone)."""
    from tests.languages.conftest import EXAMPLES

    project = copy_example(EXAMPLES[lang], tmp_path)
    rel, first, where, second = ATTEMPTS[lang]
    settings = Settings(gates=["compile", "green"], cache=False)
    proj = Project.load(project)
    verifier = Verifier(proj, settings, use_cache=False)
    try:
        attempt = verifier.verify_file(api.candidate(proj, rel, first))
        assert (attempt.verdict.value, attempt.rejected_at) == ("rejected", "compile")
        feedback = attempt.gates[0].feedback
        assert where in feedback and len(feedback.splitlines()) <= 5, feedback  # what goes back to the writer
        assert settings.max_compile_retries == 3
        repaired = verifier.verify_file(api.candidate(proj, rel, second))
        assert repaired.verdict.value == "accepted", repaired.gates[-1].feedback
        assert repaired.gates[0].duration_s < attempt.gates[0].duration_s + 5
    finally:
        verifier.close()
    assert not (project / rel).exists()  # candidates live in the scratch copy only
