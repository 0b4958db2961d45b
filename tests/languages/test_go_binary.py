"""Gates 2 and 3 run Go's test binary directly (`languages.go_binary`): its test2json-mode output
decoded into the same per-test results `go test -json` gives, with the test's own words (a failed
check, a panic's trace that goes to stderr)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from assay.languages.go_binary import events

TESTS = """package demo

import (
	"fmt"
	"testing"
)

func TestPasses(t *testing.T) { fmt.Println("=== RUN   TestFake"); t.Log("fine") }
func TestFails(t *testing.T) { t.Errorf("Total = %d; want %d", 66, 67) }
func TestSub(t *testing.T) {
	t.Run("a", func(t *testing.T) { t.Error("sub a broke") })
	t.Run("b", func(t *testing.T) {})
}
func TestParallel(t *testing.T) { t.Parallel(); t.Error("parallel broke") }
func TestSkips(t *testing.T) { t.Skip("not here") }
func TestPanics(t *testing.T) { var m map[string]int; m["a"] = 1 }
"""


def _outcomes(stream: list[dict]) -> dict[str, str]:
    return {
        e["Test"]: e["Action"]
        for e in stream
        if e.get("Test") and "/" not in e["Test"] and e.get("Action") in ("pass", "fail", "skip")
    }


@pytest.mark.slow
def test_the_binary_gives_go_test_json_s_outcomes_and_messages(tmp_path: Path) -> None:
    """Slow: two Go builds of a small package (3 s, 12 s on a loaded machine)."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    (tmp_path / "go.mod").write_text("module demo\n\ngo 1.21\n")
    (tmp_path / "demo_test.go").write_text(TESTS)
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local"}
    native = subprocess.run(
        ["go", "test", "-json", "-count=1", "."], cwd=tmp_path, env=env, capture_output=True
    )
    expected = _outcomes([json.loads(ln) for ln in native.stdout.splitlines() if ln.strip()])
    subprocess.run(["go", "test", "-c", "-o", "t.test", "."], cwd=tmp_path, env=env, check=True)
    ran = subprocess.run(
        ["./t.test", "-test.v=test2json", "-test.paniconexit0", "-test.count=1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    stream = events(ran.stdout, ran.stderr)
    got = _outcomes(stream)
    # the panic ends the binary: the tests after it never ran, under either
    assert got == expected and got["TestPanics"] == "fail" and got["TestFails"] == "fail"
    assert got["TestPasses"] == "pass" and got["TestSkips"] == "skip"

    def said(test: str) -> str:
        return "".join(e.get("Output", "") for e in stream if e.get("Test") == test)

    assert "Total = 66; want 67" in said("TestFails")
    assert "assignment to entry in nil map" in said("TestPanics")
    # a test printing a frame line of its own does not start another test
    assert "TestFake" not in got and "=== RUN   TestFake" in said("TestPasses")
