"""A test that gets the project's object from a conftest fixture and runs its code there, none of it
in the modules the file imports (gate 4's scope), is not `low_value` "reaches no mutant: none of the
project lines it runs has one": it runs project lines gate 4 did not mutate. tinydb 4.9.0's
tests/test_tables.py imports only `where` (queries.py) and takes the `db` fixture (a TinyDB): 16 of
its 30 tests, `db.tables()` and `db.table('x').name` among them, were low value so. Gate 4 cannot
judge them: a note says so, naming the fixture."""

from __future__ import annotations

import textwrap

import pytest

from assay.gates.reach import fed_tests
from assay.project import Project
from tests.conftest import verify_json

FILES = {
    "tdb/__init__.py": "from tdb.queries import where\nfrom tdb.table import Table\n",
    "tdb/queries.py": """
        def where(key):
            if not key:
                raise ValueError("empty key")
            return lambda doc: key in doc
        """,
    "tdb/table.py": """
        class Table:
            def __init__(self, name):
                self.name = name
                self.docs = []

            def insert(self, doc):
                if not isinstance(doc, dict):
                    raise TypeError("a document is a dict")
                self.docs.append(doc)
                return len(self.docs)
        """,
    "tests/conftest.py": """
        import pytest

        from tdb import Table


        @pytest.fixture
        def db():
            return Table("_default")
        """,
    "tests/test_tables.py": """
        import pytest

        from tdb import where


        def test_insert_counts(db):
            assert db.insert({"a": 1}) == 1
            assert db.insert({"b": 2}) == 2


        class TestTable:
            def test_name(self, db):
                assert db.name == "_default"


        def test_where_matches():
            assert where("a")({"a": 1})
            assert not where("a")({"b": 1})
            with pytest.raises(ValueError, match="empty key"):
                where("")


        def test_where_exists():
            assert callable(where)
        """,
}


def test_the_tests_a_conftest_fixture_feeds_are_known_by_function(project):
    root = project(FILES)
    source = textwrap.dedent(FILES["tests/test_tables.py"])
    assert fed_tests(Project.load(root), "tests/test_tables.py", source) == {
        "test_insert_counts": "takes the fixture 'db' of tests/conftest.py",
        "TestTable::test_name": "takes the fixture 'db' of tests/conftest.py",
    }


@pytest.mark.slow  # gate 4 end to end: 6 s at load 5
def test_a_fixture_fed_test_out_of_gate_4s_scope_is_not_low_value(project, tmp_path):
    root = project(FILES, "[tool.assay]\ngates = ['compile', 'green', 'mutation']\n")
    f, shown = verify_json(root, "tests/test_tables.py", tmp_path / "r.json")
    assert f["targets"] == ["tdb/queries.py"], f
    tests = {t["id"].split("::", 1)[1]: t for t in f["tests"]}
    for name in ("test_insert_counts", "TestTable::test_name"):
        t = tests[name]
        assert t["verdict"] == "accepted", (t, shown)
        assert t["note"] == (
            "gate 4 cannot judge it: it takes the fixture 'db' of tests/conftest.py, and none of"
            " the code it runs in gate 4's scope (tdb/queries.py) has a mutant"
        ), t
    # a test that reaches nothing, fed by no fixture, stays low value
    assert tests["test_where_exists"]["verdict"] == "low_value"
    assert tests["test_where_matches"]["verdict"] == "accepted"
