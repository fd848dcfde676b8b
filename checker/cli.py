"""Command-line wiring: load -> engine -> reporter -> exit code. No logic lives here."""

from __future__ import annotations

import sys

from checker.cli_process import leave, prepare

# before any dataclass of the checker is made (checker/dataclass_code.py) and before pydantic is imported
_OWN = prepare(sys.argv)
from enum import Enum  # noqa: E402
from typing import Optional  # noqa: E402

import typer  # noqa: E402

from checker.cli_console import LazyConsole  # noqa: E402
from checker.diagnostics import MlpcError  # noqa: E402

app = typer.Typer(
    name="mlpc",
    help="Compliance checker and audit toolkit for MLPerf Inference submissions.\n\n"
         "Start with `mlpc check PATH` on a submission root (the folder holding closed/, open/, network/), "
         "one division folder or one submitter folder.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = LazyConsole(stderr=True)  # rich is imported when a message needs it (checker/cli_console.py)


class Format(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"
    markdown = "markdown"
    sarif = "sarif"
    junit = "junit"


class ProfileName(str, Enum):
    default = "default"
    official = "official"
    smoke = "smoke"


def _version(value: bool) -> None:
    if value:
        from checker.loaders.fingerprint import checker_fingerprint, version

        typer.echo(f"mlpc {version()} (fingerprint {checker_fingerprint()[:16]})")
        raise typer.Exit(0)


@app.callback()
def _main(show_version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                            help="Print the version and the checker's fingerprint, and exit.")) -> None:
    """Compliance checker and audit toolkit for MLPerf Inference submissions."""


def _fail(message: str) -> None:
    from checker.commands.check_run import fail

    raise typer.Exit(fail(message, err))


@app.command()
def check(
    ctx: typer.Context,
    path: str = typer.Argument(..., help="Submission root, division folder or submitter folder."),
    round: Optional[str] = typer.Option(None, "--round", "-r", metavar="ROUND", help="Round rules to apply (v4.1, "
                                        "v5.0, ...). Detected from the logs' seeds and LoadGen version when omitted."),
    fmt: Optional[Format] = typer.Option(None, "--format", "-f", metavar="FORMAT", help="text, json, csv, markdown, "
                                         "sarif or junit (default: from the --output file's ending: .json .csv .md "
                                         ".sarif .xml; else text)."),
    output: Optional[str] = typer.Option(None, "--output", "-o", metavar="FILE",
                                         help="Write the report to this file instead of stdout."),
    strict: bool = typer.Option(False, "--strict", help="Exit 1 on warnings too."),
    profile: ProfileName = typer.Option(ProfileName.default, "--profile",
                                        help="'official' reproduces the round's official checker where it knowingly differs from the rules "
                                        "(see mlpc explain); 'smoke' relaxes run-length limits for short test runs (not compliant)."),
    show_info: bool = typer.Option(False, "--show-info", help="Also list info-level findings in the text report."),
    details: bool = typer.Option(False, "--details", help="List every result and finding in the text report even "
                                 "for a large tree (more than 60 results get a one-screen verdict per division "
                                 "and submitter otherwise)."),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, metavar="N", help="Parallel worker processes (0 = one per CPU core "
                             "for trees with many submitters)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    git_ref: Optional[str] = typer.Option(None, "--git-ref", metavar="REF", help="Check this commit (branch, tag, sha) of the git "
                                          "repository holding PATH, without checking it out."),
    use_cache: bool = typer.Option(True, "--cache/--no-cache", help="Reuse earlier checks of unchanged files "
                                   "(keyed by their content, the checker's version and the round)."),
    cache_dir: Optional[str] = typer.Option(None, "--cache-dir", metavar="DIR", help="Cache folder (default ~/.cache/mlpc or "
                                            "$MLPC_CACHE_DIR); never inside the checked tree."),
    waivers: Optional[str] = typer.Option(None, "--waivers", metavar="FILE", help="YAML or JSON list of {code, path, reason}: "
                                          "matching findings are marked waived and no longer count."),
    watch: bool = typer.Option(False, "--watch", "-w", help="Keep running: after every change to the tree, check "
                               "again the submitters that changed and print (or rewrite --output) the new "
                               "report. The round and --waivers are read once. Ctrl-C stops; the exit code "
                               "is that of the last report."),
) -> None:
    """Check a submission tree and report every finding with where / expected / actual / hint.

    Exit codes: 0 no errors, 1 errors (or warnings with --strict), 2 usage or tool failure.
    """
    from checker.commands import check_run

    if watch:
        try:
            fmt_name = check_run.report_format(path, fmt.value if fmt else None, output)
        except MlpcError as exc:
            _fail(str(exc))
        _check_and_watch(ctx, path, round, fmt_name, output, profile, show_info, details, jobs, quiet, git_ref,
                         use_cache, cache_dir, waivers, strict)
        return
    raise typer.Exit(check_run.run(path, round=round, fmt=fmt.value if fmt else None, output=output, strict=strict,
                                   profile=profile.value, show_info=show_info, details=details, jobs=jobs,
                                   quiet=quiet, git_ref=git_ref, use_cache=use_cache, cache_dir=cache_dir,
                                   waivers=waivers))


def _check_and_watch(ctx, path, round, fmt, output, profile, show_info, details, jobs, quiet, git_ref, use_cache,
                     cache_dir, waivers, strict) -> None:
    """``mlpc check --watch``: check, then check again what changes (checker/commands/watch.py)."""
    from checker.cache import open_cache
    from checker.commands.report_output import ReportOutput, read_waivers
    from checker.loaders.source import open_source
    from checker.commands.watch import check_and_watch, watch_usage
    from checker.loaders.detect import rules_for

    try:
        watch_usage(path, git_ref, output)
        source = open_source(path, git_ref)
        if source.cleanup is not None:
            ctx.call_on_close(source.cleanup)
        cache = open_cache(use_cache, cache_dir, persist_memo=not source.from_git)
        rules, reason = rules_for(source.path, round)
        parsed = read_waivers(waivers) if waivers else None
    except MlpcError as exc:
        _fail(str(exc))
    show = ReportOutput(fmt, rules, output, show_info=show_info, details=details or None, waivers=parsed,
                        console=err)
    try:
        check_and_watch(source.path, rules, reason, profile.value, jobs or None, cache, show, quiet, err)
    except MlpcError as exc:
        _fail(str(exc))
    if show.last is None:  # interrupted before the first report
        err.print("interrupted before the first check finished; no report")
        raise typer.Exit(2)
    raise typer.Exit(0 if show.last.ok(strict) else 1)


@app.command("checks")
def list_checks(round: Optional[str] = typer.Option(None, "--round", "-r", help="Show severities of this round only."),
                markdown: bool = typer.Option(False, "--markdown", help="Print the Markdown table used in README.md.")) -> None:
    """List every check: code, name, category, scope and severity per round."""
    from checker.loaders.rules import available_rounds, load_rules
    from checker.registry import ALL_CHECKS, TOOL_CODES

    try:
        rounds = [round] if round else available_rounds()
        all_rules = {r: load_rules(r) for r in rounds}
    except MlpcError as exc:
        _fail(str(exc))
    if markdown:
        from checker.reporters.checks_table import render

        typer.echo(render(ALL_CHECKS, all_rules))
        return
    from checker.commands.terminal import output_width
    from checker.reporters.checks_table import terminal_table

    from rich.console import Console

    width = output_width(200)
    Console(width=width).print(terminal_table(ALL_CHECKS, TOOL_CODES, all_rules, width))


@app.command()
def explain(code: str = typer.Argument(..., help="A check code such as PF005.")) -> None:
    """Print the documentation of one check."""
    from checker.registry import TOOL_CODES, by_code

    code = code.upper()
    found = by_code().get(code)
    if found is None:
        if code in TOOL_CODES:
            name, summary = TOOL_CODES[code]
            typer.echo(f"{code} {name}\n\n{summary}")
            return
        _fail(f"unknown check code '{code}'; see `mlpc checks`")
    typer.echo(f"{found.code} {found.name} ({found.category}, scope: {found.scope})\n")
    typer.echo(found.doc)


def _mount() -> None:
    """Sub-command groups: each lives in checker/commands/<name>.py as a small typer app."""
    from checker.cli_help import plain_help

    from checker.commands import audit_run, audit_select, bandwidth, calc, diff, report, schema

    app.command("report")(report.report)
    app.command("diff")(diff.diff)

    from checker.commands import infer, truncate

    app.command("truncate")(truncate.truncate)
    app.command("infer")(infer.infer)
    from checker.commands import system_ids

    calc.app.command("bandwidth")(bandwidth.bandwidth)
    calc.app.command("nameplate-power")(system_ids.nameplate_power)
    calc.app.command("private-id")(system_ids.private_id)
    app.add_typer(calc.app, name="calc", help="Recompute what the rules define: early stopping, rounding, "
                  "inferred results, Appendix B bandwidth, nameplate power, private IDs.")
    from checker.commands import ci

    app.add_typer(ci.app, name="ci")
    app.add_typer(schema.app, name="schema", help="Export or validate the system-description JSON Schema.")
    audit = typer.Typer(help="Compliance tests against a live SUT, random audit selection and plausibility.",
                        no_args_is_help=True)
    audit.registered_commands.extend(audit_run.app.registered_commands)
    audit.registered_commands.extend(audit_select.app.registered_commands)
    app.add_typer(audit, name="audit")
    plain_help(app)


if _OWN:
    from checker.cli_help import plain_help

    plain_help(app)
else:
    _mount()


def main() -> None:
    """The console entry (``mlpc``, ``python -m checker.cli_main``): the app, then :func:`leave` with its
    exit status."""
    try:
        app()
        status: object = 0
    except SystemExit as done:
        status = done.code
    leave(status)
