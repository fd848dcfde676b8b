"""Command-line wiring: load -> engine -> reporter -> exit code. No logic lives here."""

from __future__ import annotations

import gc
import os
import sys

from checker import dataclass_code

dataclass_code.install(os.path.dirname(os.path.abspath(dataclass_code.__file__)))  # before any dataclass is made
# a check makes many short-lived containers per result (contexts, tuples, findings) and few reference cycles:
# the cycle collector's default (a young-generation pass every 700 allocations) spent about 7% of a round's CPU
# walking objects that were still alive. The worker processes inherit the setting.
gc.set_threshold(50_000, 10, 10)

from enum import Enum  # noqa: E402
from typing import NoReturn, Optional  # noqa: E402

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
    from rich.markup import escape

    err.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(2)


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
    from checker.commands.progress import with_progress
    from checker.commands.report import ReportOutput, format_for

    if not os.path.isdir(path):
        from checker.loaders.fs import not_a_folder

        _fail(not_a_folder(path))
    try:
        fmt = format_for(fmt.value if fmt else None, output)
    except MlpcError as exc:
        _fail(str(exc))
    if watch:
        _check_and_watch(ctx, path, round, fmt, output, profile, show_info, details, jobs, quiet, git_ref, use_cache,
                         cache_dir, waivers, strict)
        return
    from checker import api

    try:
        cache = None
        if use_cache:  # (--no-cache: the cache module and its hashing libraries are not imported)
            from checker.cache import open_cache

            cache = open_cache(use_cache, cache_dir, persist_memo=git_ref is None)
        report = with_progress(lambda progress: api.check(
            path, round=round, profile=profile.value, waivers=waivers, git_ref=git_ref, jobs=jobs or None,
            cache=cache if cache is not None else False, progress=progress, spool=True), quiet, err)
        if cache is not None and not quiet and err.is_terminal:
            from checker.commands.diff import cache_line

            err.print(f"[dim]{cache_line(cache)}[/]")
        from checker.audit.run_folder import render_rules

        ReportOutput(fmt, lambda: render_rules(report.round), output, show_info=show_info, details=details or None,
                     console=err)(report)
    except MlpcError as exc:
        _fail(str(exc))
    raise typer.Exit(0 if report.ok(strict) else 1)


def _check_and_watch(ctx, path, round, fmt, output, profile, show_info, details, jobs, quiet, git_ref, use_cache,
                     cache_dir, waivers, strict) -> None:
    """``mlpc check --watch``: check, then check again what changes (checker/commands/watch.py)."""
    from checker.cache import open_cache
    from checker.commands.report import ReportOutput, read_waivers
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


# commands defined in this module, and the names the command line runs under (console script, -m)
_OWN_COMMANDS = ("check", "checks", "explain")
_ENTRY_NAMES = ("mlpc", "cli_main.py")


def _runs_own_command(argv: list[str]) -> bool:
    """Whether this process is the mlpc command line running one of the commands defined here, or printing
    its version, which use none of the sub-command modules (``mlpc check`` then imports about 190 M
    instructions less)."""
    return (len(argv) > 1 and os.path.basename(argv[0]) in _ENTRY_NAMES
            and (argv[1] in _OWN_COMMANDS or argv[1:] == ["--version"]))


if _runs_own_command(sys.argv):
    # Settings for this process and the check's workers only, made before either is used: the commands
    # that run other programs (``mlpc audit run`` starts the SUT's process with this environment) leave the
    # environment as the user set it.
    # numpy (TEST08's entropy, the fallback power readings) works on small arrays: OpenBLAS's thread pool,
    # started when numpy is imported, only spins (about 20 ms of CPU per process on 2 cores).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # pydantic looks for plugins (entry points in every installed distribution's metadata) when it builds its
    # first validator; mlpc's models use none. Set it to "" to have pydantic look again.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
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


def leave(status: object) -> NoReturn:
    """End the process as ``sys.exit(status)`` would, without Python's teardown.

    Tearing down the interpreter (every module, and a last collection over every object still held) took
    60-75 ms after a check of a 1k-result round had written its report, about a twentieth of the run.
    What of it a command needs is done here: the threads that are not daemons are waited for, the
    ``atexit`` functions run (they save the dataclass method cache, remove temporary folders, shut logging
    down), and the standard streams are flushed; every file the commands write is closed where it is
    written. A stream that cannot be flushed (a closed pipe, as ``mlpc check ... | head`` leaves) ends
    the process with status 120, as Python does."""
    import atexit
    import threading

    if status is None:
        code = 0
    elif isinstance(status, int):
        code = status & 0xFF  # (what the system keeps of it, as after sys.exit)
    else:  # sys.exit("message"): the message, status 1
        print(status, file=sys.stderr)
        code = 1
    main_thread = threading.main_thread()
    for thread in threading.enumerate():
        if thread is not main_thread and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # noqa: BLE001 - a closed pipe or stream
            code = code or 120
    os._exit(code)
