"""The versioned JSON report (documented by schemas/report.schema.json)."""

from __future__ import annotations

from checker.report import REPORT_VERSION, Report
from checker.reporters import jsontext


def to_data(report: Report) -> dict:
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
        "results": [r.to_dict() for r in report.results],
        "findings": [f.to_dict() for f in report.findings],
    }


def render(report: Report) -> str:
    """Indented JSON whose result and finding records take one line each."""
    return jsontext.dumps(to_data(report), records=("results", "findings")) + "\n"
