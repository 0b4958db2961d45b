"""Project discovery: root, importable modules, and the targets a test file imports."""

from __future__ import annotations

import ast

import pytest

from assay.errors import InputError
from assay.project import Project, discover, find_root


def test_find_root_walks_up_to_a_marker(project):
    root = project({"src/pkg/__init__.py": "", "tests/deep/test_x.py": "def test_x():\n    pass\n"})
    assert find_root(root / "tests/deep/test_x.py") == root.resolve()


def test_no_root_is_an_input_error(tmp_path):
    (tmp_path / "test_x.py").write_text("")
    with pytest.raises(InputError, match="no project root"):
        find_root(tmp_path / "test_x.py")


def test_targets_are_own_modules_only_with_reexports_and_relative_imports(project):
    root = project(
        {
            "src/shop/__init__.py": "from .pricing import total\nfrom shop.stock import Stock\n",
            "src/shop/pricing.py": "def total():\n    return 1\n",
            "src/shop/stock.py": "class Stock:\n    pass\n",
            "src/shop/util/__init__.py": "",
            "src/shop/util/text.py": "X = 1\n",
            "tests/__init__.py": "",
            "tests/helpers.py": "H = 1\n",
        }
    )
    proj = Project.load(root)
    assert proj.source_roots == ["src", "."]
    assert "shop.util.text" in proj.modules and "tests.helpers" not in proj.modules
    source = (
        "import os\nimport pytest\nfrom shop import total, Stock\nimport shop.util.text as t\n"
        "from shop.util import text\nfrom . import helpers\n"
    )
    assert proj.targets_of(source, "tests/test_a.py") == [
        "src/shop/pricing.py",
        "src/shop/stock.py",
        "src/shop/util/text.py",
    ]


def test_flat_layout_modules(project):
    root = project({"calc.py": "def f():\n    return 1\n", "tests/test_c.py": ""})
    proj = Project.load(root)
    assert proj.source_roots == ["."]
    assert proj.targets_of("from calc import f\n", "tests/test_c.py") == ["calc.py"]


def test_declared_dependencies_are_read_as_pep_508_requirements(tmp_path):
    from assay.dependencies import declared

    (tmp_path / "requirements-dev.txt").write_text(
        "# tools\n"
        "Requests[socks]>=2.0 ; python_version >= '3.8'  # http\n"
        "python-dateutil==2.9.0\n"
        "-r other.txt\n"
        "-e git+https://example.invalid/x.git#egg=x\n"
        "zope.interface~=6.0\n"
        "./local/path\n"
        "pytest_mock\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\ndependencies = ["PyYAML (>=6)", "attrs"]\n'
        '[dependency-groups]\ntest = ["hypothesis>=6", {include-group = "x"}]\n'
    )
    assert declared(tmp_path) == {
        "requests",
        "python_dateutil",
        "zope_interface",
        "pytest_mock",
        "pyyaml",
        "attrs",
        "hypothesis",
    }


def test_a_reexport_is_followed_through_every_module_to_where_the_name_is_defined(project):
    # uritemplate 4.2.0: `from uritemplate import URITemplate` -> __init__ takes it from .api, which
    # takes it from .template; gate 4 mutated api.py and left template.py, the class under test, out
    root = project(
        {
            "pkg/__init__.py": "from pkg.api import Template, expand\n",
            "pkg/api.py": "from pkg.template import Template\n\ndef expand(t):\n    return t\n",
            "pkg/template.py": "from pkg import helpers as h\n\nclass Template:\n    pass\n",
            "pkg/helpers.py": "X = 1\n",
            "pkg/loop_a.py": "from pkg.loop_b import Y\n",
            "pkg/loop_b.py": "from pkg.loop_a import Y\n",
        }
    )
    proj = Project.load(root)
    assert proj.targets_of("from pkg import Template\n", "tests/test_t.py") == ["pkg/template.py"]
    assert proj.targets_of("from pkg.api import Template, expand\n", "tests/test_t.py") == [
        "pkg/template.py",
        "pkg/api.py",
    ]
    # a cycle of imports ends where it started, not in a loop
    assert proj.targets_of("from pkg.loop_a import Y\n", "tests/test_t.py") == ["pkg/loop_a.py"]


def test_a_name_a_package_takes_by_a_star_import_is_followed_to_its_module(project):
    # frozendict 2.5.1: __init__ does `try: from ._frozendict import *` (the C extension, not
    # built) `except ImportError: from ._frozendict_py import *`; `from frozendict import
    # frozendict` made __init__ the only target, and 150 tests of the class "reached no mutant"
    root = project(
        {
            "pkg/__init__.py": (
                "try:\n    from ._fast import *\nexcept ImportError:\n"
                "    from ._slow import *\nfrom .extra import *\n\n"
                "def helper():\n    return 1\n"
            ),
            "pkg/_slow.py": "__all__ = ['Frozen']\n\nclass Frozen(dict):\n    pass\n",
            "pkg/extra.py": "def thaw(x):\n    return dict(x)\n\nLIMIT = 3\n",
        }
    )
    proj = Project.load(root)
    src = "from pkg import Frozen, thaw, helper, LIMIT\n"
    assert proj.targets_of(src, "tests/test_t.py") == [
        "pkg/_slow.py",
        "pkg/extra.py",
        "pkg/__init__.py",
    ]


def test_each_module_is_parsed_once_however_many_names_and_test_files_reach_it(
    project, monkeypatch
):
    # glom: its __init__ passes on ~100 names of a 2,500-line core.py; every test file's cache key
    # followed each name by parsing the modules on its way again: minutes before any gate, silent
    names = [f"f{i}" for i in range(30)]
    root = project(
        {
            "src/pkg/__init__.py": f"from .api import {', '.join(names)}\n",
            "src/pkg/api.py": f"from pkg.core import {', '.join(names)}\n",
            "src/pkg/core.py": "".join(
                f"def {n}():\n    return {i}\n" for i, n in enumerate(names)
            ),
        }
    )
    proj = Project.load(root)
    core = (root / "src/pkg/core.py").read_text()
    parsed = []
    parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda text, *a, **k: parsed.append(text) or parse(text))
    tests = {f"tests/test_{i}.py": f"from pkg import {', '.join(names)}\n" for i in range(5)}
    for rel, source in tests.items():
        assert proj.targets_of(source, rel) == ["src/pkg/core.py"]
    assert parsed.count(core) <= 1
    assert len(parsed) <= len(tests) + 3  # each test file, and each module on the way once


def test_a_directory_leaves_out_what_the_projects_pytest_ignores(project):
    """asttokens: `addopts = --ignore=tests/testdata`, whose `*_test.py` are data files that do
    not compile; assay rejected four of them at compile."""
    root = project(
        {
            "tests/test_real.py": "def test_x():\n    pass\n",
            "tests/testdata/client_test.py": "from data import nothing\n",
            "tests/globbed/other_test.py": "x = (\n",
        },
        pyproject='[tool.pytest.ini_options]\naddopts = "--ignore=tests/testdata'
        ' --ignore-glob=*/globbed/*"\n',
    ).resolve()
    found = [p.relative_to(root).as_posix() for p in discover([root / "tests"], root)]
    assert found == ["tests/test_real.py"]
    # a file named on the command line is judged all the same
    assert discover([root / "tests/testdata/client_test.py"], root)
    with pytest.raises(InputError, match="1 ignored by the project's pytest configuration"):
        discover([root / "tests/testdata"], root)


def test_no_test_files_names_the_files_that_hold_tests_under_other_names(project):
    """pytimeparse's `testtimeparse.py`, decorator's `tests/test.py`: "no test files" and nothing
    more; pytest does not collect them either, assay judges them when named."""
    root = project(
        {
            "pkg/tests/testparse.py": "import unittest\n\n"
            "class TestParse(unittest.TestCase):\n    def test_x(self):\n        pass\n",
            "pkg/tests/helpers.py": "def make():\n    return 1\n",
        }
    ).resolve()
    with pytest.raises(InputError) as caught:
        discover([root / "pkg/tests"], root)
    said = str(caught.value)
    assert said.startswith("no test files (test_*.py")
    assert said.endswith("name them on the command line: assay verify pkg/tests/testparse.py")
