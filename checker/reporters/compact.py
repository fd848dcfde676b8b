"""One line per finding, as linters print them (``path:line: CODE severity name: message``), then a
verdict line: the output of the pre-commit hook, read in a terminal or an editor's commit window.

Errors and warnings that count (not waived, not info) are listed, errors first; each is followed by an
indented line with expected / actual / how to fix when the finding has them. Pure: report in, text out.
"""

from __future__ import annotations

from checker.report import scope_note
from checker.reporters.github import active_findings, check_name
from checker.words import count


def render(report, strict: bool = False) -> str:
    lines = []
    for f in active_findings(report):
        where = str(f.location.path or ".") + (f":{f.location.line}" if f.location.line is not None else "")
        scope = f" [{scope_note(f)}]" if scope_note(f) else ""
        lines.append(f"{where}: {f.code} {f.severity.value} {check_name(f.code)}{scope}: {f.message}")
        extra = "; ".join(f"{label}: {value}" for label, value in (
            ("expected", f.expected), ("actual", f.actual), ("how to fix", f.hint)) if value)
        if extra:
            lines.append(f"    {extra}")
    counts = report.counts()
    units = sorted({f"{r.division}/{r.submitter}" for r in report.results})
    verdict = "ok" if report.ok(strict) else "FAILED"
    lines.append(f"mlpc {verdict}: {count(counts['results'], 'result')} of {', '.join(units) or 'no submitter'} "
                 f"checked (round {report.round}, profile {report.profile}): {counts['invalid']} invalid, "
                 f"{count(counts['errors'], 'error')}, {count(counts['warnings'], 'warning')}")
    return "\n".join(lines) + "\n"
