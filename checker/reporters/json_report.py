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


#: the long lists: one record per line, written by the C encoder (``json`` falls back to its
#: pure-Python encoder whenever ``indent`` is set, which took most of a large round's rendering time)
_RECORD_LISTS = ("results", "findings")


def render(report: Report) -> str:
    """Indented JSON whose result and finding records take one line each."""
    data = to_data(report)
    record = json.JSONEncoder(default=str).encode
    parts = []
    for key, value in data.items():
        if key in _RECORD_LISTS and value:
            body = ",\n".join("    " + record(item) for item in value)
            parts.append(f"  {json.dumps(key)}: [\n{body}\n  ]")
        else:
            text = json.dumps(value, indent=2, default=str).replace("\n", "\n  ")
            parts.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"
