"""A test that kills no mutant of the modules its file imports may kill those of the modules they
hand work to: cron-descriptor's `pytest.raises(MissingFieldError): ExpressionDescriptor("")`
checks `ExpressionParser.parse`, a module the test file never imports. Gate 4 scores the file on
its imports, and called that test `low_value` ("kills none of the 4 mutants of the code it runs").
It now runs on the mutants of the modules those imports import before it is called so; a kill
there is a note, not a verdict."""

from __future__ import annotations

import pytest

from assay.gates.beyond import downstream
from assay.project import Project
from tests.conftest import verify_json

FILES = {
    "cron/__init__.py": """
        from cron.describe import Descriptor
        from cron.errors import MissingField
        """,
    "cron/errors.py": """
        class MissingField(Exception):
            pass


        class FormatProblem(Exception):
            pass
        """,
    "cron/_parser.py": """
        from cron.errors import FormatProblem, MissingField


        def parse(expression):
            # as cron-descriptor's: mutants before the check the test is about
            parsed = ["", "", "", "", "", "", ""]
            if not expression:
                raise MissingField("expression")
            parts = expression.split()
            parsed[: len(parts)] = parts
            if len(parts) < 5:
                raise FormatProblem(f"only {len(parts)} parts")
            return parsed
        """,
    "cron/describe.py": """
        from cron._parser import parse


        class Descriptor:
            def __init__(self, expression, verbose=None):
                if verbose is None:
                    verbose = False
                self.verbose = verbose
                self.parts = parse(expression)

            def describe(self):
                minute = self.parts[0]
                if minute == "*":
                    text = "every minute"
                else:
                    text = f"at minute {minute}"
                if self.verbose:
                    text = text + " (verbose)"
                return text
        """,
    "tests/test_errors.py": """
        import pytest

        from cron import Descriptor, MissingField


        def test_empty_expression():
            with pytest.raises(MissingField):
                Descriptor("")


        def test_descriptions():
            assert Descriptor("* * * * *").describe() == "every minute"
            assert Descriptor("5 * * * *").describe() == "at minute 5"
            assert Descriptor("5 * * * *", verbose=True).describe() == "at minute 5 (verbose)"


        def test_name():
            assert Descriptor.__name__ == "Descriptor"
        """,
}


def test_the_modules_a_files_imports_hand_work_on_to_are_found_through_their_imports(project):
    root = project(FILES)
    # describe.py imports _parser.py, which imports errors.py; the package's __init__ both
    found = downstream(Project.load(root), ["cron/describe.py"])
    assert found == ["cron/_parser.py", "cron/errors.py"]
    assert downstream(Project.load(root), ["cron/errors.py"]) == []


@pytest.mark.slow  # gate 4 end to end, twice: ~8 s at load 10
def test_a_test_whose_kills_are_in_a_module_its_file_does_not_import_is_not_low_value(
    project, tmp_path
):
    root = project(FILES, "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n")
    f, shown = verify_json(root, "tests/test_errors.py", tmp_path / "r.json")
    assert "cron/_parser.py" not in f["targets"], f["targets"]
    tests = {t["id"].split("::", 1)[1]: t for t in f["tests"]}
    empty = tests["test_empty_expression"]
    assert empty["verdict"] == "accepted", (empty, shown)
    assert empty["note"].startswith(
        "kills no mutant of the modules its file imports, but kills one of cron/_parser.py"
    ), empty
    assert tests["test_descriptions"]["verdict"] == "accepted"
    # a test that runs no function anywhere stays low value
    assert tests["test_name"]["verdict"] == "low_value", tests["test_name"]
    # the score is still the file's imports' own
    [gate] = [g for g in f["gates"] if g["gate"] == "mutation"]
    assert all(not s["file"].endswith("_parser.py") for s in gate["survivors"]), gate["survivors"]
