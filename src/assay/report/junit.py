"""`--format junit`: one testcase per test case, its assay verdict as pass / failure / skipped.

A testcase is a failure only when it made its file fail: the file is not accepted and the test is
one it was turned down for (`rejected`, `flaky`, or singled out by the gate that stopped the file).
A `low_value` test of an accepted file, or a redundant one, is a property, not a failure: JUnit
then counts what the exit code says. A file that failed without naming a test gets a `<file>` case.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from assay.model import FileReport, Report, TestOutcome, Verdict


def _case_name(nodeid: str) -> tuple[str, str]:
    path, _, rest = nodeid.partition("::")
    parts = rest.split("::") if rest else [path]
    classname = ".".join([path.removesuffix(".py").replace("/", "."), *parts[:-1]])
    return classname, parts[-1]


def failed(f: FileReport, t: TestOutcome) -> bool:
    """Whether `t` is a reason its file was not accepted."""
    if f.verdict is Verdict.ACCEPTED or t.verdict in (Verdict.ACCEPTED, Verdict.UNVALIDATED):
        return False
    return t.verdict in (Verdict.REJECTED, Verdict.FLAKY) or t.gate == f.rejected_at


def render(report: Report) -> str:
    suites = ET.Element("testsuites", name="assay verify", time=f"{report.duration_s:.3f}")
    for f in report.files:
        failures = sum(failed(f, t) for t in f.tests)
        # the file has no test, or failed while no test of it says why (an unvalidated one's tests
        # are skipped, each with its reason): the file itself is the case
        whole = not f.tests or (
            f.verdict not in (Verdict.ACCEPTED, Verdict.UNVALIDATED) and not failures
        )
        failing_file = whole and f.verdict is not Verdict.ACCEPTED
        skipped = sum(t.verdict is Verdict.UNVALIDATED for t in f.tests)
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=f.path,
            tests=str(len(f.tests) + whole),
            failures=str(failures + failing_file),
            errors="0",
            skipped=str(skipped),
            time=f"{f.duration_s:.3f}",
        )
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="assay.verdict", value=f.verdict.value)
        ET.SubElement(props, "property", name="assay.rejected_at", value=f.rejected_at or "")
        # a gate that did not measure this file says why (mutation for another language)
        for g in f.gates:
            if g.status.value == "skip" and g.details.get("reason"):
                ET.SubElement(
                    props,
                    "property",
                    name=f"assay.skipped.{g.gate}",
                    value=str(g.details["reason"]),
                )
        for t in f.tests:
            classname, name = _case_name(t.id)
            case = ET.SubElement(suite, "testcase", classname=classname, name=name, file=f.path)
            case_props = ET.SubElement(case, "properties")
            ET.SubElement(case_props, "property", name="assay.verdict", value=t.verdict.value)
            if t.reason:
                ET.SubElement(case_props, "property", name="assay.reason", value=t.reason)
            if t.note:
                ET.SubElement(case_props, "property", name="assay.note", value=t.note)
            if t.verdict is Verdict.UNVALIDATED:
                ET.SubElement(case, "skipped", message=t.reason)
            elif failed(f, t):
                gate = next((g for g in f.gates if g.gate == t.gate), None)
                fail = ET.SubElement(
                    case, "failure", type=t.verdict.value, message=f"{t.gate}: {t.reason}"
                )
                fail.text = gate.feedback if gate else t.reason
        if whole:
            case = ET.SubElement(suite, "testcase", classname=f.path, name="<file>", file=f.path)
            gate = next((g for g in f.gates if g.gate == f.rejected_at), None)
            gate = gate or (f.gates[-1] if f.gates else None)
            if failing_file:
                fail = ET.SubElement(
                    case, "failure", type=f.verdict.value, message=f"{f.rejected_at}"
                )
                fail.text = gate.feedback if gate else ""
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )
