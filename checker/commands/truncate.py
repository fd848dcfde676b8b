"""``mlpc truncate SRC --out DEST [--dry-run]``: write the published form of a submission tree.

Every ``results/*/*/*/accuracy`` and ``compliance/*/*/*/TEST01/accuracy`` folder gets what the official
truncate_accuracy_log.py writes (official-checker.md F): ``hash=<sha256 of the full original log>``
appended to ``accuracy.txt`` and the log cut to its first 4096 characters, ``\\n\\n...\\n\\n`` and its last
4096 characters (logs under 4096 bytes stay whole). Folders whose accuracy.txt already has a hash and
whose log is under 10240 bytes are copied unchanged, as the official tool skips them.

Wiring only: plan and copy live in :mod:`checker.loaders.tree_writer`. SRC is never written; DEST must
not exist; the new tree is staged next to DEST and renamed at the end. Exit codes: 0 written (or dry
run), 1 a log could not be processed (nothing written), 2 usage error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

import typer

if TYPE_CHECKING:  # rich is imported when a command prints: every CLI start imports this module
    from rich.console import Console

from checker.cli_console import new_console


def _err() -> Console:
    return new_console(stderr=True, highlight=False, soft_wrap=True)


def _fail(message: str, code: int = 2) -> NoReturn:
    _err().print(f"error: {message}", markup=False)
    raise typer.Exit(code)


def _size(n: int | None) -> str:
    if n is None:
        return "-"
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n} bytes" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n}"  # pragma: no cover


def truncate(
    src: str = typer.Argument(..., help="Submission tree to read (root, division or submitter folder)."),
    out: str = typer.Option(..., "--out", "-o", help="New folder to write (must not exist)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List what would be done; write nothing."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress line per log."),
) -> None:
    """Copy SRC to DEST with every accuracy log truncated and its sha256 appended to accuracy.txt."""
    from checker.loaders.tree_writer import (
        TreeWriteError, apply_truncation, check_destination, open_staging, plan_truncation,
    )

    err = _err()
    try:
        source, dest = check_destination(src, out)
        items = plan_truncation(source)
    except TreeWriteError as exc:
        _fail(str(exc))
    work = [i for i in items if i.action in ("truncate", "hash")]
    problems = [i for i in items if i.action == "error"]
    for item in items:
        if item.action in ("keep", "skip", "error") or dry_run:
            verb = {"truncate": "would truncate", "hash": "would hash", "keep": "unchanged", "skip": "skipped",
                    "error": "ERROR"}[item.action]
            err.print(f"{verb}: {item.log_rel} ({_size(item.log_size)}){': ' + item.detail if item.detail else ''}",
                      markup=False)
    if problems:
        _fail(f"{len(problems)} accuracy folder(s) cannot be processed; nothing written", 1)
    if dry_run:
        err.print(f"dry run: {len(work)} log(s) to process, {len(items) - len(work)} unchanged or skipped; "
                  f"would write {dest}; nothing written", markup=False)
        raise typer.Exit(0)

    def progress(number, total, outcome):
        if quiet:
            return
        item = outcome.item
        if outcome.error:
            err.print(f"[{number}/{total}] {item.log_rel}: ERROR {outcome.error}", markup=False)
        else:
            what = "kept whole" if item.action == "hash" else f"-> {_size(outcome.new_size)}"
            err.print(f"[{number}/{total}] {item.log_rel}: {_size(item.log_size)} {what}, hash={outcome.digest}",
                      markup=False)

    try:
        with open_staging(source, dest) as staging:
            outcomes = apply_truncation(staging, items, progress)
            failed = [o for o in outcomes if o.error]
            if failed:
                _fail(f"{len(failed)} log(s) could not be truncated; nothing written", 1)
    except TreeWriteError as exc:
        _fail(str(exc))
    truncated = sum(1 for o in outcomes if o.item.action == "truncate")
    before = sum(o.item.log_size or 0 for o in outcomes)
    after = sum(o.new_size or 0 for o in outcomes)
    err.print(f"wrote {dest}: {truncated} log(s) truncated, {len(outcomes) - truncated} small log(s) hashed whole "
              f"({_size(before)} -> {_size(after)}), {len(items) - len(work)} accuracy folder(s) unchanged or "
              f"skipped, {staging.files} files in all" + (f"; {len(staging.skipped)} special file(s) not copied: "
                                                           f"{', '.join(staging.skipped[:5])}" if staging.skipped else ""),
              markup=False)
