"""`assay mutate` and gate 4 through the real CLI, and the report formats' promises."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.mutation._mutation_support import FIXTURES

SCHEMA = json.loads(
    (Path(__file__).parent / "fixtures/tools/mutation-testing-report-schema.json").read_text()
)


def _assay(cwd, *args):
    return subprocess.run(
        [sys.executable, "-m", "assay", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def shop(tmp_path):
    return shutil.copytree(FIXTURES / "shop", tmp_path / "shop")


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    """One `assay mutate` of the shop's package (pricing.py and an empty __init__.py) writing the
    mutation-testing-elements report through `--format`/`--output` and the HTML page through
    `-f html=FILE`, read by the two report tests (each ran the same mutants before)."""
    shop = shutil.copytree(FIXTURES / "shop", tmp_path_factory.mktemp("reports") / "shop")
    proc = _assay(
        shop,
        "mutate",
        "src/shop",
        "--tests",
        "tests/test_pricing.py",
        "--format",
        "mutation-testing-elements",
        "--output",
        "mte.json",
        "-f",
        "html=m.html",
    )
    return shop, proc


def _offset(text: str, line: int, column: int) -> int:
    return sum(len(row) + 1 for row in text.split("\n")[: line - 1]) + column - 1


def test_mutation_testing_elements_report_round_trips(reported):
    shop, proc = reported
    assert proc.returncode == 0, proc.stderr
    data = json.loads((shop / "mte.json").read_text())
    assert data["schemaVersion"] == "2"
    entry = data["files"]["src/shop/pricing.py"]
    source = entry["source"]
    statuses = {m["status"] for m in entry["mutants"]}
    assert {"Killed", "Survived", "NoCoverage", "Timeout", "Ignored"} <= statuses
    for m in entry["mutants"]:
        start = _offset(source, **m["location"]["start"])
        end = _offset(source, **m["location"]["end"])
        mutated = source[:start] + m["replacement"] + source[end:]
        assert mutated != source
        compile(mutated, "pricing.py", "exec")
        if m["status"] == "Killed":
            assert m["killedBy"][0] in m["coveredBy"]
    assert "tests/test_pricing.py" in data["testFiles"]


def test_html_report_is_the_mte_web_component_offline_with_schema_valid_json(reported, tmp_path):
    shop, proc = reported
    assert proc.returncode == 0, proc.stderr
    jsonschema.validate(json.loads((shop / "mte.json").read_text()), SCHEMA)
    page = (shop / "m.html").read_text()
    assert "<mutation-test-report-app" in page and "customElements.define" in page
    assert "<script src" not in page and "<link" not in page  # nothing to fetch: opens offline
    embedded = page.split('id="assay-report">', 1)[1].split("</script>", 1)[0]
    assert "<" not in embedded and "src/shop/pricing.py" in embedded  # the source cannot close it
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium on PATH (apt-get install chromium): the page is not rendered")
    seen = render(chromium, page, tmp_path / "chromium")
    assert seen["errors"] == [], seen
    assert seen["root"] >= 1, seen  # the file list
    assert seen["file"] and seen["mutants"] > 0, seen  # a file's source with its mutants
    assert seen["test"], seen  # the tests view


# Walks the component's shadow roots through its three views (file list, one file, one test
# file) and writes what it saw into the light DOM, which `--dump-dom` prints.
PROBE = """<script>
const errors = [];
window.addEventListener("error", (e) => errors.push(String(e.message)));
const logged = console.error;
console.error = (...a) => { errors.push(a.join(" ")); logged(...a); };
const all = (root, out = []) => {
  for (const el of root.querySelectorAll("*")) {
    out.push(el);
    if (el.shadowRoot) all(el.shadowRoot, out);
  }
  return out;
};
const links = (kind) => all(document).map((e) => e.getAttribute && e.getAttribute("href"))
  .filter((h) => h && h.includes("#" + kind + "/"));
const tag = (name) => all(document).filter((e) => e.tagName.toLowerCase() === name).length;
const seen = {};
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  await wait(1000);
  seen.root = links("mutant").length;
  const file = links("mutant").find((h) => h.includes("pricing.py")) || links("mutant")[0];
  location.hash = file.split("#")[1];
  await wait(1000);
  seen.file = tag("mte-file");
  seen.mutants = all(document).filter((e) => e.classList && e.classList.contains("mutant-dot"))
    .length;
  location.hash = links("test")[0].split("#")[1];
  await wait(1000);
  seen.test = tag("mte-test-file");
  seen.errors = errors;
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(seen);
  document.body.appendChild(pre);
})().catch((e) => { errors.push(String(e)); seen.errors = errors;
  const pre = document.createElement("pre"); pre.id = "probe";
  pre.textContent = JSON.stringify(seen); document.body.appendChild(pre); });
</script>"""


def render(chromium: str, page: str, work) -> dict:
    work.mkdir()
    (work / "page.html").write_text(page.replace("</body>", PROBE + "</body>"))
    proc = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={work / 'profile'}",
            "--virtual-time-budget=10000",
            "--dump-dom",
            (work / "page.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    return json.loads(html.unescape(found.group(1)))


def test_weak_tests_fail_the_threshold_and_bad_input_is_one_line(shop):
    weak = _assay(
        shop, "mutate", "src/shop/pricing.py", "--tests", "tests/test_weak.py", "-f", "json"
    )
    assert weak.returncode == 1
    data = json.loads(weak.stdout)
    assert data["passed"] is False and data["score"] < 50 and data["code_class"] == "pure"
    lowered = _assay(
        shop, "mutate", "src/shop/pricing.py", "--tests", "tests/test_weak.py", "--threshold", "1"
    )
    assert lowered.returncode == 0
    for args in (
        ["src/shop/nope.py", "--tests", "tests"],
        ["src/shop/pricing.py"],
        ["src/shop/pricing.py", "--tests", "tests", "--format", "xml"],
    ):
        bad = _assay(shop, "mutate", *args)
        assert bad.returncode == 2, bad.stderr
        assert bad.stderr.startswith("assay: error:") and "Traceback" not in bad.stderr


def test_verify_gate_4_rejects_a_weak_test_with_exact_survivors(shop):
    proc = _assay(shop, "verify", "tests/test_weak.py", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    gate = next(g for g in json.loads(proc.stdout)["files"][0]["gates"] if g["gate"] == "mutation")
    assert gate["status"] == "reject"
    assert gate["scope"]["functions"] == ["src/shop/pricing.py::discount"]
    assert gate["feedback"].startswith("REJECT: Gate 4 — LOW MUTATION SCORE (33% < 60%)")
    assert "\nAdd test cases that fail under these mutations.\n" in gate["feedback"]
    # the percent check's mutants change nothing `discount(200)` returns: listed, not counted
    assert gate["feedback"].endswith(
        "Not counted: 7 mutants in the functions these tests call changed nothing they receive"
        " (code their inputs never reach)."
    )
    first = gate["survivors"][0]
    assert first == {
        "file": "src/shop/pricing.py",
        "line": 28,
        "original": "return cents - cents * percent // 100",
        "mutated": "return cents + cents * percent // 100",
        "operator": "arithmetic",
    }
    assert len(gate["survivors"]) == 4
    assert {"line": 26, "mutated": "if False:"}.items() <= gate["unexercised_mutants"][0].items()


def test_a_module_that_does_not_parse_is_one_line_naming_where(shop):
    (shop / "src/shop/broken.py").write_text("def f(x):\n    if x\n        return 1\n")
    proc = _assay(shop, "mutate", "src/shop/broken.py", "--tests", "tests", "-q")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "assay: error: src/shop/broken.py:2: syntax error: expected ':'\n"
