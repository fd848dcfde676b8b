"""How ``mlpc check`` (and ``mlpc report``) shows a report: the format an output file's name asks for,
rendering in each format, writing a file atomically, and waivers. No typer here: ``mlpc check`` runs
without it (``checker.cli_main``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

from checker.atomic_file import replace_file
from checker.diagnostics import MlpcError, Severity

FORMATS = ("text", "json", "csv", "markdown", "sarif", "junit")
MAX_WAIVER_BYTES = 1024 * 1024


def _err() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


# file name endings -> the formats such a file can hold (the first is chosen when --format is not given)
OUTPUT_SUFFIXES = ((".sarif.json", ("sarif",)), (".sarif", ("sarif",)), (".json", ("json", "sarif")),
                   (".csv", ("csv",)), (".md", ("markdown",)), (".markdown", ("markdown",)), (".xml", ("junit",)),
                   (".txt", ("text",)), (".log", ("text",)))


def format_for(fmt: str | None, output: str | None) -> str:
    """The report format: ``fmt`` when given, else the one the ``output`` file's ending names, else
    text. Raises MlpcError when a given format contradicts the ending (``--format text -o r.json``)."""
    suffix = next((s for s in OUTPUT_SUFFIXES if output and output.lower().endswith(s[0])), None)
    if fmt is None:
        return suffix[1][0] if suffix else "text"
    if suffix and fmt not in suffix[1]:
        raise MlpcError(f"--format {fmt} does not match the output file {output} (a {suffix[0]} file holds "
                        f"{' or '.join(suffix[1])}); change the file name or the format, or leave --format out")
    return fmt

def render_format(report, fmt: str, rules, show_info: bool = False, details: bool | None = None,
                  width: int = 160) -> str:
    """Render ``report`` in one of FORMATS (``rules``: the round's rules, for the CSV columns and
    the SARIF default levels; ``details``: every result in the text format even for a whole round)."""
    fmt = getattr(fmt, "value", fmt)
    if fmt == "json":
        from checker.reporters import json_report

        return json_report.render(report)
    if fmt == "csv":
        from checker.reporters import csv_summary

        return csv_summary.render(report, rules.summary_columns, conventions=rules.summary_conventions)
    if fmt == "markdown":
        from checker.reporters import markdown

        return markdown.render(report, show_info=show_info)
    if fmt == "sarif":
        from checker.reporters import sarif

        return sarif.render(report, rules.severities)
    if fmt == "junit":
        from checker.reporters import junit

        return junit.render(report)
    from checker.reporters import text

    return text.render(report, width=width, show_info=show_info, details=details)


class ReportOutput:
    """Where ``mlpc check`` puts a report: waived (when waivers are given), rendered in ``fmt`` and
    written to ``output`` (atomically) or stdout, with an optional status line on ``console``. Under
    --watch it is called after every pass; ``last`` is the last report shown, whose verdict is the
    exit code."""

    def __init__(self, fmt: str, rules, output: str | None, show_info: bool = False, details: bool | None = None,
                 waivers=None, console: Console | None = None):
        """``rules``: the round's rules, or a function that loads them (called only when the format or the
        waivers need them: the JSON and text reports do not, and a warm re-check then loads no round file)."""
        self.fmt, self._rules, self.output = fmt, rules, output
        self.show_info, self.details, self.waivers = show_info, details, waivers
        self.console = console or _err()
        self.last = None

    @property
    def rules(self):
        if callable(self._rules):
            self._rules = self._rules()
        return self._rules

    def __call__(self, report, status: str | None = None) -> None:
        self.write(self.prepare(report), status)

    def prepare(self, report):
        """The report as it is shown: with the waivers applied."""
        if self.waivers is not None:
            report = waive(report, self.waivers[0], self.waivers[1], self.rules)
        return report

    def write(self, report, status: str | None = None) -> None:
        """Show a prepared report."""
        self.last = report  # first: a Ctrl-C while it is written still exits with this report's code
        from checker.commands.terminal import output_width

        if self.fmt == "json":  # written a record at a time: a round's report text is never held whole
            from checker.reporters import json_report

            rendered = json_report.chunks(report)
        else:
            rules = self.rules if self.fmt in ("csv", "sarif") else None  # the only formats that read them
            rendered = render_format(report, self.fmt, rules, show_info=self.show_info, details=self.details,
                                     width=output_width(160, to_terminal=False if self.output else None))
        if self.output:
            write_report(self.output, rendered)
            self.console.print(f"report written to {self.output}" + (f" · {status}" if status else ""),
                               soft_wrap=True, markup=False, highlight=False)
            return
        if status is not None and sys.stdout.isatty():
            from rich.console import Console

            Console().clear()
        sys.stdout.writelines(rendered)
        sys.stdout.flush()
        if status is not None:
            self.console.print(status, soft_wrap=True, markup=False, highlight=False)


def write_report(path: str, text: str | Iterable[str]) -> None:
    """Write a rendered report (its text, or the pieces of it) to ``path``. A regular file (or a new one)
    is replaced atomically, so a reader (an editor, a CI step, a watch's consumer) never sees half a
    report; a link, a device such as /dev/null or a fifo is written in place. Raises MlpcError when it
    cannot be written."""
    try:
        if os.path.lexists(path) and (os.path.islink(path) or not os.path.isfile(path)):
            with open(path, "w", encoding="utf-8") as handle:
                handle.writelines([text] if isinstance(text, str) else text)
            return
        replace_file(path, text)
    except OSError as exc:
        raise MlpcError(f"cannot write {path}: {exc.strerror or exc}") from None


def read_waivers(path: str):
    """Read and parse a waiver file; raises WaiverError (a usage error) on any problem."""
    from checker.registry import ALL_CHECKS, TOOL_CODES
    from checker.waivers import WaiverError, parse_waivers

    source = os.path.basename(path) or "waivers"
    try:
        if not os.path.isfile(path):
            raise WaiverError(f"{path}: waiver file not found")
        if os.path.getsize(path) > MAX_WAIVER_BYTES:
            raise WaiverError(f"{path}: waiver file larger than {MAX_WAIVER_BYTES} bytes")
        with open(path, "rb") as handle:
            raw = handle.read()
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise WaiverError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise WaiverError(f"{path}: cannot read: {exc.strerror or exc}") from None
    known = [c.code for c in ALL_CHECKS] + list(TOOL_CODES)
    return parse_waivers(text, path, known_codes=known), source


def waive(report, waivers, source: str, rules):
    """Apply parsed waivers (see checker/waivers.py); TL003's severity comes from the round file."""
    from checker.waivers import UNUSED_CODE, apply_waivers

    severity = Severity(rules.severities.get(UNUSED_CODE, "warning"))
    return apply_waivers(report, waivers, source=source, unused_severity=severity)
