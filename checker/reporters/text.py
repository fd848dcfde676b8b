"""The rich terminal report: summary counts, results table, findings grouped by result."""

from __future__ import annotations

from collections import defaultdict

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from checker.report import Report, scope_note
from checker.words import count

STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
NARROW = 120  # below this width the results table puts a result's place in one column
DETAIL_LIMIT = 60  # larger reports (a whole round) print the one-screen verdict unless --details


def _value(summary) -> str:
    if summary.value is None:
        return "-"
    text = f"{summary.value:.6g} {summary.unit or ''}".strip()
    if summary.inferred:
        text += " (inferred)"
    if summary.power_value is not None:
        text += f" | {summary.power_value:.6g} {summary.power_unit or ''}"
    return text


def _head(report: Report) -> list:
    parts = []
    if not report.compliant_profile:
        parts.append(Text(f"PROFILE '{report.profile}': results checked this way are NOT compliant "
                          "MLPerf results (run-length limits relaxed)", style="bold magenta"))
    counts = report.counts()
    head = Table.grid(padding=(0, 2))
    head.add_row("round", Text(f"{report.round}  ({report.round_reason})"))
    head.add_row("root", Text(report.root))
    head.add_row("results", f"{counts['results']}: [green]{counts['valid']} valid[/], [red]{counts['invalid']} invalid[/]")
    head.add_row("findings", f"[red]{count(counts['errors'], 'error')}[/], [yellow]{count(counts['warnings'], 'warning')}[/], "
                 f"[cyan]{counts['infos']} info[/]")
    head.add_row("time", f"{report.elapsed_s:.2f} s")
    if report.fingerprint:
        head.add_row("checker", f"mlpc {report.tool_version}, fingerprint {report.fingerprint[:16]}")
    parts.append(Panel(head, title="mlpc check", expand=False))
    return parts


def _results_table(report: Report, width: int) -> Table:
    """One row per result; below NARROW columns the result's place is one path (division/submitter/
    system/model/scenario), so a terminal of 80 columns still shows whole words."""
    table = Table(title="Results", show_lines=False, header_style="bold")
    narrow = width < NARROW
    names = ("verdict", "result", "value", "E", "W") if narrow else \
        ("verdict", "division", "submitter", "system", "model", "scenario", "result", "E", "W")
    # endpoint results (v6.1) say where their files were found; a report without them keeps its columns
    layouts = any(r.layout for r in report.results)
    for col in names + (("files",) if layouts else ()):
        table.add_column(col, overflow="fold", no_wrap=col in ("verdict", "E", "W"))
    for r in report.results:
        where = (f"{r.division}/{r.submitter}/{r.system}/{r.model}/{r.scenario}",) if narrow else \
            (r.division, r.submitter, r.system, r.model, r.scenario)
        table.add_row("[green]valid[/]" if r.valid else "[red]INVALID[/]", *(Text(str(c)) for c in (*where, _value(r))),
                      str(r.errors), str(r.warnings), *((Text(r.layout or "LoadGen logs"),) if layouts else ()))
    return table


def build(report: Report, show_info: bool = False, max_findings: int = 400, width: int = 160):
    parts = _head(report)
    parts.append(_results_table(report, width))
    grouped = defaultdict(list)
    for f in report.findings:
        if f.severity.value == "info" and not show_info:
            continue
        grouped[f.result_id or "."].append(f)
    shown = 0
    for scope in sorted(grouped):
        if shown >= max_findings:
            parts.append(Text(f"... {sum(len(v) for v in grouped.values()) - shown} more findings: use --format json",
                              style="dim"))
            break
        lines = Table.grid(padding=(0, 1))
        for f in grouped[scope]:
            style = STYLE.get(f.severity.value, "")
            label = f"{f.severity.value.upper():7} {f.code}" + (" (waived)" if f.waived else "")
            if scope_note(f):
                label += f" [{scope_note(f)}]"
            detail = f.message
            extra = []
            if f.expected is not None:
                extra.append(f"expected: {f.expected}")
            if f.actual is not None:
                extra.append(f"actual: {f.actual}")
            if f.hint:
                extra.append(f"hint: {f.hint}")
            if extra:
                detail += "\n   " + " | ".join(extra)
            lines.add_row(Text(label, style=style), Text(detail))
            shown += 1
        parts.append(Panel(lines, title=Text(scope or "(submission root)"), title_align="left", expand=True))
    return Group(*parts)


def render(report: Report, width: int = 160, show_info: bool = False, details: bool | None = None) -> str:
    """The text report. A report of more than DETAIL_LIMIT results (a whole round) gets the one-screen
    verdict per division and submitter instead of every result and finding, unless ``details``."""
    console = Console(width=width, record=True, force_terminal=False, color_system=None)
    compact = not details and (details is not None or len(report.results) > DETAIL_LIMIT)
    with console.capture() as capture:
        console.print(Group(*_head(report)) if compact else build(report, show_info=show_info, width=width))
    if not compact:
        return capture.get()
    from checker.registry import ALL_CHECKS, TOOL_CODES
    from checker.reporters import verdict

    names = {c.code: c.name for c in ALL_CHECKS} | {code: name for code, (name, _) in TOOL_CODES.items()}
    return (capture.get() + "\n" + verdict.render(report, names) + "\n"
            f"Every result and finding: add --details, use --format json|csv|markdown|sarif|junit, or "
            f"`mlpc report {report.root} --out DIR` (a review pack per submitter and an HTML page).\n")
