"""The warm path of the cache: re-checking an unchanged tree without loading the checks.

After a check through the cache (``checker.api.check``), :func:`remember` stores a "trees" entry: the
round and why it was chosen, the salt, the root and division findings, the units in order with their
stat keys and the unit entries those keys stand for, and the stat fields of every folder and file
outside the units (``cache.stat_manifest``; each unit's folders and files are named by its "stats"
entry). It is found again by the tree's path, the checker fingerprint, ``--round`` and the profile.

:func:`warm_report` answers the next check of that tree from those entries when every recorded folder
and file still has its stat fields (so no file was added, removed or changed: see ``stat_manifest``)
and every entry loads: it compares the stat fields, loads each unit's findings and summaries and the
round-scope findings, and builds the same report as ``checker.pipeline`` (through ``checker.finish``),
without detecting the round, walking the tree's contents, loading the round file or importing a
check. Anything else (a changed file, a missing or damaged entry, a cache warning) returns None and
the caller checks the usual way, which re-checks what changed.
"""

from __future__ import annotations

import hashlib
import os

from checker import cache as store
from checker.cached import unit_hit
from checker.diagnostics import Finding
from checker.finish import count_round_findings, new_report
from checker.loaders import fingerprint
from checker.report import Report, shared


def tree_key(path: str, round_option: str | None, profile: str) -> str:
    """Where a tree's entry is found: the path as given and where it leads, the checker that made the
    entry (its fingerprint, which covers the checks, the round files and the profiles), --round, the profile."""
    parts = [f"format={store.FORMAT}", f"checker={fingerprint.checker_fingerprint()}", f"path={path}",
             f"real={os.path.realpath(path)}", f"round={round_option or ''}", f"profile={profile}"]
    return hashlib.sha256("\0".join(parts).encode("utf-8", errors="surrogatepass")).hexdigest()


def remember(cache, path: str, round_option: str | None, profile: str, start, outputs: dict, rules,
             reason: str, checks_run: int) -> None:
    """Store the tree entry of a check that just ran through ``cache`` (``start``: its
    ``checker.pipeline.RoundStart``, ``outputs``: its units' outputs, ``rules``: its round's rules, whose
    root_ignored_dirs no check reads); nothing when a part of it cannot be vouched for."""
    if not (cache.usable and cache.persist_memo) or cache.warnings or not start.units:
        return
    units = []
    for division, submitter in start.units:
        quick = cache.quick_keys.get(f"{division}/{submitter}")
        if not quick or outputs[(division, submitter)][2] is None or not cache.has("stats", quick):
            return
        unit_key = cache.load("quick", quick)  # the unit entry the stat key stands for
        if not isinstance(unit_key, str) or not cache.has("units", unit_key):
            return
        units.append((division, submitter, quick, unit_key))
    root = start.root
    skip = frozenset([os.path.join(root, d, s) for d, s, _, _ in units] + [os.path.join(root, n) for n in rules.root_ignored_dirs])
    top = store.stat_manifest(root, "", skip)
    if top is None:
        return
    cache.store("trees", tree_key(path, round_option, profile), {
        "root": root, "real_root": os.path.realpath(root), "round": rules.round, "reason": reason,
        "salt": cache.salt, "profile": profile, "checks_run": checks_run, "findings": list(start.findings),
        "units": units, "top": store.outline(top), "top_digest": store.manifest_digest(top)})


def warm_report(path: str, round_option: str | None, profile: str, cache, progress=None, spool=None,
                started: float | None = None) -> Report | None:
    """The report of an unchanged tree from ``cache`` alone, or None (check the usual way). On None the
    cache is left as the usual way expects it (unbound, no stats), keeping the warnings met."""
    entry = cache.load("trees", tree_key(path, round_option, profile)) if cache.persist_memo else None
    if not _well_formed(entry):
        return None
    real_dir = os.path.realpath(cache.directory)
    if real_dir == entry["real_root"] or real_dir.startswith(entry["real_root"] + os.sep):
        return None  # the cache folder has come to lie inside the tree: the usual way says so
    cache.bind(entry["salt"])
    top_same = _digest(store.restat(entry["top"])) == entry["top_digest"]
    units_same = _units_unchanged(entry["units"], cache)  # even when the top changed: see there
    report = _from_entries(entry, cache, progress, spool, started) if top_same and units_same else None
    if report is None or cache.warnings:
        cache.salt, cache.usable, cache.stats = "", None, store.CacheStats()
        return None
    return report


def _from_entries(entry: dict, cache, progress, spool, started) -> Report | None:
    """The report, as ``checker.pipeline`` assembles it, from the units' and the round's entries."""
    units = entry["units"]
    batches: list = []
    findings: list[Finding] = list(entry["findings"])
    summaries: list = []
    digests: list[str] = []
    tables: dict = {}
    for place, (division, submitter, _, unit_key) in enumerate(units, 1):
        hit = unit_hit(cache, unit_key)
        if hit is None:
            return None
        unit_findings, unit_summaries, digest = hit
        if spool is not None:
            batches.append(spool.add(unit_findings, place))
        else:
            findings += unit_findings
        summaries += shared(unit_summaries, tables)
        digests.append(digest)
        if progress:
            progress(place, len(units), (division, submitter))
    found = cache.load("rounds", store.round_key(cache.salt, (), digests))
    if not isinstance(found, list) or not all(isinstance(f, Finding) for f in found):
        return None
    if spool is not None:  # in the pipeline's order: the start's findings, the units', the round's
        batches.insert(0, spool.add(findings, 0))
        findings = spool.view([*batches, spool.add(found, len(units) + 1)])
    else:
        findings += found
        findings.sort(key=lambda f: f.sort_key())
    summaries = count_round_findings(summaries, found)
    return new_report(entry["root"], entry["round"], entry["reason"], entry["profile"], findings,
                      entry["checks_run"], summaries, started)


def _units_unchanged(units: list, cache) -> bool:
    """Whether every unit's folders and files have the stat fields its stat key was made of. The units
    found unchanged are noted in ``cache.known_keys``: when the tree changed elsewhere, the usual way then
    takes their stat keys from there instead of walking them again (reading the stat fields of named
    files costs about a third of a walk that lists every folder)."""
    same = True
    for division, submitter, quick, _ in units:
        names = cache.load("stats", quick)
        rel = f"{division}/{submitter}"
        if isinstance(names, list) and store.stat_key(cache.salt, "", rel, store.restat(names)) == quick:
            cache.known_keys[rel] = (cache.salt, quick)
        else:
            same = False
    return same


def _digest(manifest: list | None) -> str | None:
    return store.manifest_digest(manifest) if manifest is not None else None


def _well_formed(entry) -> bool:
    return (isinstance(entry, dict)
            and all(isinstance(entry.get(k), str) for k in ("root", "real_root", "round", "reason", "salt", "profile",
                                                             "top_digest"))
            and isinstance(entry.get("checks_run"), int) and isinstance(entry.get("top"), list)
            and isinstance(entry.get("findings"), list) and all(isinstance(f, Finding) for f in entry["findings"])
            and isinstance(entry.get("units"), list)
            and all(isinstance(u, tuple) and len(u) == 4 and all(isinstance(p, str) for p in u)
                    for u in entry["units"]))
