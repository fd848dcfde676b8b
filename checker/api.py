"""The Python API: check a submission tree from a script or a notebook and get the typed report.

    from checker import check

    report = check("closed/Acme", round="v5.1")
    report.ok()                                   # False when an error or an invalid result remains
    [r.id for r in report.results if not r.valid]  # result summaries (the summary.csv rows)
    [f.code for f in report.findings]              # every finding, with where / expected / actual / hint

Nothing is printed and nothing in the tree is written. Usage problems (a path that is not a folder,
a folder with nothing to check in it, an unknown or undetectable round, a bad waiver file, an unknown
git ref) raise ``MlpcError``; bad
input inside the tree is never an exception, it is a finding. ``mlpc check`` is built on
:func:`check`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, Union

from checker.diagnostics import MlpcError
from checker.report import Report

PathLike = Union[str, "os.PathLike[str]"]
Waivers = Union[PathLike, Sequence[dict], None]
CacheOption = Union[bool, PathLike, Any]  # True (default folder), False, a folder, or a checker.cache.ResultCache
Progress = Callable[[int, int, tuple[str, str]], None]

__all__ = ["check", "MlpcError", "Report"]


def check(path: PathLike, *, round: str | None = None, profile: Literal["default", "official", "smoke"] = "default",
          waivers: Waivers = None, only: Iterable[PathLike] | None = None, git_ref: str | None = None,
          jobs: int | None = 1, cache: CacheOption = True, progress: Progress | None = None,
          spool: bool = False) -> Report:
    """Check the submission tree at ``path`` (a submission root, a division or a submitter folder).

    - ``round``: the rules to apply (``"v5.1"``); detected from the logs when None.
    - ``profile``: ``"default"`` grades by the rules; ``"official"`` reproduces the round's official
      checker where it knowingly differs from the rules (v6.0); ``"smoke"`` relaxes run-length limits for
      short test runs (not compliant).
    - ``waivers``: a waiver file (YAML or JSON) or a list of ``{"code", "path", "reason"}`` dicts;
      matching findings are marked waived and no longer count.
    - ``only``: check only the ``<division>/<submitter>`` folders holding one of these paths (files
      or folders, absolute or relative to the current folder, existing or deleted; a division or the
      root folder selects every submitter below it); the root and
      division levels are always checked, and checks that compare results with each other see only
      the checked submitters. An empty list checks no submitter.
    - ``git_ref``: check this commit of the git repository holding ``path`` without checking it out.
    - ``jobs``: worker processes (None: one per core when there are many submitters).
    - ``cache``: reuse earlier checks of unchanged files (True: the default cache folder; a folder
      name; False: off).
    - ``progress``: called with ``(done, total, (division, submitter))`` after each submitter.
    - ``spool``: keep the findings in an anonymous temporary file while the tree is checked; the report's
      ``findings`` are then read back from it, in order, each time they are iterated (a whole round's
      findings are never all in memory; ``mlpc check`` uses it).

    A folder written by ``mlpc audit run`` (it holds ``verdict.json`` and ``compliance/``) is judged
    as that compliance-test run: one result, the run's findings, the same verdict as the run.

    Returns the :class:`~checker.report.Report`: ``results`` (one ``ResultSummary`` per result),
    ``findings`` (``Finding``), ``counts()``, ``ok()``. Raises ``MlpcError`` for usage problems.
    """
    from checker.profiles import PROFILES

    path = os.fspath(path)
    if not os.path.isdir(path):
        from checker.loaders.fs import not_a_folder

        raise MlpcError(not_a_folder(path))
    from checker.audit.run_folder import check_run_folder, read_record

    record = read_record(path) if git_ref is None else None
    if record is not None:  # a folder written by `mlpc audit run`: the run's own verdict
        return check_run_folder(path, record)
    if profile not in PROFILES:
        raise MlpcError(f"unknown profile '{profile}' (choose from {', '.join(PROFILES)})")
    if only is not None and git_ref is not None:
        raise MlpcError("'only' names files on disk; it cannot be combined with a git ref")
    parsed = _waivers(waivers)
    store = _cache(cache, persist_memo=git_ref is None)
    report = None
    if store is not None and only is None and git_ref is None:
        report = _warm(path, round, profile, store, progress, spool)
    if report is None:
        report = _check(path, round, profile, only, git_ref, jobs, store, progress, spool)
    if parsed is not None:
        from checker.commands.report_output import waive
        from checker.loaders.rules import load_rules

        report = waive(report, parsed[0], parsed[1], load_rules(report.round))
    return report


def _warm(path: str, round: str | None, profile: str, store, progress, spool) -> Report | None:
    """The report of an unchanged tree from the cache alone (``checker.warm``), or None."""
    from checker.warm import warm_report

    started = time.perf_counter()
    findings_spool = None
    if spool:
        from checker.spool import FindingSpool

        findings_spool = FindingSpool()
    report = warm_report(path, round, profile, store, progress=progress, spool=findings_spool, started=started)
    if report is None and findings_spool is not None:
        findings_spool.close()
    return report


def _check(path: str, round: str | None, profile: str, only, git_ref: str | None, jobs: int | None, store,
           progress, spool: bool) -> Report:
    """The usual way: detect the round, load, check (through the cache when ``store`` is given), assemble."""
    from checker.loaders.detect import rules_for
    from checker.loaders.source import open_source
    from checker.pipeline import assemble, check_units, open_round

    given = path
    source = open_source(path, git_ref)
    path = source.path
    try:
        rules, reason = rules_for(path, round)
        started = time.perf_counter()
        start = open_round(path, rules, profile, cache=store)
        if not start.units:
            from checker.loaders.tree import load_top, nothing_to_check

            raise MlpcError(nothing_to_check(path, load_top(path, rules)[0], rules))
        if only is not None:
            from checker.live import touched_units

            touched, _, _ = touched_units(start.root, start.units, rules.root_ignored_dirs,
                                          [os.fspath(p) for p in only], folders=True)
            start = dataclasses.replace(start, units=[u for u in start.units if u in touched])
        findings_spool = None
        if spool:
            from checker.spool import FindingSpool

            findings_spool = FindingSpool()
        outputs = check_units(start, start.units, rules, jobs=jobs, progress=progress, cache=store,
                              spool=findings_spool)
        report = assemble(start, outputs, rules, reason, cache=store, started=started, spool=findings_spool)
        if store is not None and only is None and git_ref is None:
            from checker.warm import remember

            remember(store, given, round, profile, start, outputs, rules, reason, report.checks_run)
    finally:
        if source.cleanup is not None:
            source.cleanup()
    if source.label is not None:
        report.root = source.label
    return report


def _waivers(waivers: Waivers):
    """(parsed waivers, the name findings give them), or None."""
    if waivers is None:
        return None
    from checker.commands.report_output import read_waivers

    if isinstance(waivers, (str, os.PathLike)):
        return read_waivers(os.fspath(waivers))
    from checker.registry import ALL_CHECKS, TOOL_CODES
    from checker.waivers import WaiverError, parse_waivers

    if isinstance(waivers, (bytes, dict)) or not isinstance(waivers, Sequence):
        raise WaiverError(f"waivers: expected a file name or a list of {{code, path, reason}}, "
                          f"found {type(waivers).__name__}")
    try:
        text = json.dumps(list(waivers))
    except (TypeError, ValueError) as exc:
        raise WaiverError(f"waivers: not plain data: {exc}") from None
    known = [c.code for c in ALL_CHECKS] + list(TOOL_CODES)
    return parse_waivers(text, "waivers", known_codes=known), "waivers"


def _cache(option: CacheOption, persist_memo: bool):
    if option is False:  # (the cache module and its hashing libraries are not imported)
        return None
    from checker.cache import ResultCache, open_cache

    if isinstance(option, ResultCache):
        return option
    if option is True or option is False:
        return open_cache(option, None, persist_memo=persist_memo)
    if isinstance(option, (str, os.PathLike)):
        return open_cache(True, os.fspath(option), persist_memo=persist_memo)
    raise MlpcError(f"cache: expected True, False, a folder or a ResultCache, found {type(option).__name__}")
