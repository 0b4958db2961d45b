"""`assay stats -f html` opens in a real browser: headless Chromium renders the page offline (no
network, no script), the chart is there, and the console stays free of errors."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.conftest import run_cli

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--enable-logging=stderr",
    "--v=0",
    "--dump-dom",
]


@pytest.mark.slow
def test_html_page_renders_in_chromium_without_console_errors(reviewed, tmp_path):
    """Slow lane: it reads the reviewed sprint branch, the whole `generate --sprint` run that only
    the slow lane's sprint tests (test_sprint_loop.py) need otherwise; in the fast lane it paid that
    run alone, the costliest setup of the lane after the prism bench."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (.ci/toolchains installs it)")
    page = tmp_path / "stats.html"
    proc = run_cli("stats", "-f", f"html={page}", cwd=reviewed.clone)
    assert proc.returncode == 0, proc.stderr
    # a console error of the page would be logged as "CONSOLE(...)" / "Uncaught" on stderr
    page.write_text(page.read_text().replace("</body>", "<span id=probe></span></body>"))
    shown = subprocess.run(
        [browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    dom = shown.stdout
    assert '<figure id="chart"><svg' in dom and dom.count("<rect") == 3  # one day: 3 statuses
    # the review deletes one of the recorded run's kept tests
    names = [n for tests in reviewed.generated.values() for n in tests]
    assert f"acceptance {(len(names) - 1) / len(names):.1%}" in dom and 'id="probe"' in dom
    console = [
        line for line in shown.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line
    ]
    assert console == []


def test_console_errors_would_be_seen(tmp_path):
    """The check above can fail: a page whose script throws shows on stderr."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (.ci/toolchains installs it)")
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>undefinedCall()</script></body></html>")
    shown = subprocess.run(
        [browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert any("Uncaught" in line for line in shown.stderr.splitlines()), shown.stderr[-2000:]
