"""``mlpc check`` (without ``--watch``): check a tree, write the report, give the exit status.

Called by the typer command (``checker.cli.check``) and, for the command lines ``checker.check_argv``
reads, by ``checker.cli_main`` without typer. Exit status: 0 no errors, 1 errors (or warnings with
``strict``), 2 usage or tool failure.
"""

from __future__ import annotations

import os

from checker.cli_console import LazyConsole
from checker.diagnostics import MlpcError

#: the command line's message stream (rich is imported when a message needs it)
err = LazyConsole(stderr=True)


def fail(message: str, console: LazyConsole = err) -> int:
    """Print ``message`` as the command line's error; the exit status of a usage or tool failure."""
    from rich.markup import escape

    console.print(f"[bold red]error:[/] {escape(message)}")
    return 2


def report_format(path: str, fmt: str | None, output: str | None) -> str:
    """The report format for ``--format`` and ``--output``; MlpcError when ``path`` is not a folder or the
    two disagree."""
    from checker.commands.report_output import format_for

    if not os.path.isdir(path):
        from checker.loaders.fs import not_a_folder

        raise MlpcError(not_a_folder(path))
    return format_for(fmt, output)


def run(path: str, round: str | None = None, fmt: str | None = None, output: str | None = None,  # noqa: A002
        strict: bool = False, profile: str = "default", show_info: bool = False, details: bool = False,
        jobs: int = 0, quiet: bool = False, git_ref: str | None = None, use_cache: bool = True,
        cache_dir: str | None = None, waivers: str | None = None) -> int:
    """Check the tree at ``path`` as ``mlpc check`` does with these options; the exit status."""
    try:
        fmt = report_format(path, fmt, output)
    except MlpcError as exc:
        return fail(str(exc))
    from checker import api
    from checker.commands.progress import with_progress
    from checker.commands.report_output import ReportOutput

    try:
        cache = None
        if use_cache:  # (--no-cache: the cache module and its hashing libraries are not imported)
            from checker.cache import open_cache

            cache = open_cache(use_cache, cache_dir, persist_memo=git_ref is None)
        report = with_progress(lambda progress: api.check(
            path, round=round, profile=profile, waivers=waivers, git_ref=git_ref, jobs=jobs or None,
            cache=cache if cache is not None else False, progress=progress, spool=True), quiet, err)
        if cache is not None and not quiet and err.is_terminal:
            from checker.commands.diff import cache_line

            err.print(f"[dim]{cache_line(cache)}[/]")
        from checker.audit.run_folder import render_rules

        ReportOutput(fmt, lambda: render_rules(report.round), output, show_info=show_info, details=details or None,
                     console=err)(report)
    except MlpcError as exc:
        return fail(str(exc))
    return 0 if report.ok(strict) else 1
