"""What a GitHub Actions job shows of a report: the job summary (Markdown) and annotations.

* :func:`summary`: the verdict, the counts, one row per submitter and the first errors and warnings,
  for ``$GITHUB_STEP_SUMMARY``;
* :func:`annotations`: one workflow command per error or warning finding (``::error file=...,line=...,
  title=...::message``) that GitHub attaches to the file in the pull request. Paths are made relative to
  the repository (``prefix``: where the submission root lies in it). A finding without a line number
  points at line 1 of its file. Text from the tree is escaped, so a file name cannot inject a command.

Waived and info findings are not annotated (the summary counts the waived ones). Pure: report in, text out.
"""

from __future__ import annotations

from collections import Counter

from checker.diagnostics import Finding, Severity
from checker.registry import TOOL_CODES, by_code
from checker.report import Report, scope_note
from checker.reporters.markdown import cell, checker_text, code

ANNOTATED = (Severity.ERROR, Severity.WARNING)
FINDINGS_IN_SUMMARY = 50


def failed(report: Report, fail_on: str) -> bool:
    """``fail_on`` "error": an error or an invalid result fails; "warning": a warning fails too."""
    return not report.ok(strict=fail_on == "warning")


def repo_path(prefix: str, path: str) -> str:
    """A finding's path (relative to the submission root) relative to the repository."""
    path = "" if path in ("", ".") else path
    return "/".join(p for p in (prefix.strip("/"), path) if p) or "."


def escape_data(text: str) -> str:
    """Text after the ``::`` of a workflow command: one line."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command property value (``file=``, ``title=``)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def check_name(code_: str) -> str:
    """The kebab-case name of a finding code."""
    found = by_code().get(code_)
    return found.name if found else TOOL_CODES.get(code_, ("",))[0]


def active_findings(report: Report) -> list[Finding]:
    """The errors, then the warnings, that count (not waived), in report order."""
    return sorted((f for f in report.findings if f.severity in ANNOTATED and not f.waived),
                  key=lambda f: -f.severity.rank)


def annotation(f: Finding, prefix: str = "") -> str:
    """The workflow command of one finding."""
    title = f"{f.code} {check_name(f.code)}".strip() + (f" [{scope_note(f)}]" if scope_note(f) else "")
    body = f.message + "".join(f"\n{label}: {value}" for label, value in (
        ("expected", f.expected), ("actual", f.actual), ("how to fix", f.hint)) if value)
    return (f"::{f.severity.value} file={escape_property(repo_path(prefix, f.location.path))},line={f.location.line or 1},"
            f"title={escape_property(title)}::{escape_data(body)}")


def annotations(report: Report, prefix: str = "", limit: int = 200) -> list[str]:
    """Workflow commands for the first ``limit`` errors and warnings (errors first), then one notice
    saying how many more there are."""
    active = active_findings(report)
    out = [annotation(f, prefix) for f in active[:limit]]
    if len(active) > limit:
        out.append(f"::notice title=mlpc::{len(active) - limit} more findings are not annotated; "
                   f"see the job summary or the SARIF file")
    return out


def summary(report: Report, fail_on: str = "error", scope: str = "the whole tree", prefix: str = "",
            limit: int = FINDINGS_IN_SUMMARY) -> str:
    """The job summary: verdict, counts, a row per submitter, the first ``limit`` errors and warnings."""
    verdict = "FAILED" if failed(report, fail_on) else "passed"
    counts = report.counts()
    waived = sum(1 for f in report.findings if f.waived)
    lines = [f"## mlpc: {verdict}", "",
             f"Scope: {cell(scope)} of {code(repo_path(prefix, ''))}; round {report.round} "
             f"({cell(report.round_reason)}), profile `{report.profile}`, failing on {fail_on}s."
             f"{checker_text(report)}", "",
             "| results | valid | invalid | errors | warnings | info | waived |", "|---|---|---|---|---|---|---|",
             f"| {counts['results']} | {counts['valid']} | {counts['invalid']} | {counts['errors']} "
             f"| {counts['warnings']} | {counts['infos']} | {waived} |", ""]
    if report.profile != "official":
        lines += [f"**Profile `{report.profile}`: run-length limits are relaxed; these results are not "
                  f"compliant.**", ""]
    rows: dict[tuple[str, str], list[int]] = {}
    codes: dict[tuple[str, str], Counter] = {}
    for r in report.results:
        row = rows.setdefault((r.division, r.submitter), [0, 0, 0])
        row[0] += 1
        row[1 if r.valid else 2] += 1
    for f in active_findings(report):
        parts = (f.result_id or "").split("/")
        if len(parts) >= 2:
            codes.setdefault((parts[0], parts[1]), Counter())[f.code] += 1
    if rows:
        lines += ["| division | submitter | results | valid | invalid | finding codes |", "|---|---|---|---|---|---|"]
        for (division, submitter), (total, ok, bad) in sorted(rows.items()):
            found = codes.get((division, submitter), Counter())
            text = ", ".join(f"{c} x{n}" for c, n in sorted(found.items(), key=lambda i: (-i[1], i[0])))
            lines.append(f"| {cell(division)} | {cell(submitter)} | {total} | {ok} | "
                         f"{'**' + str(bad) + '**' if bad else 0} | {cell(text)} |")
        lines.append("")
    else:
        lines += ["No results were checked.", ""]
    active = active_findings(report)
    if active:
        lines += ["| severity | code | where | message |", "|---|---|---|---|"]
        for f in active[:limit]:
            scope = f" ({scope_note(f)})" if scope_note(f) else ""
            lines.append(f"| {f.severity.value} | {f.code}{cell(scope)} | {code(repo_path(prefix, str(f.location)))} "
                         f"| {cell(f.message)} |")
        if len(active) > limit:
            lines.append(f"\n... and {len(active) - limit} more errors and warnings (SARIF file, "
                         f"`mlpc check --format markdown`).")
    else:
        lines.append("No errors or warnings.")
    return "\n".join(lines).rstrip() + "\n"
