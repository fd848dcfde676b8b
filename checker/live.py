"""A round kept in memory between checks (``mlpc check --watch``).

The first check checks every submitter. After that, :meth:`LiveRound.recheck` is given the paths that
changed; it checks again only the submitters (``<division>/<submitter>`` units) that hold one of them,
and assembles the round from their new outputs and the kept outputs of the others (the round-scope
checks run again each time, through their cache entry when the summaries did not change). The report
equals a fresh ``check_tree`` of the tree as it now is (held to that by tests/core/test_live_round.py).

What a change path can touch:

* a path inside a known unit: that unit;
* anything else (a file at the root or division level, a submitter folder created, removed or
  renamed): the root and division level are read again; new units are checked, vanished ones dropped;
* a unit that holds a symbolic link anywhere may read files outside itself, so it is checked again on
  every change (through the cache, which then re-checks nothing when its files did not change).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

from checker.checks.base import Check
from checker.pipeline import ALL_CHECKS, UnitOutput, assemble, check_units, open_round
from checker.loaders.units import holds_link, is_unit
from checker.report import Report

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.rules import RoundRules

Unit = tuple[str, str]
FEW_UNITS = 8


def warm_up() -> None:
    """Import now what checking a result imports on first use (numpy, for power results), so that the
    first re-check in this process does not pay for it. (Early stopping no longer needs scipy.)"""
    import numpy  # noqa: F401  (power results)


def touched_units(root: str, units: Iterable[Unit], ignored_dirs: Iterable[str],
                  paths: Iterable[str], folders: bool = False) -> tuple[set[Unit], bool, bool]:
    """The ``units`` holding one of ``paths`` (absolute, or relative to the current folder); whether a
    path lies outside every unit (then the root and division level are read again); and whether any
    path can matter at all. Paths outside the tree, and inside the folders the root checks ignore
    (``ignored_dirs``, e.g. ``.git``), cannot. With ``folders``, a path naming the root, a division or
    a unit folder touches every unit below it (a selection, not a change)."""
    bases = [root] + ([os.path.realpath(root)] if os.path.realpath(root) != root else [])
    known = set(units)
    ignored = set(ignored_dirs)
    touched: set[Unit] = set()
    structural = relevant = False
    for path in paths:
        for base in bases:
            rel = os.path.relpath(os.path.abspath(path), base)
            if rel != ".." and not rel.startswith(".." + os.sep):
                break
        else:
            continue
        parts = rel.split(os.sep)
        if len(parts) >= 2 and parts[0] in ignored:
            continue
        relevant = True
        if len(parts) >= 3 and (parts[0], parts[1]) in known:
            touched.add((parts[0], parts[1]))
            continue
        structural = True
        if folders and len(parts) <= 2:
            prefix = () if parts == ["."] else tuple(parts)
            touched.update(u for u in known if u[:len(prefix)] == prefix)
    return touched, structural, relevant


class LiveRound:
    """One tree, checked once in full and then again where it changed."""

    def __init__(self, path: str, rules: RoundRules, round_reason: str = "", profile: str = "default",
                 jobs: int | None = 1, cache=None, checks: tuple[Check, ...] = ALL_CHECKS):
        self.path = path
        self.rules = rules
        self.round_reason = round_reason
        self.profile = profile
        self.jobs = jobs
        self.cache = cache
        self.checks = checks
        self.start = None
        self.outputs: dict[Unit, UnitOutput] = {}
        self.linked: set[Unit] = set()
        self.checked: list[Unit] = []  # the units the last pass checked
        self._unsettled = False

    def _begin_pass(self) -> None:
        if self.cache is not None:  # TL004 warnings and the stats tell about this pass only
            from checker.cache import CacheStats

            self.cache.warnings = []
            self.cache.stats = CacheStats()

    def _census(self, units: list[Unit]) -> None:
        for unit in units:
            if holds_link(self.start.root, unit):
                self.linked.add(unit)
            else:
                self.linked.discard(unit)

    def _check(self, units: list[Unit], progress) -> None:
        # a few units are checked in this process: starting worker processes would cost more
        jobs = self.jobs if len(units) >= FEW_UNITS else 1
        self.outputs.update(check_units(self.start, units, self.rules, self.checks, jobs, progress, self.cache))
        self.checked = list(units)

    def check_all(self, progress=None) -> Report:
        """Check every unit (the first pass, or a fresh start). :meth:`settle` finishes the preparation
        of re-checks; :meth:`recheck` calls it when it has not run."""
        started = time.perf_counter()
        self._begin_pass()
        self.start = open_round(self.path, self.rules, self.profile, self.checks, self.cache)
        self.outputs, self.linked = {}, set()
        self._check(list(self.start.units), progress)
        self._unsettled = True
        return assemble(self.start, self.outputs, self.rules, self.round_reason, self.checks, self.cache, started)

    def settle(self) -> None:
        """Find the units holding links and import what a re-check in this process needs: the work after
        a full check that its report need not wait for (about a second on a whole round)."""
        if self._unsettled:
            self._census(list(self.start.units))
            warm_up()
            self._unsettled = False

    def units_for(self, paths: Iterable[str]) -> tuple[set[Unit], bool, bool]:
        """:func:`touched_units` of the known units; a touched unit that is no unit any more (lost its
        results folder) counts as a structural change."""
        root = self.start.root
        touched, structural, relevant = touched_units(root, self.start.units, self.rules.root_ignored_dirs, paths)
        # a unit is a submitter folder with a results folder: one that lost it is no unit any more
        if any(not is_unit(root, unit) for unit in touched):
            structural = True
        return touched, structural, relevant

    def recheck(self, paths: Iterable[str], progress=None) -> Report | None:
        """Check again what ``paths`` (changed, added or removed files and folders) can have changed;
        None when none of them can change the report."""
        if self.start is None:
            return self.check_all(progress)
        self.settle()
        touched, structural, relevant = self.units_for(paths)
        if not relevant:
            return None
        started = time.perf_counter()
        self._begin_pass()
        if structural:
            self.start = open_round(self.path, self.rules, self.profile, self.checks, self.cache)
            current = set(self.start.units)
            for unit in [u for u in self.outputs if u not in current]:
                del self.outputs[unit]
            self.linked &= current
            touched |= {u for u in self.start.units if u not in self.outputs}
        touched |= self.linked
        todo = [u for u in self.start.units if u in touched]
        self._check(todo, progress)
        self._census(todo)
        return assemble(self.start, self.outputs, self.rules, self.round_reason, self.checks, self.cache, started)
