"""Planning `assay generate` for other languages, with no toolchain run: where each language's test
file goes (never over a user's file), what the writer is told, which targets are refused, what an
answer's code block is."""

from __future__ import annotations

import pytest

from assay import api
from assay.errors import InputError
from assay.languages import LANGUAGES
from assay.llm.extract import extract
from assay.project import Project
from assay.targets import resolve
from assay.targets.polyglot import MAX_EXCERPT_LINES, excerpt
from assay.writers.output import Output
from assay.writers.polyglot import style_example, with_header

FILES = {
    "go": {
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        "internal/price/price.go": "package price\n\n"
        "func Discount(c, p int) int { return c * (100 - p) / 100 }\n",
        "internal/price/price_test.go": "package p",
    },
    "java": {
        "pom.xml": "<project><dependency>assertj-core</dependency></project>",
        "core/src/main/java/com/acme/shop/Price.java": "package "
        "com.acme.shop;\n\npublic class Price {}\n",
    },
    "rust": {
        "Cargo.toml": '[package]\nname = "shop-core"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod money;\n",
        "src/money/mod.rs": "pub fn cents() -> i64 { 1 }\n",
    },
    "typescript": {
        "package.json": '{"devDependencies": {"jest": "29"}}',
        "tsconfig.json": '{"compilerOptions": {"module": "NodeNext"}}',
        "src/util/price.ts": "export const p = 1;\n",
        "__tests__/a.test.ts": "",
    },
}
# language: (source, first file, second file, what the writer is told about imports and framework)
PLANS = {
    "go": (
        "internal/price/price.go",
        "internal/price/price_assay_test.go",
        "internal/price/price_assay2_test.go",
        ("`package price`", "example.com/shop/internal/price", "only the standard library"),
    ),
    "java": (
        "core/src/main/java/com/acme/shop/Price.java",
        "core/src/test/java/com/acme/shop/PriceAssayTest.java",
        "core/src/test/java/com/acme/shop/PriceAssay2Test.java",
        ("`PriceAssayTest` in `package com.acme.shop;`", "JUnit 5", "AssertJ"),
    ),
    "rust": (
        "src/money/mod.rs",
        "tests/money_assay.rs",
        "tests/money_assay2.rs",
        ("`use shop_core::money::{...};`",),
    ),
    "typescript": (
        "src/util/price.ts",
        "__tests__/price.assay.test.ts",
        "__tests__/price.assay2.test.ts",
        ('"../src/util/price.js"', "jest"),
    ),
}


@pytest.mark.parametrize("lang", list(PLANS))
def test_each_language_plans_its_own_layout_and_never_a_taken_name(project, lang):
    root = project(FILES[lang], name=lang)
    source, first, second, facts = PLANS[lang]
    plan = LANGUAGES[lang].plan_tests(root, source)
    assert plan is not None and plan.path == first
    assert all(f in plan.imports + plan.framework for f in facts), plan
    (root / first).parent.mkdir(parents=True, exist_ok=True)
    (root / first).write_text("// the user's own file of that name\n")
    (target,) = resolve(Project.load(root), [str(root / source)], None)
    assert (target.language, target.functions) == (lang, [])
    assert (
        Output(Project.load(root), None, "test_{module}_generated.py", True).plan_other(target).path
        == second
    )


def test_a_mocha_package_gets_tests_written_for_mocha(project):
    """Written for node:test (the default), a generated file of a mocha package ran under mocha
    (gates 1-3 run mocha there): node:test's tests are not mocha's, and none was found."""
    root = project(
        {
            "package.json": '{"name": "m", "devDependencies": {"mocha": "^11"}}',
            "lib/price.js": "exports.total = (a) => a;\n",
            "test/index.js": "",
        },
        name="mocha",
    )
    plan = LANGUAGES["javascript"].plan_tests(root, "lib/price.js")
    assert plan is not None and plan.framework.startswith("mocha (describe/it are globals"), plan
    assert plan.path == "test/price.assay.test.js"


def test_targets_name_symbols_or_are_refused_in_one_line(project):
    root = project({**FILES["go"], "notes.txt": "x", "cs/A.cs": "class A {}"})
    proj = Project.load(root)
    (target,) = resolve(
        proj, [f"{root}/internal/price/price.go::Discount"], None, task="SHOP-7: rounding"
    )
    assert [(f.name, f.line) for f in target.functions] == [
        ("Discount", 3)
    ] and target.task_id == "SHOP-7"
    for spec, message in (
        (f"{root}/internal/price/price_test.go", "is a test file; name the source file it tests"),
        (f"{root}/internal/price/price.go::Missing", "has no 'Missing'"),
        (f"{root}/notes.txt", "not a source file of a language assay generates tests for"),
        (f"{root}/cs/A.cs", "does not write C# tests yet"),
    ):
        with pytest.raises(InputError, match=message):
            resolve(proj, [spec], None)
    with pytest.raises(InputError, match="the offline writer writes Python tests only"):
        # no model writer: the offline one
        api.generate([f"{root}/internal/price/price.go"], root=root)


def test_the_writer_sees_the_file_capped_a_style_example_and_the_header_once(project):
    body = "\n".join(f"// line {n}" for n in range(1, 300)) + "\nfunc Far() int { return 1 }\n"
    root = project(
        {
            **FILES["go"],
            "internal/price/big.go": "package price\n" + body,
            "internal/price/big_test.go": "package price\n\n// the style to follow\n",
        }
    )
    proj = Project.load(root)
    (target,) = resolve(proj, [f"{root}/internal/price/big.go::Far"], None)
    text = excerpt(proj, target)
    assert f"// line {MAX_EXCERPT_LINES - 1}\n" in text and "// line 250\n" not in text
    assert "func Far() int" in text and "left out" in text
    plan = LANGUAGES["go"].plan_tests(root, target.module)
    assert style_example(proj, target, plan).startswith(
        "// internal/price/big_test.go\npackage price"
    )
    headed = with_header(with_header("package price\n", target, plan), target, plan)
    assert headed == "// Generated by assay\n\npackage price\n"


def test_answers_are_read_in_the_target_language():
    go = "```go\npackage p\n\nfunc TestX(t *testing.T) {}\n```\nRationale: x"
    assert extract(go, language="go").code == "package p\n\nfunc TestX(t *testing.T) {}\n"
    wrong = extract("```python\ndef test_x(): pass\n```", language="typescript")
    assert (
        wrong.code is None
        and "not TypeScript" in (wrong.problem or "")
        and "```ts" in (wrong.problem or "")
    )
