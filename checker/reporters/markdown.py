"""Markdown review packs: one per submitter for the peer reviewer, plus a round overview.

A pack lists every result of the submitter with its stable ID (the result folder, relative to the
submission root), verdict, metric and unit, accuracy against the target, compliance status per
TEST, inferred and power flags; then every finding (code, severity, where, expected, actual, hint),
grouped by result or by the submitter / system / model folder it concerns; then the waived findings
with their reasons. Pure: ``render_pack(report, division, submitter) -> str``.
"""

from __future__ import annotations

from collections import defaultdict

from checker.diagnostics import Severity
from checker.report import Report, ResultSummary, scope_note


def cell(text) -> str:
    """Text safe inside a Markdown table cell."""
    if text is None:
        return ""
    out = str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", "\n")
    return out.replace("\n", "<br>").replace("<br><br>", "<br>")


def code(text) -> str:
    text = str(text).replace("\n", " ").replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def value_text(r: ResultSummary) -> str:
    if r.value is None:
        return "no value"
    return f"{repr(float(r.value))} {r.unit or ''}".strip()


def power_text(r: ResultSummary) -> str:
    if r.power_value is None:
        return "power folder, no metric" if r.has_power else ""
    return f"{repr(float(r.power_value))} {r.power_unit or ''}".strip()


def accuracy_text(r: ResultSummary) -> str:
    values = dict(r.accuracy)
    parts = []
    for metric, target, limit in r.accuracy_targets or tuple((m, None, None) for m in values):
        found = values.get(metric)
        bounds = []
        if target is not None:
            bounds.append(f">= {'%.10g' % target}")
        if limit is not None:
            bounds.append(f"<= {'%.10g' % limit}")
        if found is None:
            verdict = "missing"
        else:
            try:
                number_found = float(found)
            except ValueError:
                number_found = None
            if number_found is None:
                verdict = "unreadable"
            elif target is not None and number_found < target:
                verdict = "below target"
            elif limit is not None and number_found > limit:
                verdict = "above limit"
            else:
                verdict = "ok"
        bound_text = f" (target {', '.join(bounds)})" if bounds else ""
        parts.append(f"{metric} {found if found is not None else '-'}{bound_text}: {verdict}")
    return "; ".join(parts) if parts else "-"


def compliance_text(r: ResultSummary) -> str:
    if r.compliance == "n/a":
        return "n/a (open division)"
    if not r.compliance_tests:
        return f"{r.compliance} (no test required)"
    return ", ".join(f"{t} {s}" for t, s in r.compliance_tests)


def flags(r: ResultSummary) -> str:
    out = []
    if r.inferred:
        out.append("inferred")
    if r.has_power:
        out.append("power")
    return ", ".join(out) or "-"


def units(report: Report) -> list[tuple[str, str]]:
    """Every (division, submitter) with a result or a finding scoped at or below it."""
    found = {(r.division, r.submitter) for r in report.results}
    for f in report.findings:
        parts = (f.result_id or "").split("/")
        if len(parts) >= 2 and parts[0] and parts[1]:
            found.add((parts[0], parts[1]))
    return sorted(found)


def checker_text(report: Report) -> str:
    """" Checked by mlpc V (fingerprint F)." when the report knows its checker (checker.loaders.fingerprint)."""
    if not report.fingerprint:
        return ""
    return f" Checked by mlpc {cell(report.tool_version)} (fingerprint `{report.fingerprint[:16]}`)."


def pack_name(division: str, submitter: str) -> str:
    return f"{division}-{submitter}.md"


def _finding_table(findings, with_reason: bool = False) -> list[str]:
    if with_reason:
        lines = ["| code | severity | where | message | reason |", "|---|---|---|---|---|"]
        for f in findings:
            lines.append(f"| {f.code} | {f.severity.value} | {code(f.location)} | {cell(f.message)} | {cell(f.waived)} |")
        return lines
    lines = ["| code | severity | scope | where | message | expected | actual | hint |",
             "|---|---|---|---|---|---|---|---|"]
    for f in findings:
        lines.append(f"| {f.code} | {f.severity.value} | {cell(scope_note(f))} | {code(f.location)} | {cell(f.message)} "
                     f"| {cell(f.expected)} | {cell(f.actual)} | {cell(f.hint)} |")
    return lines


def pack_index(report: Report) -> dict[tuple[str, str], tuple[list, list]]:
    """Per (division, submitter), in ``units`` order: its results, and the findings its pack shows (its
    own, its division's and the root's), each in report order. Build it once for a report and give it
    to every ``render_pack``, instead of filtering the whole report per pack."""
    index: dict[tuple[str, str], tuple[list, list]] = {unit: ([], []) for unit in units(report)}
    by_division: dict[str, list[tuple[str, str]]] = {}
    for unit in index:
        by_division.setdefault(unit[0], []).append(unit)
    for r in report.results:
        index[(r.division, r.submitter)][0].append(r)
    for f in report.findings:
        if f.result_id is None:
            continue
        parts = f.result_id.split("/")
        if f.result_id == "":
            holders = list(index)
        elif len(parts) == 1:
            holders = by_division.get(f.result_id, [])
        else:
            holders = [(parts[0], parts[1])] if (parts[0], parts[1]) in index else []
        for unit in holders:
            index[unit][1].append(f)
    return index


def render_pack(report: Report, division: str, submitter: str, level: int = 1, show_info: bool = True,
                index: dict | None = None) -> str:
    """One submitter's review pack (``index``: the report's ``pack_index``, built here when not given)."""
    h = "#" * level
    index = pack_index(report) if index is None else index
    if (division, submitter) in index:
        results, relevant = index[(division, submitter)]
    else:  # a submitter without results or findings of its own: the root's and its division's findings
        results, relevant = [], [f for f in report.findings if f.result_id in ("", division)]
    ids = {r.id for r in results}
    shown = [f for f in relevant if show_info or f.severity != Severity.INFO or f.waived]
    active = [f for f in shown if not f.waived]
    waived = [f for f in shown if f.waived]
    valid = sum(1 for r in results if r.valid)
    lines = [f"{h} Review pack: {division} / {submitter}", ""]
    lines.append(f"Round {report.round} ({cell(report.round_reason)}), profile `{report.profile}`.{checker_text(report)} "
                 "Result IDs are the result folders, relative to the submission root.")
    if not report.compliant_profile:
        lines += ["", f"**Profile '{report.profile}': results checked this way are NOT compliant MLPerf results.**"]
    errors = sum(1 for f in active if f.severity == Severity.ERROR)
    warnings = sum(1 for f in active if f.severity == Severity.WARNING)
    lines += ["", "| results | valid | invalid | errors | warnings | waived |", "|---|---|---|---|---|---|",
              f"| {len(results)} | {valid} | {len(results) - valid} | {errors} | {warnings} | {len(waived)} |", ""]
    lines += [f"{h}# Results", ""]
    if results:
        lines += ["| ID | verdict | model (benchmark) | scenario | result | power | accuracy vs target | compliance "
                  "| flags | E | W |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in results:
            model = r.model if r.model == r.mlperf_model else f"{r.model} ({r.mlperf_model})"
            lines.append(f"| {code(r.id)} | {'valid' if r.valid else '**INVALID**'} | {cell(model)} | {cell(r.scenario)} "
                         f"| {cell(value_text(r))} | {cell(power_text(r))} | {cell(accuracy_text(r))} "
                         f"| {cell(compliance_text(r))} | {flags(r)} | {r.errors} | {r.warnings} |")
    else:
        lines.append("No results.")
    lines += ["", f"{h}# Findings", ""]
    own = defaultdict(list)
    scoped = defaultdict(list)
    for f in active:
        (own if f.result_id in ids else scoped)[f.result_id].append(f)
    if not active:
        lines.append("No findings.")
    for scope in sorted(scoped):
        label = scope or "(submission root)"
        lines += [f"{h}## {code(label)} (applies to every result below it)", ""] + _finding_table(scoped[scope]) + [""]
    for r in results:
        if r.id in own:
            lines += [f"{h}## {code(r.id)}: {'valid' if r.valid else 'INVALID'}", ""] + _finding_table(own[r.id]) + [""]
    lines += ["", f"{h}# Waived findings", ""]
    lines += _finding_table(waived, with_reason=True) if waived else ["None."]
    return "\n".join(lines).rstrip() + "\n"


def render(report: Report, show_info: bool = False) -> str:
    """The whole report: an overview table per submitter, then every submitter's pack."""
    lines = [f"# mlpc report: round {report.round}", "",
             f"Round {report.round} ({cell(report.round_reason)}), profile `{report.profile}`.{checker_text(report)}", ""]
    counts = report.counts()
    lines += ["| results | valid | invalid | errors | warnings | info |", "|---|---|---|---|---|---|",
              f"| {counts['results']} | {counts['valid']} | {counts['invalid']} | {counts['errors']} "
              f"| {counts['warnings']} | {counts['infos']} |", ""]
    lines += ["| division | submitter | results | valid | invalid | power | inferred |", "|---|---|---|---|---|---|---|"]
    index = pack_index(report)
    for (division, submitter), (rs, _) in index.items():
        ok = sum(1 for r in rs if r.valid)
        lines.append(f"| {division} | {cell(submitter)} | {len(rs)} | {ok} | {len(rs) - ok} "
                     f"| {sum(1 for r in rs if r.has_power)} | {sum(1 for r in rs if r.inferred)} |")
    loose = [f for f in report.findings if f.result_id is None and (show_info or f.severity != Severity.INFO)]
    if loose:
        lines += ["", "## Findings about the run itself", ""] + _finding_table(loose)
    parts = ["\n".join(lines)]
    for division, submitter in index:
        parts.append(render_pack(report, division, submitter, level=2, show_info=show_info, index=index))
    return "\n\n".join(parts).rstrip() + "\n"
