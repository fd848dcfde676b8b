"""`summary_results.json`: the round's published results table, built the way MLCommons builds it from
the accepted summary.csv rows (rounds-v6.md 8.2; the round's ``published_table`` in rules/).

Two shapes, both data in the round file:

* ``final_report`` (v6.0): one record per result with the final-report tool's names (Submitter,
  Category, Suite, System, UsedModel, Model, Nodes, Processor, a#, Total Accelerators, Software, Notes),
  an ``ID`` per system (``6.0-0001``, numbered in the order Category, Availability, Submitter, Unique
  ID), ``Details`` and ``Code`` links into the results repository, ``Unique ID (e.g. for Audit)``
  (``Suite/Category/Submitter/Platform``, plus ``/UsedModel`` in open), ``ColorKey``
  (Availability + Submitter), ``p#``, capitalised scenarios, and the value as
  ``Performance_Result``/``Performance_Units`` (a power row becomes ``Power_Result``/``Power_Units`` of
  the same record). Records are ordered by ID, UsedModel, Scenario.
* ``summary_rows`` (v6.1): the summary.csv columns, one object per row keyed by its index, with the
  published model names (``VLM``, ``text_to_video``, ``agentic edge``, ...).

In both, fields are typed as the published file types them: the round's integer columns as numbers,
``has_power`` as a boolean, the result as a number rounded to ``decimals`` places, and the texts the
table publishes as missing (``N/A``, an empty field, ...) as ``""`` or ``null``.

Only valid results are listed (the published table is built from the accepted rows). Pure: rows in,
text out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from checker.models.rules import PublishedTable, SummaryConventions
from checker.report import Report
from checker.reporters import csv_summary


def _typed(name: str, text: str, table: PublishedTable):
    """One summary.csv field as the published table writes it."""
    missing = "" if table.missing == "empty" else None
    if text in table.empty_values:
        return missing
    if name in ("Result", "design_power_watts"):
        try:
            return round(float(text), table.decimals)
        except ValueError:
            return text
    if name == "has_power":
        return text == "True"
    if name in table.integer_columns:
        try:
            value = int(text)
        except ValueError:
            return text
        return missing if (value == 0 and name in table.zero_as_empty) else value
    return text


def _published_rows(report: Report, columns: Sequence[str], conventions: SummaryConventions,
                    table: PublishedTable, extras: Mapping[str, Mapping[str, object]] | None) -> list[dict]:
    """The accepted summary.csv rows, renamed and typed."""
    out = []
    for row in csv_summary.result_rows(report, columns, official=True, conventions=conventions, extras=extras):
        if row["MlperfModel"] in table.model_names:
            row["MlperfModel"] = table.model_names[row["MlperfModel"]]
        row["Scenario"] = table.scenario_names.get(row["Scenario"], row["Scenario"])
        row["Location"] = table.location_prefix + row["Location"]
        typed = {}
        for name in columns:
            published = table.renames.get(name, name)
            typed[published] = _typed(published, row.get(name, ""), table)
        out.append(typed)
    return out


def _final_report(rows: list[dict], table: PublishedTable, power_units: frozenset[str]) -> list[dict]:
    """The final-report tool's records (see the module docstring)."""
    for row in rows:
        row["p#"] = row.get("host_processors_per_node")
        row["Details"] = f"{table.repository}/{row['Category']}/{row['Submitter']}/results/{row['Platform']}"
        row["Code"] = f"{table.repository}/{row['Category']}/{row['Submitter']}/{table.code_folder}"
        parts = [row["Suite"], row["Category"], row["Submitter"], row["Platform"]]
        if row["Category"] == "open":
            parts.append(row["UsedModel"])
        row["Unique ID (e.g. for Audit)"] = "/".join(str(p) for p in parts)
        row["ColorKey"] = f"{row['Availability']}{row['Submitter']}"
    order = sorted(rows, key=lambda r: tuple(str(r[k]) for k in ("Category", "Availability", "Submitter",
                                                                  "Unique ID (e.g. for Audit)")))
    ids: dict[str, str] = {}
    for row in order:
        ids.setdefault(row["Unique ID (e.g. for Audit)"], f"{table.id_prefix}-{len(ids) + 1:04}")
    records: dict[tuple, dict] = {}
    for row in sorted(rows, key=lambda r: (ids[r["Unique ID (e.g. for Audit)"]], str(r["UsedModel"]),
                                           str(r["Scenario"]), str(r["Units"]))):
        key = (ids[row["Unique ID (e.g. for Audit)"]], row["UsedModel"], row["Scenario"])
        value, unit = row.pop("Result"), row.pop("Units")
        record = records.get(key)
        if record is None:
            record = records[key] = {"ID": key[0], **row}
        if unit in power_units:
            record.update({"Power_Result": value, "Power_Units": unit})
        elif "Performance_Result" not in record:
            record.update({"Performance_Result": value, "Performance_Units": unit})
    return list(records.values())


def rows(report: Report, columns: Sequence[str], conventions: SummaryConventions, table: PublishedTable,
         power_units: Sequence[str] = (), extras: Mapping[str, Mapping[str, object]] | None = None):
    """The published table's records (``final_report``: a list; ``summary_rows``: a dict keyed by the
    row index). ``power_units``: the round's power units (a row in one of them is a power row)."""
    units = frozenset(power_units)
    published = _published_rows(report, columns, conventions, table, extras)
    if table.shape == "final_report":
        return _final_report(published, table, units)
    return {str(i): row for i, row in enumerate(published)}


def render(report: Report, rules, extras: Mapping[str, Mapping[str, object]] | None = None) -> str | None:
    """summary_results.json for ``report`` under the round's rules; None when the round declares no
    published table."""
    table = rules.published_table
    if table is None:
        return None
    data = rows(report, rules.summary_columns, rules.summary_conventions, table,
                tuple(rules.power_units.values()), extras)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
