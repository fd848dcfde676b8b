"""``mlpc diff``: what changed between two commits of a submission repository, or between two rounds.

    mlpc diff REPO REF_A REF_B      results added, removed and changed, verdicts before and after
    mlpc diff ROUND_A ROUND_B       results paired by submitter/system/model/scenario, value ratios

Both sides are checked with the incremental cache (``--no-cache`` to turn it off), so the second
commit re-checks only the results whose files changed. Also home of ``cache_line``, the cache's
one-line account that ``mlpc check`` prints on a terminal. Wiring only: the comparison itself is ``checker.diffing``.
"""

from __future__ import annotations

import json
import os
import sys
from enum import Enum
from typing import TYPE_CHECKING, Optional

import typer

from checker.cli_console import LazyConsole
from checker.commands.report import ProfileName
from checker.diagnostics import MlpcError

if TYPE_CHECKING:
    from rich.text import Text

DIFF_VERSION = "1"
err = LazyConsole(stderr=True)  # rich is imported when diff prints: every CLI start imports this module


class DiffFormat(str, Enum):
    text = "text"
    json = "json"


def cache_line(cache) -> str:
    stats = cache.stats
    if not cache.usable:
        return "cache: not used (see TL004)"
    total = stats.results_reused + stats.results_checked
    return (f"cache: {stats.results_reused} of {total} results reused, {stats.results_checked} checked "
            f"({stats.units_reused} of {stats.units_reused + stats.units_checked} submitters unchanged)")


def _check(path: str, round_name: str | None, cache, jobs: int, profile: str = "default"):
    from checker.pipeline import check_tree
    from checker.loaders.detect import rules_for

    rules, reason = rules_for(path, round_name)
    return check_tree(path, rules, round_reason=reason, profile=profile, jobs=jobs or None, cache=cache), rules


def _plain(*cells) -> list[Text]:
    """Table cells shown as they are: names and paths from a tree are never markup."""
    from rich.text import Text

    return [Text(str(cell)) for cell in cells]


def _fail(message: str) -> None:
    from rich.markup import escape

    err.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(2)


def diff(
    first: str = typer.Argument(..., metavar="REPO|ROUND_A", help="A git repository, or the first tree."),
    second: str = typer.Argument(..., metavar="REF_A|ROUND_B", help="The earlier ref, or the second tree."),
    third: Optional[str] = typer.Argument(None, metavar="REF_B", help="The later ref (git mode only)."),
    round: Optional[str] = typer.Option(None, "--round", "-r", help="Round rules for both sides "
                                        "(detected per side when omitted)."),
    fmt: DiffFormat = typer.Option(DiffFormat.text, "--format", "-f", help="Output format."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
    use_cache: bool = typer.Option(True, "--cache/--no-cache", help="Reuse earlier checks of unchanged files."),
    cache_dir: Optional[str] = typer.Option(None, "--cache-dir", help="Cache folder (default ~/.cache/mlpc)."),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, help="Parallel worker processes (0 = automatic)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No cache summary on stderr (shown on a terminal)."),
    profile: ProfileName = typer.Option(ProfileName.default, "--profile",
                                        help="Check both sides as `mlpc check --profile` does: 'official' "
                                             "reproduces the round's official checker, 'smoke' relaxes run-length "
                                             "limits for short test runs."),
) -> None:
    """Compare two commits (results added, removed, changed) or two trees (value ratios).

    `mlpc diff REPO REF_A REF_B` lists the results added, removed and changed between two commits,
    with their verdicts before and after; `mlpc diff ROUND_A ROUND_B` pairs the results of two trees
    by submitter, system, model and scenario and gives the ratio of their values (B / A).
    Exit codes: 0 done, 2 usage error (bad path or ref)."""
    try:
        if third is not None:
            data, table = _git_diff(first, second, third, round, use_cache, cache_dir, jobs, quiet, profile.value)
        else:
            data, table = _tree_diff(first, second, round, use_cache, cache_dir, jobs, quiet, profile.value)
    except MlpcError as exc:
        _fail(str(exc))
    if fmt == DiffFormat.json:
        rendered = json.dumps(data, indent=2, default=str) + "\n"
    else:
        from rich.console import Console

        from checker.commands.terminal import output_width

        console = Console(width=output_width(200, to_terminal=False if output else None), record=True,
                          force_terminal=False, color_system=None)
        with console.capture() as capture:
            console.print(table)
        rendered = capture.get()
    if output:
        try:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(rendered)
        except OSError as exc:
            _fail(f"cannot write {output}: {exc.strerror or exc}")
        err.print(f"diff written to {output}", markup=False)
    else:
        sys.stdout.write(rendered)


def _verdict(summary) -> str:
    if summary is None:
        return "-"
    return "valid" if summary.valid else "INVALID"


def _value(summary) -> str:
    if summary is None or summary.value is None:
        return "-"
    return f"{summary.value:.6g} {summary.unit or ''}".strip()


def _brief(summary) -> dict | None:
    return None if summary is None else summary.to_dict()


def _git_diff(repo: str, ref_a: str, ref_b: str, round_name, use_cache, cache_dir, jobs, quiet, profile):
    from checker.cache import open_cache
    from checker.diffing import diff_commits
    from checker.loaders.git_tree import changed_paths, materialise

    commit_a, commit_b, paths = changed_paths(repo, ref_a, ref_b)
    cache = open_cache(use_cache, cache_dir, persist_memo=False)
    sides = []
    for ref in (ref_a, ref_b):
        with materialise(repo, ref) as checkout:
            report, rules = _check(checkout.path, round_name, cache, jobs, profile)
            prefix = os.path.relpath(report.root, checkout.top).replace(os.sep, "/")
            report.root = checkout.label
        if cache is not None and not quiet and err.is_terminal:
            from rich.markup import escape

            err.print(f"[dim]{escape(ref)}: {cache_line(cache)}[/]")
            cache.take()
        sides.append((report, rules))
    (before, rules_a), (after, rules_b) = sides
    inner = [p[len(prefix) + 1:] if prefix != "." else p for p in paths
             if prefix == "." or p.startswith(prefix + "/")]
    changes = diff_commits(before, after, inner, rules_b.power.measure_file_ancestor_depth)
    data = {
        "diff_version": DIFF_VERSION, "mode": "git", "repo": repo,
        "a": {"ref": ref_a, "commit": commit_a, "round": before.round},
        "b": {"ref": ref_b, "commit": commit_b, "round": after.round},
        "changed_paths": len(inner),
        "counts": {k: sum(1 for c in changes if c.kind == k) for k in ("added", "removed", "changed")},
        "results": [{"change": c.kind, "id": c.id, "paths": list(c.paths), "outcome_changed": c.outcome_changed,
                     "before": _brief(c.before), "after": _brief(c.after)} for c in changes],
    }
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(f"{repo}: {ref_a} ({commit_a[:12]}) -> {ref_b} ({commit_b[:12]}), "
                             f"{len(inner)} changed paths"), header_style="bold")
    for col in ("change", "result", "verdict before", "verdict after", "value before", "value after", "why"):
        table.add_column(col, overflow="fold")
    for c in changes:
        table.add_row(*_plain(c.kind, c.id, _verdict(c.before), _verdict(c.after), _value(c.before),
                              _value(c.after), c.reason))
    if not changes:
        table.caption = "no result added, removed or changed"
    return data, table


def _tree_diff(path_a: str, path_b: str, round_name, use_cache, cache_dir, jobs, quiet, profile):
    from checker.cache import open_cache
    from checker.diffing import compare_rounds

    for path in (path_a, path_b):
        if not os.path.isdir(path):
            from checker.loaders.fs import not_a_folder

            raise MlpcError(f"{not_a_folder(path)} (to compare commits give REPO REF_A REF_B)")
    cache = open_cache(use_cache, cache_dir)
    reports = []
    for path in (path_a, path_b):
        report, _ = _check(path, round_name, cache, jobs, profile)
        if cache is not None and not quiet and err.is_terminal:
            from rich.markup import escape

            err.print(f"[dim]{escape(path)}: {cache_line(cache)}[/]")
            cache.take()
        reports.append(report)
    pairs = compare_rounds(*reports)
    rows = []
    for p in pairs:
        division, submitter, system, model, scenario = p.key
        rows.append({
            "division": division, "submitter": submitter, "system": system, "model": model, "scenario": scenario,
            "in": "both" if p.a and p.b else ("a" if p.a else "b"),
            "id_a": p.a.id if p.a else None, "id_b": p.b.id if p.b else None,
            "valid_a": p.a.valid if p.a else None, "valid_b": p.b.valid if p.b else None,
            "value_a": p.a.value if p.a else None, "value_b": p.b.value if p.b else None,
            "unit": (p.b or p.a).unit, "ratio": p.ratio,
        })
    data = {
        "diff_version": DIFF_VERSION, "mode": "trees",
        "a": {"path": path_a, "round": reports[0].round}, "b": {"path": path_b, "round": reports[1].round},
        "counts": {"only_a": sum(1 for r in rows if r["in"] == "a"), "only_b": sum(1 for r in rows if r["in"] == "b"),
                   "both": sum(1 for r in rows if r["in"] == "both")},
        "results": rows,
    }
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(f"A = {path_a} ({reports[0].round})   B = {path_b} ({reports[1].round})"),
                  header_style="bold")
    for col in ("system", "model", "scenario", "submitter", "division", "in", "A", "B", "B / A"):
        table.add_column(col, overflow="fold")
    for p, row in zip(pairs, rows):
        ratio = f"{p.ratio:.3f}" if p.ratio is not None else "-"
        table.add_row(*_plain(row["system"], row["model"], row["scenario"], row["submitter"], row["division"],
                              {"both": "A and B", "a": "A only", "b": "B only"}[row["in"]],
                              f"{_value(p.a)} ({_verdict(p.a)})" if p.a else "-",
                              f"{_value(p.b)} ({_verdict(p.b)})" if p.b else "-", ratio))
    c = data["counts"]
    table.caption = f"{c['both']} in both, {c['only_a']} in A only, {c['only_b']} in B only"
    return data, table
