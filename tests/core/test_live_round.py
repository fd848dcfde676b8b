"""LiveRound (``mlpc check --watch``): after a change, re-checking only the touched submitters must give
the report a fresh check of the changed tree gives."""

import os
import shutil

import pytest

from checker.cache import ResultCache
from checker.pipeline import check_tree
from checker.live import LiveRound
from checker.loaders.units import holds_link
from checker.loaders.rules import load_rules
from checker.reporters import json_report

RULES = load_rules("v4.1")
OFFLINE = "closed/Acme/results/edge_sys/gptj-99/Offline"


@pytest.fixture
def tree(base_tree):
    """Three submitters in two divisions: closed/Acme, closed/Beta, open/Acme."""
    acme = os.path.join(base_tree, "closed", "Acme")
    shutil.copytree(acme, os.path.join(base_tree, "closed", "Beta"), symlinks=True)
    shutil.copytree(acme, os.path.join(base_tree, "open", "Acme"), symlinks=True)
    return base_tree


def fresh(root: str) -> str:
    return json_report.render(check_tree(root, RULES, round_reason="test"))


def live_json(report) -> str:
    return json_report.render(report)


@pytest.fixture(params=["cache", "no-cache"])
def live(request, tree, tmp_path):
    cache = ResultCache(str(tmp_path / "c")) if request.param == "cache" else None
    return LiveRound(tree, RULES, round_reason="test", cache=cache)


def _rewrite(path: str, old: str, new: str) -> None:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert old in text
    with open(path, "w", encoding="utf-8") as handle:  # in place, as some editors save
        handle.write(text.replace(old, new))


def test_first_pass_equals_a_fresh_check(live, tree):
    assert live_json(live.check_all()) == fresh(tree)
    assert sorted(live.checked) == [("closed", "Acme"), ("closed", "Beta"), ("open", "Acme")]


def test_a_changed_file_rechecks_only_its_submitter(live, tree):
    live.check_all()
    changed = os.path.join(tree, OFFLINE, "accuracy", "accuracy.txt")
    _rewrite(changed, "rouge1", "rougeQ")
    report = live.recheck([changed])
    assert live.checked == [("closed", "Acme")]
    assert live_json(report) == fresh(tree)
    assert any(f.code == "AC003" and f.result_id == OFFLINE for f in report.findings)
    assert not next(r for r in report.results if r.id == OFFLINE).valid


def test_a_new_and_a_removed_submitter(live, tree):
    live.check_all()
    shutil.copytree(os.path.join(tree, "closed", "Acme"), os.path.join(tree, "closed", "Gamma"))
    report = live.recheck([os.path.join(tree, "closed", "Gamma")])
    assert live.checked == [("closed", "Gamma")]
    assert live_json(report) == fresh(tree)
    shutil.rmtree(os.path.join(tree, "closed", "Beta"))
    report = live.recheck([os.path.join(tree, "closed", "Beta", "systems", "edge_sys.json")])
    assert ("closed", "Beta") not in live.outputs and live.checked == []
    assert live_json(report) == fresh(tree)


def test_a_unit_that_loses_its_results_folder_is_dropped(live, tree):
    live.check_all()
    shutil.rmtree(os.path.join(tree, "open", "Acme", "results"))
    report = live.recheck([os.path.join(tree, "open", "Acme", "results")])
    assert ("open", "Acme") not in live.outputs
    assert live_json(report) == fresh(tree)


def test_a_root_level_file_is_read_again(live, tree):
    live.check_all()
    stray = os.path.join(tree, "notes.docx")
    with open(stray, "w", encoding="utf-8") as handle:
        handle.write("x")
    report = live.recheck([stray])
    assert live.checked == []
    assert live_json(report) == fresh(tree)
    assert any(f.location.path.endswith('notes.docx') for f in report.findings if f.location)


def test_paths_that_cannot_change_the_report_are_no_pass(live, tree, tmp_path):
    live.check_all()
    os.makedirs(os.path.join(tree, ".git", "refs"))
    assert live.recheck([str(tmp_path / "elsewhere.txt"), "/", os.path.join(tree, ".git", "refs")]) is None
    # the ignored folder itself appearing at the root is read like any root-level change
    report = live.recheck([os.path.join(tree, ".git")])
    assert live.checked == []
    assert live_json(report) == fresh(tree)


def test_a_submitter_holding_a_link_is_rechecked_on_every_change(live, tree):
    """Its link may point into another submitter, whose change events do not name the linking one."""
    beta = os.path.join(tree, "closed", "Beta")
    acc = os.path.join(beta, "results", "edge_sys", "gptj-99", "Offline", "accuracy", "accuracy.txt")
    source = os.path.join(tree, OFFLINE, "accuracy", "accuracy.txt")
    os.remove(acc)
    os.symlink(os.path.relpath(source, os.path.dirname(acc)), acc)
    assert holds_link(tree, ("closed", "Beta")) and not holds_link(tree, ("closed", "Acme"))
    live.check_all()
    _rewrite(source, "rouge1", "rougeQ")
    report = live.recheck([source])
    assert sorted(live.checked) == [("closed", "Acme"), ("closed", "Beta")]
    assert live_json(report) == fresh(tree)
    beta_offline = OFFLINE.replace("Acme", "Beta")
    assert not next(r for r in report.results if r.id == beta_offline).valid


def test_cache_warnings_and_stats_describe_the_last_pass(tree, tmp_path):
    cache = ResultCache(str(tmp_path / "c"))
    live = LiveRound(tree, RULES, round_reason="test", cache=cache)
    live.check_all()
    assert cache.stats.units_checked == 3
    changed = os.path.join(tree, OFFLINE, "accuracy", "accuracy.txt")
    _rewrite(changed, "rouge1", "rougeQ")
    live.recheck([changed])
    assert cache.stats.units_checked == 1 and cache.stats.checked == [OFFLINE, OFFLINE.replace("Offline", "SingleStream")]
    assert cache.warnings == []


def test_a_submitter_focus_is_kept(tmp_path, tree):
    focus = os.path.join(tree, "closed", "Beta")
    live = LiveRound(focus, RULES, round_reason="test")
    live.check_all()
    changed = os.path.join(focus, "results", "edge_sys", "gptj-99", "Offline", "accuracy", "accuracy.txt")
    _rewrite(changed, "rouge1", "rougeQ")
    report = live.recheck([changed, os.path.join(tree, OFFLINE, "accuracy", "accuracy.txt")])
    assert live.checked == [("closed", "Beta")]
    assert live_json(report) == json_report.render(check_tree(focus, RULES, round_reason="test"))


def test_many_changed_submitters_are_checked_in_worker_processes(tree, tmp_path):
    """A burst touching FEW_UNITS or more submitters (a branch switch, say) goes through the process pool."""
    from checker import live as live_module

    for n in range(live_module.FEW_UNITS):
        shutil.copytree(os.path.join(tree, "closed", "Acme"), os.path.join(tree, "open", f"Copy{n}"), symlinks=True)
    live = LiveRound(tree, RULES, round_reason="test", jobs=2, cache=ResultCache(str(tmp_path / "c")))
    live.check_all()
    changed = []
    for n in range(live_module.FEW_UNITS):
        path = os.path.join(tree, "open", f"Copy{n}", "results", "edge_sys", "gptj-99", "Offline", "accuracy",
                            "accuracy.txt")
        _rewrite(path, "rouge1", "rougeQ")
        changed.append(path)
    report = live.recheck(changed)
    assert len(live.checked) == live_module.FEW_UNITS
    assert live_json(report) == fresh(tree)
