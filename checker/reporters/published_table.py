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
``has_power`` as a boolean, the result as the number the published table's CSV reader and JSON writer
make of the summary.csv text (17 significant digits, then ``decimals`` places), and the texts the table
publishes as missing (``N/A``, an empty field, ...) as ``""`` or ``null``.

Only valid results are listed (the published table is built from the accepted rows), unless
``all_results`` asks for every result with a value (``mlpc report --table-all-results``: what the table
would say of the results mlpc rejects). Pure: rows in, text out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from checker.report import Report
from checker.reporters import csv_summary

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.rules import PublishedTable, SummaryConventions


def _read_float(text: str) -> float | None:
    """A number as the published table's CSV reader reads it: at most 17 significant digits accumulated in
    a double (``number * 10 + digit``), then scaled by a power of ten. Not always the nearest double:
    ``1175890.2208168241`` reads as ``1175890.220816824``, the value the v6.1 table publishes."""
    body = text.strip()
    sign = -1.0 if body.startswith("-") else 1.0
    body = body[1:] if body[:1] in "+-" else body
    mantissa, _, exponent_text = body.replace("E", "e").partition("e")
    whole, _, fraction = mantissa.partition(".")
    if not (whole + fraction).isdigit() or not (whole + fraction).isascii():
        return None
    number, digits, exponent = 0.0, 0, 0
    for char in whole:
        if digits < 17:
            number, digits = number * 10.0 + (ord(char) - 48), digits + 1
        else:
            exponent += 1
    for char in fraction:
        if digits >= 17:
            break
        number, digits, exponent = number * 10.0 + (ord(char) - 48), digits + 1, exponent - 1
    try:
        exponent += int(exponent_text) if exponent_text else 0
    except ValueError:
        return None
    if exponent > 308 or exponent < -308:
        return None
    power = float(10 ** abs(exponent))  # the nearest double, as a table of 1e1 ... 1e308 holds it
    number = number * power if exponent > 0 else number / power
    return sign * number


def _written_float(value: float, decimals: int) -> float:
    """A number as the published table's JSON writer writes it with ``decimals`` places: the fraction
    scaled to an integer, rounded half to odd-or-zero, trailing zeros dropped; very large and very small
    numbers keep their shortest form."""
    if value == 0 or value != value or abs(value) > 1e16 - 1 or abs(value) < 1e-15:
        return value
    scale = float(10 ** decimals)
    magnitude = abs(value)
    whole = int(magnitude)
    scaled = (magnitude - whole) * scale
    fraction = int(scaled)
    rest = scaled - fraction
    if rest > 0.5 or (rest == 0.5 and (fraction == 0 or fraction & 1)):
        fraction += 1
        if fraction >= scale:
            fraction, whole = 0, whole + 1
    text = f"{whole}.{fraction:0{decimals}d}".rstrip("0")
    return float(("-" if value < 0 else "") + text + ("0" if text.endswith(".") else ""))


def _typed(name: str, text: str, table: PublishedTable):
    """One summary.csv field as the published table writes it."""
    missing = "" if table.missing == "empty" else None
    if text in table.empty_values:
        return missing
    if name in ("Result", "design_power_watts"):
        number = _read_float(text)
        return text if number is None else _written_float(number, table.decimals)
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
                    table: PublishedTable, extras: Mapping[str, Mapping[str, object]] | None,
                    all_results: bool = False) -> list[dict]:
    """The accepted summary.csv rows (``all_results``: every row with a value), renamed and typed."""
    out = []
    for row in csv_summary.result_rows(report, columns, official=not all_results, conventions=conventions,
                                       extras=extras):
        if not row["Result"]:
            continue
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
         power_units: Sequence[str] = (), extras: Mapping[str, Mapping[str, object]] | None = None,
         all_results: bool = False):
    """The published table's records (``final_report``: a list; ``summary_rows``: a dict keyed by the
    row index). ``power_units``: the round's power units (a row in one of them is a power row).
    ``all_results``: every result with a value, also those mlpc rejects (default: the accepted ones, as
    the published table lists them)."""
    units = frozenset(power_units)
    published = _published_rows(report, columns, conventions, table, extras, all_results)
    if table.shape == "final_report":
        return _final_report(published, table, units)
    return {str(i): row for i, row in enumerate(published)}


def render(report: Report, rules, extras: Mapping[str, Mapping[str, object]] | None = None,
           all_results: bool = False) -> str | None:
    """summary_results.json for ``report`` under the round's rules; None when the round declares no
    published table."""
    table = rules.published_table
    if table is None:
        return None
    data = rows(report, rules.summary_columns, rules.summary_conventions, table,
                tuple(rules.power_units.values()), extras, all_results)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def listed_despite_findings(report: Report) -> list[tuple[str, tuple[str, ...]]]:
    """The results ``all_results`` adds to the table although mlpc rejects them (they have a value), each
    with the codes of the errors that reject it, sorted: what a reader of such a table must be told."""
    from checker.report import counts_as, findings_in_scope

    rejected = [r.id for r in report.results if not r.valid and r.value]
    mine = findings_in_scope(rejected, report.findings)
    return [(rid, tuple(sorted({f.code for f in mine[rid] if counts_as(f) == "error"}))) for rid in rejected]


def notes(report: Report) -> str | None:
    """``summary_results_notes.md`` for a table written with ``all_results``: which rows it lists despite
    mlpc's findings, why (the codes, with ``mlpc explain``), and that their ``errors`` is mlpc's count (a
    published table lists only accepted results, with 0). None when every listed row is accepted."""
    listed = listed_despite_findings(report)
    if not listed:
        return None
    lines = ["# summary_results.json: rows listed despite mlpc's findings", "",
             f"Written with `--table-all-results`: {len(listed)} of its rows are results mlpc rejects. Their values "
             "are reproduced as a published table would show them; their `errors` is mlpc's count of their "
             "errors (a published table lists only accepted results, with 0). `mlpc explain CODE` says why each "
             "code rejects a result.", ""]
    for rid, codes in listed:
        lines.append(f"- `{rid}`: {', '.join(codes) or 'no result value'}")
    return "\n".join(lines) + "\n"
