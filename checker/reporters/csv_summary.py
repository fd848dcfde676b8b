"""`summary.csv` with the official checker's columns, field semantics and units (official-checker.md 5.2).

Rows: one per result, plus a second row for a power result (Result = the power metric, Units = the
power unit). The columns are the round's `summary_columns` (v4.1: 27; v5.0 and later add
`weight_data_types`), and each field is written the way the official writer writes it: the float
via `str()`, Accuracy as the first metric's value string (v4.1) or `METRIC: value  METRIC: value`
(v5.0 and later), notes = `hw_notes. sw_notes`, has_power as `True`/`False`, and the same columns
always wrapped in double quotes.

Deliberate fixes of the official file's known defects (official-checker.md 5.2 and 6.2.10):

- proper CSV escaping: an embedded `"` is doubled and any field holding a comma, quote or line break
  is quoted (the official writer breaks the row, or aborts on a non-string value);
- a missing system field is written empty (the official writer writes `None` or aborts);
- invalid results are listed too, with their `status` (the official file lists valid results only);
- `errors` is the number of error findings of the row's result (the official column is a running
  count for the model's earlier scenarios, always 0 on the published rounds);
- `compliance` is 0 for a closed or network result whose compliance tests failed (officially 1
  unless `--skip_compliance`);
- extra columns after the official ones: `status` (valid / invalid), `warnings`, `waived`,
  `compliance_status` (passed / failed / n/a), `compliance_tests` (`TEST01:passed TEST04:failed`),
  `codes` (the distinct codes of the result's error findings).

`official=True` writes the official layout exactly: official columns only, valid results only.
On valid results the two layouts agree field for field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from checker.diagnostics import Severity
from checker.report import Report, ResultSummary, counts_as, findings_in_scope

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.rules import SummaryConventions

# Columns the official v4.1 / v5.0 writers always wrap in double quotes.
ALWAYS_QUOTED = frozenset({"SystemType", "SystemName", "host_processor_model_name", "accelerator_model_name",
                           "accelerators_per_node", "framework", "operating_system", "notes",
                           "weight_data_types"})
EXTRA_COLUMNS = ("status", "warnings", "waived", "compliance_status", "compliance_tests", "codes")


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _accuracy(summary: ResultSummary, all_metrics: bool) -> str:
    if not summary.accuracy:
        return ""
    if summary.endpoint:  # v6.1 endpoint results: the first score, bare (rounds-v6.md 7.5)
        return _text(summary.accuracy[0][1])
    if not all_metrics:  # v4.1 writer: the first target metric's value string
        return summary.accuracy[0][1]
    # v5.0+ writer: json.dumps of {metric: value} with quotes and braces removed, ',' -> ' '
    return "  ".join(f"{metric}: {value}" for metric, value in summary.accuracy).strip()


def _notes(fields: dict) -> str:
    notes = _text(fields.get("hw_notes"))
    sw = fields.get("sw_notes")
    if sw:
        notes = (notes + ". " if notes else "") + _text(sw)
    return notes


def _truthy(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1")
    return bool(value)


def _scope_findings(report: Report) -> dict[str, list]:
    """Findings per result id: each finding goes to every result its scope contains."""
    return findings_in_scope([r.id for r in report.results], report.findings)


def _total_accelerators(fields: dict) -> str:
    """number_of_nodes x accelerators_per_node (the v6.0 column), empty when either is not an integer."""
    try:
        return str(int(str(fields.get("number_of_nodes")).strip()) * int(str(fields.get("accelerators_per_node")).strip()))
    except ValueError:
        return ""


def _inferred(r: ResultSummary, conventions: SummaryConventions) -> bool:
    if conventions.inferred == "log_scenario":
        return r.scenario_dir != (r.log_scenario or "")
    return r.inferred


def result_rows(report: Report, columns: Sequence[str], official: bool = False,
                conventions: SummaryConventions | None = None,
                extras: Mapping[str, Mapping[str, object]] | None = None) -> list[dict[str, str]]:
    """The summary rows as dicts (official columns, plus the extra columns unless ``official``).

    ``conventions``: how the round's official writer fills some columns (rules' summary_conventions;
    default: the v4.1-v5.1 writer). ``extras``: per result id, values of columns the report does not
    hold (``PrivateID``, ``design_power_watts``), computed by the caller."""
    if conventions is None:
        from checker.models.rules import SummaryConventions

        conventions = SummaryConventions()
    extras = extras or {}
    all_metrics = "weight_data_types" in columns  # the v5.0 writer added both at once
    by_result = _scope_findings(report)
    rows: list[dict[str, str]] = []
    for r in report.results:
        if official and not r.valid:
            continue
        fields = dict(r.system_fields)
        power = r.power_value is not None and r.power_value > 0
        status = _text(fields.get("status"))
        more = extras.get(r.id, {})
        design_power = more.get("design_power_watts")
        row = {
            "Organization": r.submitter,
            "Availability": status if conventions.availability == "raw" else status.lower(),
            "Division": r.division,
            "SystemType": _text(fields.get("system_type")),
            "SystemName": _text(fields.get("system_name")),
            "Platform": r.system,
            "Model": r.model,
            "MlperfModel": r.mlperf_model,
            "Scenario": r.scenario_dir if conventions.scenario == "folder" else r.scenario,
            "Result": _text(float(r.value)) if r.value is not None else "",
            "Accuracy": _accuracy(r, all_metrics),
            "Location": r.id + ("/performance/run_1" if conventions.location == "performance_run" else ""),
            "notes": _notes(fields),
            "compliance": (r.division if conventions.compliance == "division"
                           else "0" if r.compliance == "failed" else "1"),
            "errors": str(r.errors),
            "version": report.round,
            "inferred": "1" if _inferred(r, conventions) else "0",
            "has_power": "True" if power else "False",
            "Units": r.unit or "",
            "weight_data_types": r.weight_data_types or "",
            "total_accelerators": _total_accelerators(fields),
            "design_power_watts": (_text(design_power) if design_power is not None and power
                                   else conventions.missing_design_power),
            "PrivateID": _text(more.get("PrivateID")),
        }
        for name in ("number_of_nodes", "host_processor_model_name", "host_processors_per_node",
                     "host_processor_core_count", "accelerator_model_name", "accelerators_per_node",
                     "framework", "operating_system"):
            row.setdefault(name, _text(fields.get(name)))
        if not official:
            mine = by_result.get(r.id, [])
            row.update({
                "status": "valid" if r.valid else "invalid",
                "warnings": str(r.warnings),
                "waived": str(sum(1 for f in mine if f.waived)),
                "compliance_status": r.compliance,
                "compliance_tests": " ".join(f"{t}:{s}" for t, s in r.compliance_tests),
                "codes": " ".join(sorted({f.code if counts_as(f) else f"{f.code}@{f.scope}" for f in mine
                                          if f.severity == Severity.ERROR and not f.waived})),
            })
        power_only = all_metrics and power and _truthy(fields.get("system_power_only"))
        if not power_only:
            rows.append(row)
        if power:
            rows.append({**row, "Result": _text(float(r.power_value)), "Units": r.power_unit or ""})
    return rows


def _field(column: str, value: str, quote_all: bool = False) -> str:
    if quote_all or column in ALWAYS_QUOTED or any(c in value for c in ',"\r\n'):
        return '"' + value.replace('"', '""') + '"'
    return value


def header(columns: Sequence[str], official: bool = False) -> list[str]:
    return list(columns) + ([] if official else [c for c in EXTRA_COLUMNS if c not in columns])


def render(report: Report, columns: Sequence[str], official: bool = False,
           conventions: SummaryConventions | None = None,
           extras: Mapping[str, Mapping[str, object]] | None = None) -> str:
    """``columns``: the round's `summary_columns` (rules/<round>.yaml); ``conventions`` and ``extras``
    as in :func:`result_rows`."""
    head = header(columns, official)
    lines = [",".join(_field("", c) for c in head)]
    quote_all = bool(conventions and conventions.quote_all)
    for row in result_rows(report, columns, official, conventions, extras):
        lines.append(",".join(_field(c, row.get(c, ""), quote_all) for c in head))
    return "\n".join(lines) + "\n"
