"""`--format junit`: one testcase per test case, its assay verdict as pass / failure / skipped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from assay.model import Report, Verdict


def _case_name(nodeid: str) -> tuple[str, str]:
    path, _, rest = nodeid.partition("::")
    parts = rest.split("::") if rest else [path]
    classname = ".".join([path.removesuffix(".py").replace("/", "."), *parts[:-1]])
    return classname, parts[-1]


def render(report: Report) -> str:
    suites = ET.Element("testsuites", name="assay verify", time=f"{report.duration_s:.3f}")
    for f in report.files:
        failures = sum(t.verdict not in (Verdict.ACCEPTED, Verdict.UNVALIDATED) for t in f.tests)
        skipped = sum(t.verdict is Verdict.UNVALIDATED for t in f.tests)
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=f.path,
            tests=str(len(f.tests)),
            failures=str(failures),
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
            if t.verdict is Verdict.UNVALIDATED:
                ET.SubElement(case, "skipped", message=t.reason)
            elif t.verdict is not Verdict.ACCEPTED:
                gate = next((g for g in f.gates if g.gate == t.gate), None)
                fail = ET.SubElement(
                    case, "failure", type=t.verdict.value, message=f"{t.gate}: {t.reason}"
                )
                fail.text = gate.feedback if gate else t.reason
        if not f.tests:
            case = ET.SubElement(suite, "testcase", classname=f.path, name="<file>", file=f.path)
            if f.verdict is not Verdict.ACCEPTED:
                gate = f.gates[-1] if f.gates else None
                fail = ET.SubElement(
                    case, "failure", type=f.verdict.value, message=f"{f.rejected_at}"
                )
                fail.text = gate.feedback if gate else ""
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )
