"""The versioned JSON report (documented by schemas/report.schema.json)."""

from __future__ import annotations

from checker.report import REPORT_VERSION, Report
from checker.reporters import jsontext


def to_data(report: Report, lazy: bool = False) -> dict:
    """The report as JSON data; ``lazy``: results and findings as ``jsontext.Records`` (for ``render``)."""
    if lazy:
        results, findings = (jsontext.Records(report.results, lambda r: r.to_dict()),
                             jsontext.Records(report.findings, lambda f: f.to_dict()))
    else:
        results, findings = [r.to_dict() for r in report.results], [f.to_dict() for f in report.findings]
    return {
        "report_version": REPORT_VERSION,
        "tool": "mlpc",
        "tool_version": report.tool_version,
        "fingerprint": report.fingerprint,
        "round": report.round,
        "round_reason": report.round_reason,
        "profile": report.profile,
        "compliant_profile": report.compliant_profile,
        "counts": report.counts(),
        "results": results,
        "findings": findings,
    }


def render(report: Report) -> str:
    """Indented JSON whose result and finding records take one line each (written one record at a time)."""
    return "".join(chunks(report))


def chunks(report: Report):
    """The text of ``render`` in pieces of at most one record each (``jsontext.chunks``)."""
    yield from jsontext.chunks(to_data(report, lazy=True), records=("results", "findings"))
    yield "\n"
