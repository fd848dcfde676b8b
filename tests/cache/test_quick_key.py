"""The quick first look at a unit (stat fields -> unit key pointer): taken when nothing changed, never
when something did, and never for what it cannot vouch for."""

import os
import shutil

import pytest

from checker import cache as store
from checker.cache import ResultCache, stat_key
from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from checker.reporters import json_report

RULES = load_rules("v4.1")
OFFLINE = "closed/Acme/results/edge_sys/gptj-99/Offline"


@pytest.fixture(autouse=True)
def settled(monkeypatch):
    """A freshly copied tree is all "recently changed" (ctime cannot be set back), so the racy window
    is closed here; test_recent_files_are_not_vouched_for opens it again."""
    monkeypatch.setattr(store, "RACY_NS", 0)


@pytest.fixture
def tree(base_tree):
    return base_tree


def _check(root, cache=None):
    return json_report.render(check_tree(root, RULES, round_reason="test", cache=cache))


def _no_memo(monkeypatch):
    def refuse(*args):
        raise AssertionError("the full scan ran")
    monkeypatch.setattr(ResultCache, "memo", refuse)


def test_an_unchanged_unit_is_found_by_its_stat_fields(tree, tmp_path, monkeypatch):
    plain = _check(tree)
    assert _check(tree, ResultCache(str(tmp_path / "c"))) == plain
    assert stat_key("s", tree, "closed/Acme") is not None
    _no_memo(monkeypatch)
    warm = ResultCache(str(tmp_path / "c"))
    assert _check(tree, warm) == plain
    assert (warm.stats.units_reused, warm.stats.results_checked) == (1, 0) and warm.warnings == []


def test_a_same_size_rewrite_with_the_old_mtime_is_seen(tree, tmp_path):
    _check(tree, ResultCache(str(tmp_path / "c")))
    path = os.path.join(tree, OFFLINE, "accuracy", "accuracy.txt")
    before = os.stat(path)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    with open(path, "w", encoding="utf-8") as handle:  # in place, same size
        handle.write(text.replace("rouge1", "rougeQ"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # only ctime tells
    cache = ResultCache(str(tmp_path / "c"))
    report = _check(tree, cache)
    assert cache.stats.units_reused == 0 and OFFLINE in cache.stats.checked
    assert report == _check(tree) and "AC003" in report


def test_what_the_stat_fields_cannot_vouch_for(tree, tmp_path, monkeypatch):
    assert stat_key("s", tree, "closed/Acme") is not None
    link = os.path.join(tree, "closed/Acme/code/link")
    os.symlink("../systems", link)
    assert stat_key("s", tree, "closed/Acme") is None
    os.remove(link)
    os.mkfifo(os.path.join(tree, "closed/Acme/fifo"))
    assert stat_key("s", tree, "closed/Acme") is None
    os.remove(os.path.join(tree, "closed/Acme/fifo"))
    assert stat_key("s", tree, "closed/Acme/absent") is None
    monkeypatch.setattr(store, "RACY_NS", 60 * 10**9)
    assert stat_key("s", tree, "closed/Acme") is None  # every file was written within the minute


def test_recent_files_are_not_vouched_for(tree, tmp_path, monkeypatch):
    monkeypatch.setattr(store, "RACY_NS", 60 * 10**9)
    _check(tree, ResultCache(str(tmp_path / "c")))
    assert not any("quick" in dirs for _, dirs, _ in os.walk(str(tmp_path / "c")))
    assert any("units" in dirs for _, dirs, _ in os.walk(str(tmp_path / "c")))


def test_a_damaged_or_dangling_pointer_is_a_full_check(tree, tmp_path):
    plain = _check(tree)
    _check(tree, ResultCache(str(tmp_path / "c")))
    pointers = [os.path.join(d, f) for d, _, files in os.walk(str(tmp_path / "c")) if "/quick/" in d + "/"
                for f in files]
    assert len(pointers) == 1
    with open(pointers[0], "r+b") as handle:
        handle.seek(-3, os.SEEK_END)
        handle.write(b"xyz")
    damaged = ResultCache(str(tmp_path / "c"))
    _check(tree, damaged)
    assert [m.split(" (")[0] for _, m in damaged.warnings] == ["cache entry is damaged"]
    assert damaged.stats.units_reused == 1  # the full scan found the unit entry
    # a pointer to a unit entry that is gone: the full scan, which checks the unit again
    for folder, _, files in os.walk(str(tmp_path / "c")):
        if "/units/" in folder + "/":
            for name in files:
                os.remove(os.path.join(folder, name))
    again = ResultCache(str(tmp_path / "c"))
    assert _check(tree, again) == plain
    assert again.stats.units_checked == 1 and again.warnings == []


@pytest.fixture
def two_units(tree):
    shutil.copytree(os.path.join(tree, "closed", "Acme"), os.path.join(tree, "closed", "Beta"), symlinks=True)
    return tree


def _unit_entries(cache_dir):
    return [os.path.join(d, f) for d, _, files in os.walk(cache_dir) if "/units/" in d + "/" for f in files]


def test_workers_leave_unchanged_units_for_the_parent_to_load(two_units, tmp_path):
    plain = json_report.render(check_tree(two_units, RULES, round_reason="test", jobs=2))
    check_tree(two_units, RULES, round_reason="test", jobs=2, cache=ResultCache(str(tmp_path / "c")))
    warm = ResultCache(str(tmp_path / "c"))
    assert json_report.render(check_tree(two_units, RULES, round_reason="test", jobs=2, cache=warm)) == plain
    assert (warm.stats.units_reused, warm.stats.units_checked, warm.warnings) == (2, 0, [])
    # a damaged entry behind a pointer: the parent checks that unit itself, with a TL004 warning
    for path in _unit_entries(str(tmp_path / "c")):
        with open(path, "r+b") as handle:
            handle.seek(-3, os.SEEK_END)
            handle.write(b"xyz")
    damaged = ResultCache(str(tmp_path / "c"))
    report = check_tree(two_units, RULES, round_reason="test", jobs=2, cache=damaged)
    assert damaged.stats.units_checked == 2 and len(damaged.warnings) == 2
    assert [f for f in report.findings if f.code != "TL004"] == [
        f for f in check_tree(two_units, RULES, round_reason="test", jobs=2).findings]


def test_content_digests_and_their_namespace(tmp_path, monkeypatch):
    """Files are digested with BLAKE3 (or BLAKE2b where it is missing); the salt names the algorithm,
    so entries made with one are never read with the other."""
    import hashlib

    path = tmp_path / "log.txt"
    path.write_bytes(b"x" * (store.CHUNK + 5))
    assert store._content_digest(str(path)) == store._file_hash(path.read_bytes()).hexdigest()
    salt = store.cache_salt("v4.1", "official", (), ("A",))
    monkeypatch.setattr(store, "_file_hash", hashlib.blake2b)
    monkeypatch.setattr(store, "DIGEST_NAME", "blake2b")
    assert store._content_digest(str(path)) == hashlib.blake2b(path.read_bytes()).hexdigest()
    assert store.cache_salt("v4.1", "official", (), ("A",)) != salt


def _two_submitters(tree):
    shutil.copytree(os.path.join(tree, "closed", "Acme"), os.path.join(tree, "closed", "Bcme"), symlinks=True)
    return tree


def test_a_warm_parallel_recheck_starts_no_worker(tree, tmp_path, monkeypatch):
    from checker import pipeline

    tree = _two_submitters(tree)
    plain = json_report.render(check_tree(tree, RULES, round_reason="test", jobs=1))
    assert json_report.render(check_tree(tree, RULES, round_reason="test", jobs=2,
                                         cache=ResultCache(str(tmp_path / "c")))) == plain

    def no_workers(*args, **kwargs):
        raise AssertionError("a worker process was started for unchanged submitters")

    monkeypatch.setattr(pipeline, "run_workers", no_workers)
    warm = ResultCache(str(tmp_path / "c"))
    assert json_report.render(check_tree(tree, RULES, round_reason="test", jobs=2, cache=warm)) == plain
    assert warm.stats.units_reused == 2 and warm.warnings == []
    # one submitter changed: it alone is checked again (in this process: one unit needs no pool)
    path = os.path.join(tree, "closed", "Bcme", OFFLINE.split("/", 2)[2], "accuracy", "accuracy.txt")
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("\n")
    again = ResultCache(str(tmp_path / "c"))
    changed = json_report.render(check_tree(tree, RULES, round_reason="test", jobs=2, cache=again))
    assert changed == json_report.render(check_tree(tree, RULES, round_reason="test", jobs=1))
    assert (again.stats.units_reused, again.stats.units_checked) == (1, 1)


def test_units_are_weighed_by_their_scenario_folders(tree):
    from checker.loaders.tree import unit_weight

    tree = _two_submitters(tree)
    before = unit_weight(tree, "closed", "Bcme", RULES)
    assert before > 0
    shutil.copytree(os.path.join(tree, "closed", "Bcme", "results", "edge_sys"),
                    os.path.join(tree, "closed", "Bcme", "results", "edge_sys2"))
    assert unit_weight(tree, "closed", "Bcme", RULES) == 2 * before
    assert unit_weight(tree, "closed", "Nobody", RULES) == 0  # no folder: no weight, no exception


def test_unit_weight_lists_folders_where_link_counts_say_nothing(tree, monkeypatch):
    """btrfs gives every folder one link: the weight then comes from listing the model folders."""
    from checker.loaders import tree as tree_module

    tree = _two_submitters(tree)
    counted = tree_module.unit_weight(tree, "closed", "Bcme", RULES)
    real_stat = os.stat

    class _OneLink:
        def __init__(self, st):
            self.st_nlink = 1

    monkeypatch.setattr(tree_module.os, "stat", lambda p, **k: _OneLink(real_stat(p, **k)))
    assert tree_module.unit_weight(tree, "closed", "Bcme", RULES) == counted > 0
