"""``mlpc check --watch``: check a tree, then check it again after every change until Ctrl-C.

Changes come from the operating system's file notifications (inotify on Linux, FSEvents on macOS,
ReadDirectoryChangesW on Windows) through ``watchfiles``; the watch starts before the first check, so
an edit made while it runs is not missed. Where notifications cannot be used (the inotify watch limit
is too low for the tree, some network file systems) the tree is polled instead, and the user is told.
Each burst of changes (events less than ``STEP_MS`` apart) becomes one re-check of the submitters it
touched (``checker.live.LiveRound``).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator

from checker.diagnostics import MlpcError
from checker.live import LiveRound
from checker.report import Report

STEP_MS = 50  # a burst ends after this long without a new event ...
DEBOUNCE_MS = 1600  # ... or after this long in all
TIMEOUT_MS = 1000  # how often the wait looks at the stop event
POLL_MS = 1000  # the polling interval where notifications cannot be used


class Watcher:
    """File-change notifications for everything below ``path``, from the moment it is created."""

    def __init__(self, path: str, notice: Callable[[str], None], force_polling: bool = False):
        try:
            from watchfiles._rust_notify import RustNotify
        except ImportError as exc:
            raise MlpcError(f"--watch needs the watchfiles package ({exc}); install mlpc with its dependencies") \
                from None
        self.path = os.path.abspath(path)
        if not os.path.isdir(self.path):
            raise MlpcError(f"{path}: not found, or not a folder")
        try:
            self._notify = RustNotify([self.path], False, force_polling, POLL_MS, True, True)
        except Exception as exc:  # the inotify limit, an unsupported file system: poll instead
            notice(f"file notifications cannot be used here ({exc}); polling every {POLL_MS / 1000:g} s instead")
            try:
                self._notify = RustNotify([self.path], False, True, POLL_MS, True, True)
            except Exception as again:
                raise MlpcError(f"{path}: cannot watch this folder ({again})") from None

    def batches(self, stop=None) -> Iterator[set[str]]:
        """The paths changed in each burst of changes; ends when ``stop`` (an Event) is set. Ctrl-C
        raises KeyboardInterrupt."""
        try:
            while True:
                raw = self._notify.watch(DEBOUNCE_MS, STEP_MS, TIMEOUT_MS, stop)
                if raw == "signal":
                    raise KeyboardInterrupt
                if raw == "stop":
                    return
                if raw == "timeout":
                    continue
                yield {path for _, path in raw}
        finally:
            self._notify.close()


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def describe(live: LiveRound, report: Report, seconds: float, first: bool) -> str:
    """One status line: what the pass checked, how long it took, the verdict."""
    invalid = sum(1 for r in report.results if not r.valid)
    verdict = f"{_plural(len(report.results), 'result')}, {invalid} invalid"
    stats = live.cache.stats if live.cache is not None and live.cache.usable else None
    if first:
        what = f"checked {_plural(len(live.checked), 'submitter')}"
    elif not live.checked:
        what = "re-read the root and division level"
    else:
        what = "re-checked " + ", ".join("/".join(u) for u in live.checked[:3]) + \
            (f" and {len(live.checked) - 3} more" if len(live.checked) > 3 else "")
        if stats is not None:
            what += f" ({_plural(stats.results_checked, 'result')} checked again)"
    return f"[{time.strftime('%H:%M:%S')}] {what} in {seconds:.2f} s: {verdict}"


def verdict_changes(before: Report | None, after: Report, limit: int = 10) -> tuple[int, list[str]]:
    """How many results changed verdict, appeared or disappeared between two reports, and one line for
    each of the first ``limit`` (with the error codes of a result that became invalid)."""
    if before is None:
        return 0, []
    old = {r.id: r.valid for r in before.results}
    new = {r.id: r.valid for r in after.results}
    word = {True: "valid", False: "INVALID"}
    changed: list[tuple[str, str]] = []
    for rid in sorted(old.keys() | new.keys()):
        if rid not in new:
            changed.append((rid, "gone"))
        elif rid not in old:
            changed.append((rid, f"new, {word[new[rid]]}"))
        elif old[rid] != new[rid]:
            changed.append((rid, f"{word[old[rid]]} -> {word[new[rid]]}"))
    errors: dict[str, set[str]] = {}  # error codes by finding scope
    for f in after.findings:
        if f.severity.value == "error" and not f.waived and f.result_id is not None:
            errors.setdefault(f.result_id, set()).add(f.code)
    lines = []
    for rid, what in changed[:limit]:
        if what.endswith("INVALID"):
            parts = rid.split("/")
            scopes = [""] + ["/".join(parts[:end]) for end in range(1, len(parts) + 1)]
            codes = sorted(set().union(*(errors.get(scope, ()) for scope in scopes)))
            if codes:
                what += f" ({', '.join(codes)})"
        lines.append(f"  {rid}: {what}")
    if len(changed) > limit:
        lines.append(f"  ... and {len(changed) - limit} more")
    return len(changed), lines


def watch(live: LiveRound, watcher: Watcher, show: Callable[[Report, str], None],
          notice: Callable[[str], None], progress_run=None, stop=None,
          prepare: Callable[[Report], Report] | None = None) -> Report | None:
    """Check everything, then re-check after each burst of changes until Ctrl-C (or ``stop``).
    ``show(report, status)`` is called after every pass with the report made by ``prepare`` (the
    waivers, say), which the verdict changes are computed on; a pass that fails (the tree vanished,
    say) is reported through ``notice`` and the next change starts over with a full check. Returns
    the last report."""
    started = time.perf_counter()
    run = progress_run or (lambda work: work(None))
    prep = prepare or (lambda report: report)
    report = None
    broken = False
    previous = signal.signal(signal.SIGTERM, _interrupt) if threading.current_thread() is threading.main_thread() \
        else None
    try:
        report = prep(run(live.check_all))
        show(report, describe(live, report, time.perf_counter() - started, True))
        live.settle()
        for paths in watcher.batches(stop):
            if not os.path.isdir(live.path):
                notice(f"{live.path} is gone; stopped watching")
                break
            started = time.perf_counter()
            full, broken = broken, False
            try:
                fresh = run(live.check_all) if full else live.recheck(paths)
                live.settle()
            except MlpcError as exc:
                notice(f"cannot check the tree ({exc}); waiting for the next change")
                broken = True
                continue
            except Exception as exc:  # a bug must not end the watch: say so, start over on the next change
                notice(f"checking failed ({type(exc).__name__}: {exc}; please report this bug); "
                       "the next change starts a full check")
                broken = True
                continue
            if fresh is None:  # only paths that cannot change the report (.git, say)
                continue
            fresh = prep(fresh)
            count, changes = verdict_changes(report, fresh)
            report = fresh
            status = describe(live, report, time.perf_counter() - started, full)
            if count:
                status += f"\n{_plural(count, 'verdict')} changed:\n" + "\n".join(changes)
            try:
                show(report, status)
            except MlpcError as exc:  # the report could not be written: say so, keep watching
                notice(str(exc))
    except KeyboardInterrupt:
        pass
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return report


def _interrupt(signum, frame):
    raise KeyboardInterrupt  # a stop asked by `kill` or a service manager ends the watch like Ctrl-C


def watch_usage(path: str, git_ref: str | None, output: str | None) -> None:
    """Raise MlpcError for options that cannot go with --watch."""
    if git_ref is not None:
        raise MlpcError("--watch checks the files on disk; it cannot be combined with --git-ref")
    if output:
        tree, where = os.path.realpath(path), os.path.realpath(output)
        if where == tree or where.startswith(tree + os.sep):
            raise MlpcError(f"--output {output} lies inside the watched tree: every report written would change "
                            "the tree and start another check; write it elsewhere")


def check_and_watch(path: str, rules, reason: str, profile: str, jobs: int | None, cache,
                    emit, quiet: bool, console) -> Report | None:
    """The --watch loop of ``mlpc check``: ``emit`` (a ``commands.report.ReportOutput``) waives and
    renders each report; notices and the progress bar of full checks go to ``console`` (stderr)."""
    from checker.commands.progress import with_progress

    def notice(message: str) -> None:
        console.print(message, style="yellow", markup=False)

    watcher = Watcher(path, notice)
    live = LiveRound(path, rules, round_reason=reason, profile=profile, jobs=jobs, cache=cache)
    if not quiet:
        console.print(f"watching {path} for changes (Ctrl-C to stop)", markup=False)
    def show(report: Report, status: str) -> None:
        first, _, rest = status.partition("\n")
        emit.write(report, first + " · watching (Ctrl-C to stop)" + ("\n" + rest if rest else ""))

    return watch(live, watcher, show, notice, lambda work: with_progress(work, quiet, console), prepare=emit.prepare)
