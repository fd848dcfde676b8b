"""The plausibility assessment computed submitter by submitter while the workers run (``RoundPart``, filled by
``checker.pipeline.check_units`` and handed to the round checks as ``RoundCtx.precomputed``) gives the findings
the plain assessment of the whole round gives, in the same order; a part that does not cover exactly the
round's results (a submitter missing or extra, a group of results split across submitters, a failure while
adding, other rules, finished already) is not used and the round is assessed the plain way."""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import sys

import pytest

from checker import pipeline
from checker.api import check
from checker import cache as store
from checker.cache import ResultCache
from checker.checks.memo import forget
from checker.checks.plausibility import RoundPart
from checker.context import RoundCtx
from checker.loaders.rules import load_rules
from checker.pipeline import assemble, check_units, open_round
from tests.conftest import REPO, real_tree
from tests.plausibility.helpers_pl import RULES, ctx, resnet_rate, run_all, summary, system_fields

CODES = ("PL001", "PL002", "PL003", "PL004", "PL005")


def _with(part: RoundPart, *summaries) -> RoundCtx:
    plain = ctx(*summaries)
    return RoundCtx(root=plain.root, results=plain.results, precomputed={"plausibility": part})


def _fed(units, rules=RULES) -> RoundPart:
    part = RoundPart(rules)
    for unit in units:
        part.add(unit)
    return part


def _findings(round_ctx, rules=RULES) -> dict:
    try:
        return run_all(round_ctx, rules)
    finally:
        forget()


def _round_units():
    """Four submitters with the same 1xH200 ResNet50 Offline (the last 1.5x the median of the others: PL003),
    one with Server above Offline (PL004), a high utilisation (PL002), one above the peak (PL001), an unknown
    accelerator (PL005), an invalid result and an open one (not assessed)."""
    units = []
    for index, rate in enumerate((40000.0, 40000.0, 42000.0, 60000.0)):
        name = f"Peer{index}"
        units.append([summary("sys1", submitter=name, value=rate),
                      summary("sys1", scenario="Server", submitter=name, value=rate * 0.9)])
    units.append([summary("a", submitter="Fast", value=resnet_rate(0.8)),
                  summary("a", scenario="Server", submitter="Fast", value=resnet_rate(0.8) * 1.2),
                  summary("b", submitter="Fast", value=1000.0, fields=system_fields("Mystery X1")),
                  summary("c", submitter="Fast", value=resnet_rate(1.3))])
    units.append([summary("sys1", submitter="Broken", value=90000.0, valid=False)])
    units.append([summary("sys1", submitter="Open", division="open", value=90000.0)])
    return units


def test_a_part_fed_in_any_order_gives_the_plain_findings():
    units = _round_units()
    everything = [s for unit in units for s in unit]
    plain = _findings(ctx(*everything))
    assert {code for code, found in plain.items() if found} == set(CODES)  # every check has something to say
    for seed in range(5):
        order = list(units)
        random.Random(seed).shuffle(order)
        part = _fed(order)
        round_ctx = _with(part, *everything)
        assert part.covers(round_ctx.results, RULES)
        assert _findings(round_ctx) == plain


def test_a_part_that_does_not_cover_the_round_is_not_used():
    units = _round_units()
    everything = [s for unit in units for s in unit]
    plain = _findings(ctx(*everything))
    # the PL003 result's peer left out of the part: used anyway, it would have too few peers for PL003
    short = _fed([u for u in units if u[0].submitter != "Peer0"])
    assert _findings(RoundCtx("/nowhere", ctx(*everything).results,
                              precomputed={"plausibility": short})) == plain
    assert not short.covers(ctx(*everything).results, RULES)
    # a submitter the round does not hold
    extra = _fed([*units, [summary("sys1", submitter="Extra", value=1.0)]])
    assert not extra.covers(ctx(*everything).results, RULES) and _findings(_with(extra, *everything)) == plain
    # equal results, not the same objects
    copies = _fed([[summary("sys1", submitter=s.submitter, scenario=s.scenario, value=s.value, division=s.division,
                            valid=s.valid, fields=s.system_fields) for s in unit] for unit in units])
    assert not copies.covers(ctx(*everything).results, RULES) and _findings(_with(copies, *everything)) == plain
    # other rules
    other = _fed(units, load_rules("v5.1"))
    assert not other.covers(ctx(*everything).results, RULES)
    assert _findings(_with(other, *everything)) == plain


def test_a_folder_split_or_given_twice_or_mixed_makes_the_part_unusable():
    units = _round_units()
    everything = [s for unit in units for s in unit]
    plain = _findings(ctx(*everything))
    fast = units[4]
    split = _fed([*units[:4], fast[:1], fast[1:], *units[5:]])  # one system's Offline and Server apart
    assert not split.usable and not split.covers(ctx(*everything).results, RULES)
    assert _findings(_with(split, *everything)) == plain
    twice = _fed([*units, units[0]])
    assert not twice.usable and _findings(_with(twice, *everything)) == plain
    mixed = _fed([units[0] + units[1], *units[2:]])  # two submitter folders in one call
    assert not mixed.usable and _findings(_with(mixed, *everything)) == plain


def test_a_failure_while_adding_leaves_it_to_the_plain_assessment(monkeypatch):
    units = _round_units()
    everything = [s for unit in units for s in unit]
    plain = _findings(ctx(*everything))
    from checker.metrics import plausibility as maths

    real = maths.assess_result

    def broken(*args):
        raise RuntimeError("not today")

    monkeypatch.setattr(maths, "assess_result", broken)
    part = _fed(units)  # no exception: the part is set aside
    assert not part.usable
    monkeypatch.setattr(maths, "assess_result", real)
    assert _findings(_with(part, *everything)) == plain


def test_a_part_is_finished_once():
    units = _round_units()
    everything = [s for unit in units for s in unit]
    plain = _findings(ctx(*everything))
    part = _fed(units)
    first = _with(part, *everything)
    assert _findings(first) == plain
    again = RoundCtx(first.root, first.results, precomputed={"plausibility": part})
    assert not part.covers(again.results, RULES) and _findings(again) == plain


def _spy(monkeypatch) -> list:
    """The answers of ``RoundPart.covers`` in this process (the pipeline's parent)."""
    answers = []
    real = RoundPart.covers

    def covers(self, results, rules):
        answers.append(real(self, results, rules))
        return answers[-1]

    monkeypatch.setattr(RoundPart, "covers", covers)
    return answers


def _same(tree: str, round_name: str, monkeypatch) -> None:
    plain = check(tree, round=round_name, jobs=1, cache=False)
    answers = _spy(monkeypatch)
    parallel = check(tree, round=round_name, jobs=2, cache=False)
    assert answers == [True]  # the part filled while the workers ran was used
    assert list(parallel.findings) == list(plain.findings)
    assert parallel.results == plain.results
    assert any(f.code.startswith("PL") for f in plain.findings) or round_name == "v4.1"


@pytest.mark.parametrize("round_name", ["v4.1", "v6.0"])
def test_parallel_check_of_a_real_subset_uses_the_part_and_finds_the_same(round_name, monkeypatch):
    _same(real_tree(round_name), round_name, monkeypatch)


def _bench_scale():
    spec = importlib.util.spec_from_file_location("bench_scale", os.path.join(REPO, "benchmarks", "bench_scale.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_parallel_check_of_a_synthetic_round_finds_the_same(tmp_path, monkeypatch):
    """Three copies of every submitter of the real v4.1 subset under new names (as benchmarks/bench_scale.py
    builds its 1k rounds): each copy's results are peers of the others'."""
    source = real_tree("v4.1")
    tree = str(tmp_path / "round")
    os.makedirs(tree)
    for name in os.listdir(source):
        if not os.path.isdir(os.path.join(source, name)):
            shutil.copy2(os.path.join(source, name), tree)
    _bench_scale().add_copies(source, tree, 0, 3)
    _same(tree, "v4.1", monkeypatch)


@pytest.mark.parametrize("edit", [True, False])
def test_units_taken_from_the_cache_wait_for_the_fork_and_for_a_unit_checked_again(edit, tmp_path, monkeypatch):
    """Units the cache's stat fields find unchanged are taken before the workers are forked; their summaries
    wait until the parent has prepared the assessment's models (none is built before the fork), and until a
    unit is checked again (``edit``: two units' system descriptions gain a final newline): then they join the
    part, and the round's findings are the plain ones. While every unit comes from the cache (``edit`` False:
    two units' files are only touched, the workers find their content unchanged) nothing is computed ahead
    (the round's findings most likely come from the cache too), and the round is assessed the plain way."""
    monkeypatch.setattr(store, "RACY_NS", 0)  # (the copy is new: close the window in which files are hashed again)
    tree = str(tmp_path / "tree")
    shutil.copytree(real_tree("v4.1"), tree, symlinks=True)
    rules = load_rules("v4.1")
    check(tree, round="v4.1", jobs=1, cache=ResultCache(str(tmp_path / "c")))
    touched = 0
    for division, submitter in open_round(tree, rules).units[:2]:  # two units the workers take
        systems = os.path.join(tree, division, submitter, "systems")
        for name in os.listdir(systems):
            path = os.path.join(systems, name)
            if edit:
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write("\n")
            os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 10**9))
            touched += 1
    assert touched
    events = []
    real_prepare, real_add = pipeline._prepare, RoundPart.add
    monkeypatch.setattr(pipeline, "_prepare", lambda checks: (events.append("prepare"), real_prepare(checks)))
    monkeypatch.setattr(RoundPart, "add", lambda self, summaries: (events.append("add"), real_add(self, summaries)))
    real_quick = pipeline.quick_hit
    early = []

    def quick_hit(*args):
        found = real_quick(*args)
        if found[0] is not None:
            early.append(args[1:3])
        return found

    monkeypatch.setattr(pipeline, "quick_hit", quick_hit)
    answers = _spy(monkeypatch)
    warm = ResultCache(str(tmp_path / "c"))
    start = open_round(tree, rules, cache=warm)
    outputs = check_units(start, start.units, rules, jobs=2, cache=warm)
    assert len(early) == len(start.units) - 2 >= 1  # taken before the fork
    assert warm.stats.units_checked == (2 if edit else 0)
    report = assemble(start, outputs, rules)  # (no cache: the round checks run)
    plain = check(tree, round="v4.1", jobs=1, cache=False)
    if edit:
        assert answers == [True]
        assert events[0] == "prepare" and events.count("add") == len(start.units)
    else:
        assert outputs.precomputed is None and answers == [] and events == ["prepare"]
    assert list(report.findings) == list(plain.findings) and report.results == plain.results


def test_a_serial_check_computes_nothing_ahead(monkeypatch):
    answers = _spy(monkeypatch)
    outputs = check_units(*_start("v4.1"), jobs=1)
    assert getattr(outputs, "precomputed", None) is None and answers == []


def _start(round_name):
    rules = load_rules(round_name)
    start = open_round(real_tree(round_name), rules)
    return start, start.units, rules
