"""A parameter typed only in its docstring gets values of that type. base62's `encodebytes(barray)`
says `:type barray: bytes` and checks it through a helper (`_check_type(barray, bytes)`): the probe
gave it strings only, all 82 raised TypeError, and the report asked for "a type hint" the author had
written in Sphinx's words. On tests/offline/fixtures/sphinxdoc/codec.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from assay._assay_sandbox.offline.shapes import shaped

PATH = Path(__file__).resolve().parent / "fixtures" / "sphinxdoc" / "codec.py"


def _codec():
    spec = importlib.util.spec_from_file_location("codec", PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_sphinx_type_field_gives_values_of_that_type():
    codec = _codec()
    values = shaped(codec.pack, "barray", {})
    assert any(isinstance(v, bytes) for v in values), values
    assert codec.pack(next(v for v in values if isinstance(v, bytes) and v)) == "61-62-63"


def test_a_typed_param_field_a_numpy_section_and_google_args_count_too():
    codec = _codec()
    assert any(isinstance(v, str) for v in shaped(codec.unpack, "text", {}))
    assert any(type(v) is int for v in shaped(codec.scale, "amount", {}))
    assert any(type(v) is float for v in shaped(codec.scale, "factor", {}))
    assert shaped(codec.shift, "value", {})[:2] == [b"", b"abc"]


def test_a_parameter_the_docstring_does_not_type_gets_nothing_from_it():
    codec = _codec()
    assert not any(isinstance(v, bytes) for v in shaped(codec.unpack, "sep", {}))
