"""The cache around the check stage of one submitter (``checker.cache`` is the store).

An unchanged submitter is taken whole from the store (found by the stat fields of its files, or by the
digests of their contents); in a changed one only the results whose files changed are checked again, and
the submitter, system and model checks and the summaries are redone from the freshly loaded tree. The
output is the same as without the cache (``checker.pipeline.check_unit`` falls back to the plain way
when the cache itself fails).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from checker.diagnostics import Finding, Location, Severity
from checker.report import ResultSummary

if TYPE_CHECKING:
    from checker.models.rules import RoundRules
    from checker.profiles import Profile


@dataclasses.dataclass(frozen=True)
class UnitPointer:
    """A unit a worker process found unchanged, left for the parent to load: its findings are then
    unpickled once, in the process that needs them, instead of in the worker and again in the parent."""

    key: str


def check_unit_cached(root: str, division: str, submitter: str, rules: RoundRules, profile: Profile,
                       cache, defer: bool = False, quick=...):
    """``check_unit`` through the cache; produces the same findings, in the same order, as ``run_checks``."""
    from checker import cache as store
    from checker.engine import _model_stage, _run_context, plan_for, run_checks
    from checker.loaders.tree import load_submitter
    from checker.registry import ALL_CHECKS
    from checker.summary import findings_by_result, summarise

    sub_rel = f"{division}/{submitter}"
    # first look: the stat fields of the unit's files, pointing to the unit key of the same state
    # (not for throw-away trees such as a --git-ref checkout, whose inodes never come back)
    if quick is ...:
        quick = unit_stat_key(cache, root, sub_rel) if cache.persist_memo else None
    pointer = cache.load("quick", quick) if quick else None
    if isinstance(pointer, str):
        if defer and cache.has("units", pointer):
            return UnitPointer(pointer)
        hit = unit_hit(cache, pointer)
        if hit is not None:
            return hit
    memo = cache.memo(root, sub_rel)
    found = store.scan(root, sub_rel, memo)
    memo.save(cache.warn)
    unit_key = store.unit_key(cache.salt, division, submitter, found)
    if unit_key:
        hit = unit_hit(cache, unit_key)
        if hit is not None:
            if quick:
                cache.store("quick", quick, unit_key)
            return hit
    tree = load_submitter(root, division, submitter, rules)
    findings = run_checks(tree, rules, profile, ALL_CHECKS, scopes=("submitter", "system"))
    plan = plan_for(rules, profile, ALL_CHECKS)
    depth = rules.power.measure_file_ancestor_depth
    for result in tree.results:
        key = store.result_key(cache.salt, found, result, depth)
        hit = cache.load("results", key) if key else None
        if isinstance(hit, list) and all(isinstance(f, Finding) for f in hit):
            findings += hit
            cache.stats.results_reused += 1
            continue
        own: list[Finding] = []
        _run_context(plan, "result", result, rules, own)
        if key:
            cache.store("results", key, own)
        findings += own
        cache.stats.results_checked += 1
        cache.stats.checked.append(result.rel)
    _model_stage(plan, tree, rules, findings)  # exactly as the last stage of run_checks
    mine = findings_by_result(tree.results, findings)
    summaries = [summarise(r, rules, mine[r.rel]) for r in tree.results]
    digest = store.summaries_digest(summaries)
    if unit_key:
        cache.store("units", unit_key, (findings, summaries, digest))
        if quick:
            cache.store("quick", quick, unit_key)
    cache.stats.units_checked += 1
    return findings, summaries, digest


def unit_hit(cache, unit_key: str) -> tuple[list[Finding], list[ResultSummary], str] | None:
    hit = cache.load("units", unit_key)
    if (isinstance(hit, tuple) and len(hit) == 3 and all(isinstance(f, Finding) for f in hit[0])
            and all(isinstance(r, ResultSummary) for r in hit[1]) and isinstance(hit[2], str)):
        cache.stats.units_reused += 1
        cache.stats.results_reused += len(hit[1])
        return list(hit[0]), list(hit[1]), hit[2]
    return None


def quick_hit(root: str, division: str, submitter: str, cache) -> tuple[tuple | None, str | None]:
    """An unchanged unit found by the stat fields of its files alone (the cache's "quick" pointer), and
    that stat key (None when the unit has none): what the parent process looks up before it starts any
    worker, so a warm re-check forks nothing and unpickles each entry once."""
    if not cache.persist_memo:
        return None, None
    quick = unit_stat_key(cache, root, f"{division}/{submitter}")
    pointer = cache.load("quick", quick) if quick else None
    return (unit_hit(cache, pointer) if isinstance(pointer, str) else None), quick


def unit_stat_key(cache, root: str, sub_rel: str) -> str | None:
    """The stat key of the unit ``sub_rel`` (``checker.cache.stat_key``), remembered in ``cache.quick_keys``;
    the stat fields it stands for are kept as its "stats" entry, which the warm path of a whole tree
    (``checker.warm``) compares with the disk."""
    from checker import cache as store

    known = cache.known_keys.get(sub_rel)
    if known is not None and known[0] == cache.salt:  # the warm path just read its stat fields again
        quick = known[1]
    else:
        manifest = store.stat_manifest(root, sub_rel)
        quick = store.stat_key(cache.salt, root, sub_rel, manifest)
        if quick and not cache.has("stats", quick):
            cache.store("stats", quick, store.outline(manifest))
    cache.quick_keys[sub_rel] = quick
    return quick


def cache_findings(warnings: list[tuple[str, str]], rules: RoundRules, profile: Profile) -> list[Finding]:
    from checker.engine import _severity

    severity = _severity("TL004", rules, profile)
    if severity == Severity.OFF:
        return []
    return [Finding(message=f"{path}: {message}", location=Location(path), expected="a usable cache entry",
                    actual=message.split(";")[0], code="TL004", severity=severity,
                    hint="the verdicts are unaffected; delete the cache folder, or use --no-cache or --cache-dir")
            for path, message in sorted(set(warnings))]
