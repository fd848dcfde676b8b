"""The versioned JSON report (documented by schemas/report.schema.json)."""

from __future__ import annotations

import json

from checker.report import REPORT_VERSION, Report


def to_data(report: Report) -> dict:
    return {
        "report_version": REPORT_VERSION,
        "tool": "mlpc",
        "round": report.round,
        "round_reason": report.round_reason,
        "profile": report.profile,
        "compliant_profile": report.profile == "official",
        "counts": report.counts(),
        "results": [r.to_dict() for r in report.results],
        "findings": [f.to_dict() for f in report.findings],
    }


def render(report: Report) -> str:
    return json.dumps(to_data(report), indent=2, sort_keys=False, default=str) + "\n"
