"""JUnit XML output for CI dashboards: one test case per result, one test suite per submitter.

A result's test case fails when the result is invalid; the failure lists every error finding whose
scope contains the result (its own, and those of its model, system, submitter, division or root).
Warnings, info findings and waived findings go to the test case's ``system-out``. Findings whose
scope holds no result (e.g. a system folder without results) get a test case of their own, named
after that scope. No timestamps; paths are relative to the submission root.
"""

from __future__ import annotations

import re
from collections import defaultdict
from xml.sax.saxutils import escape, quoteattr

from checker.diagnostics import Severity
from checker.report import Report, results_in_scope, scope_note

_XML_BAD = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: str) -> str:
    return _XML_BAD.sub("\ufffd", str(text))


def _attr(text) -> str:
    return quoteattr(_clean(text))


def _line(f) -> str:
    parts = [f"{f.severity.value.upper()} {f.code}" + (f" [{scope_note(f)}]" if scope_note(f) else "")
             + f": {f.message}"]
    for label, value in (("expected", f.expected), ("actual", f.actual), ("hint", f.hint)):
        if value is not None:
            parts.append(f"    {label}: {value}")
    if f.waived:
        parts.append(f"    waived: {f.waived}")
    return "\n".join(parts)


def _case(classname: str, name: str, findings: list, failed: bool, reason: str) -> tuple[list[str], bool]:
    errors = [f for f in findings if f.severity == Severity.ERROR and not f.waived]
    other = [f for f in findings if f not in errors]
    lines = [f"    <testcase classname={_attr(classname)} name={_attr(name)} time=\"0\">"]
    failing = failed or bool(errors)
    if failing:
        codes = sorted({f.code for f in errors})
        message = f"{len(errors)} error(s): {' '.join(codes)}" if errors else reason
        body = "\n".join(_line(f) for f in errors) or reason
        lines.append(f"      <failure message={_attr(message)} type={_attr(codes[0] if codes else 'invalid')}>"
                     f"{escape(_clean(body))}</failure>")
    if other:
        lines.append(f"      <system-out>{escape(_clean(chr(10).join(_line(f) for f in other)))}</system-out>")
    lines.append("    </testcase>")
    return lines, failing


def render(report: Report) -> str:
    holders_of = results_in_scope([r.id for r in report.results])
    per_result: dict[str, list] = defaultdict(list)
    orphans: dict[str, list] = defaultdict(list)
    for f in report.findings:
        # an error that fails the run without invalidating the results below it is a test case of its own
        holders = holders_of(f.result_id) if f.invalidates or f.severity != Severity.ERROR else []
        for rid in holders:
            per_result[rid].append(f)
        if not holders:
            orphans[f.result_id if f.result_id is not None else "."].append(f)
    suites: dict[str, list[tuple[list[str], bool]]] = defaultdict(list)
    for r in report.results:
        classname = "/".join((r.division, r.submitter, r.system, r.model))
        suites[f"{r.division}/{r.submitter}"].append(
            _case(classname, r.scenario_dir, per_result.get(r.id, []), not r.valid,
                  "the result is invalid (no reported value)"))
    for scope, found in sorted(orphans.items()):
        parts = scope.split("/")
        suite = "/".join(parts[:2]) if len(parts) >= 2 else (scope if scope not in ("", ".") else "(submission root)")
        suites[suite].append(_case(suite, scope or ".", found, False, ""))
    total = sum(len(v) for v in suites.values())
    failures = sum(1 for v in suites.values() for _, failed in v if failed)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f"<testsuites name={_attr('mlpc ' + report.round)} tests=\"{total}\" failures=\"{failures}\" "
           f"errors=\"0\" skipped=\"0\" time=\"0\">"]
    for name in sorted(suites):
        cases = suites[name]
        fails = sum(1 for _, failed in cases if failed)
        out.append(f"  <testsuite name={_attr(name)} tests=\"{len(cases)}\" failures=\"{fails}\" errors=\"0\" "
                   f"skipped=\"0\" time=\"0\">")
        out.append("    <properties>")
        for key, value in (("round", report.round), ("profile", report.profile)):
            out.append(f"      <property name={_attr(key)} value={_attr(value)}/>")
        out.append("    </properties>")
        for lines, _ in cases:
            out.extend(lines)
        out.append("  </testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"
