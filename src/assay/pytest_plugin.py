"""pytest plugin (entry point `pytest11`), loaded in every pytest run of an environment with assay.

It registers the `assay_generated` and `characterization` markers (`assay generate` writes them),
and the `--assay` option: after the session, the test files that ran go through assay's gates, the
summary of `assay verify` is printed and the run fails on any file not accepted. Without `--assay`
it imports nothing from assay and hooks nothing else; `-p no:assay` turns it off altogether."""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

    from assay.model import Report


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("assay").addoption(
        "--assay",
        action="store_true",
        help="after the session, put the test files that ran through assay's gates "
        "(as `assay verify`) and fail the run on any file not accepted",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "assay_generated(task=None, sprint=None): test written by `assay generate` and "
        "accepted by its gates; task: the task id it was written for, sprint: the sprint "
        "(`assay generate --sprint`; `assay stats` counts what review kept)",
    )
    config.addinivalue_line(
        "markers",
        "characterization: pins what the code does today (the offline writer of "
        "`assay generate`); review before relying on it as a specification",
    )
    # an xdist worker runs tests only: the controller sees every file's reports and judges once
    if config.getoption("assay", False) and not hasattr(config, "workerinput"):
        config.pluginmanager.register(GatesAfterSession(config), "assay-gates")


class GatesAfterSession:
    """`--assay`: the files of the tests that reported, through the gates once the session ends."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.files: dict[Path, None] = {}  # in the order they first reported
        self.report: Report | None = None
        self.error: str | None = None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # reports, not collected items: under xdist the controller collects nothing itself
        path = self.config.rootpath / report.nodeid.split("::")[0]
        if path not in self.files and self.is_test_module(path):
            self.files[path] = None

    def is_test_module(self, path: Path) -> bool:
        """A test module by pytest's own `python_files` (a glob with a `/` matches the path's end,
        one without the name, as pytest matches them): not a module whose doctests ran."""
        return any(
            fnmatch(path.as_posix(), f"*/{g}") if "/" in g else fnmatch(path.name, g)
            for g in self.config.getini("python_files")
        )

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        import pytest

        if not self.files or exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            return  # interrupted, a usage error, nothing ran: nothing to judge
        from assay import api
        from assay.errors import AssayError

        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            if self.config.get_terminal_writer().width_of_current_line:
                reporter.write("\n")  # after the progress dots
            n = len(self.files)
            reporter.write_line(f"assay: verifying {n} test file{'s' if n != 1 else ''}…")
        try:
            self.report = api.verify(list(self.files), use_cache=True)
        except AssayError as err:
            self.error = f"assay: {'error: ' if err.exit_code == 2 else ''}{err}"
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return
        if self.report.exit_code != 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.error is not None:
            terminalreporter.write_sep("=", "assay", red=True)
            terminalreporter.write_line(self.error)
        if self.report is None:
            return
        from assay.report.text import render

        ok = self.report.exit_code == 0
        terminalreporter.write_sep("=", "assay verify", green=ok, red=not ok)
        terminalreporter.write(render(self.report, self.config.get_terminal_writer().fullwidth))
