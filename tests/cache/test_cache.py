"""Incremental cache: hits and misses, exact round trips, damaged entries, unusable folders."""

import dataclasses
import json
import math
import os
import shutil
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from checker import cache as store
from checker.cache import DigestMemo, ResultCache, Uncacheable, exact_dumps
from checker.cli import app
from checker.diagnostics import Finding, Location, Severity
from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from checker.report import ResultSummary
from checker.reporters import json_report
from tests.conftest import real_tree

OFFLINE = "closed/Acme/results/edge_sys/gptj-99/Offline"
SINGLE = "closed/Acme/results/edge_sys/gptj-99/SingleStream"
RULES = load_rules("v4.1")


@pytest.fixture
def tree(base_tree):
    return base_tree


def _json(report) -> str:
    return json_report.render(report)


def _check(root, cache=None, **kwargs):
    return check_tree(root, RULES, round_reason="test", cache=cache, **kwargs)


def _rewrite(path: str, old: str, new: str) -> None:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert old in text
    os.remove(path)  # a new inode, as editors and git do
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text.replace(old, new))


def test_warm_cache_reuses_everything_and_reports_the_same(tree, tmp_path):
    plain = _json(_check(tree))
    cold = ResultCache(str(tmp_path / "c"))
    assert _json(_check(tree, cold)) == plain
    assert cold.stats.results_checked == 2 and cold.stats.results_reused == 0
    warm = ResultCache(str(tmp_path / "c"))
    assert _json(_check(tree, warm)) == plain
    assert (warm.stats.units_reused, warm.stats.results_reused, warm.stats.results_checked) == (1, 2, 0)
    assert warm.warnings == []


def test_changing_one_file_rechecks_exactly_that_result(tree, tmp_path):
    _check(tree, ResultCache(str(tmp_path / "c")))
    readme = os.path.join(tree, "closed/Acme/measurements/edge_sys/gptj-99/Offline/README.md")
    original = open(readme, encoding="utf-8").read()
    os.remove(readme)
    open(readme, "w").close()  # an empty README: MS002
    cache = ResultCache(str(tmp_path / "c"))
    report = _check(tree, cache)
    assert cache.stats.checked == [OFFLINE]
    assert cache.stats.results_reused == 1 and cache.stats.units_reused == 0
    # Offline fails; SingleStream was not re-checked, but the model checks were re-run and now miss a
    # valid Offline run, which reaches SingleStream too (as in a check without cache)
    assert {r.id: r.valid for r in report.results} == {OFFLINE: False, SINGLE: False}
    assert any(f.code == "MS002" and f.result_id == OFFLINE for f in report.findings)
    assert _json(report) == _json(_check(tree))
    # writing it back hits the entries stored for the first version
    with open(readme, "w", encoding="utf-8") as handle:
        handle.write(original)
    back = ResultCache(str(tmp_path / "c"))
    assert all(r.valid for r in _check(tree, back).results)
    assert back.stats.results_checked == 0 and back.stats.units_reused == 1


def test_a_changed_result_file_updates_the_verdict(tree, tmp_path):
    _check(tree, ResultCache(str(tmp_path / "c")))
    _rewrite(os.path.join(tree, OFFLINE, "accuracy", "accuracy.txt"), "rouge1", "rougeQ")
    cache = ResultCache(str(tmp_path / "c"))
    report = _check(tree, cache)
    assert sorted(cache.stats.checked) == [OFFLINE, SINGLE]  # the model's results folder changed
    assert {r.id: r.valid for r in report.results} == {OFFLINE: False, SINGLE: True}
    assert any(f.code == "AC003" and f.result_id == OFFLINE for f in report.findings)
    assert _json(report) == _json(_check(tree))


def test_a_sibling_scenario_folder_is_part_of_the_key(tree, tmp_path):
    """An inferred result is compared with its source scenario folder (PF020): a change in one scenario
    folder re-checks every scenario of that model, and nothing of other models."""
    _check(tree, ResultCache(str(tmp_path / "c")))
    with open(os.path.join(tree, SINGLE, "performance/run_1/mlperf_log_summary.txt"), "a") as handle:
        handle.write("edited\n")
    cache = ResultCache(str(tmp_path / "c"))
    report = _check(tree, cache)
    assert sorted(cache.stats.checked) == [OFFLINE, SINGLE]
    assert _json(report) == _json(_check(tree))


def test_a_shared_file_rechecks_every_result_that_reads_it(tree, tmp_path):
    _check(tree, ResultCache(str(tmp_path / "c")))
    _rewrite(os.path.join(tree, "closed/Acme/systems/edge_sys.json"), '"status"', '"status" ')
    cache = ResultCache(str(tmp_path / "c"))
    _check(tree, cache)
    assert sorted(cache.stats.checked) == [OFFLINE, SINGLE]


def test_a_file_outside_every_result_rechecks_none(tree, tmp_path):
    _check(tree, ResultCache(str(tmp_path / "c")))
    with open(os.path.join(tree, "closed/Acme/code/gptj-99/README.md"), "a", encoding="utf-8") as handle:
        handle.write("more words\n")
    cache = ResultCache(str(tmp_path / "c"))
    report = _check(tree, cache)
    assert cache.stats.units_checked == 1 and cache.stats.results_checked == 0
    assert _json(report) == _json(_check(tree))


def test_a_changed_link_target_is_seen(tree, tmp_path):
    target = os.path.join(tree, "closed/Acme/accuracy_copy.txt")
    acc = os.path.join(tree, OFFLINE, "accuracy", "accuracy.txt")
    shutil.move(acc, target)
    os.symlink(os.path.relpath(target, os.path.dirname(acc)), acc)
    _check(tree, ResultCache(str(tmp_path / "c")))
    _rewrite(target, "rouge1", "rougeQ")
    cache = ResultCache(str(tmp_path / "c"))
    report = _check(tree, cache)
    assert sorted(cache.stats.checked) == [OFFLINE, SINGLE]  # the link lies in the model's results folder
    assert _json(report) == _json(_check(tree))


def test_profile_and_rules_are_part_of_the_key(tree, tmp_path):
    _check(tree, ResultCache(str(tmp_path / "c")))
    cache = ResultCache(str(tmp_path / "c"))
    _check(tree, cache, profile="smoke")
    assert cache.stats.results_reused == 0
    a = store.cache_salt("v4.1", "official", (), ("A",))
    assert a != store.cache_salt("v5.0", "official", (), ("A",))
    assert a != store.cache_salt("v4.1", "official", (), ("A", "B"))


def _entries(cache_dir):
    for folder, _, files in os.walk(cache_dir):
        if "/units/" in folder + "/" or "/results/" in folder + "/":
            yield from (os.path.join(folder, f) for f in files)


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
def test_a_damaged_entry_is_a_warning_and_a_full_check(tree, tmp_path, damage):
    plain = _check(tree)
    _check(tree, ResultCache(str(tmp_path / "c")))
    entries = list(_entries(tmp_path / "c"))
    assert entries
    for path in entries:
        raw = open(path, "rb").read()
        raw = {"truncate": raw[: len(raw) // 2], "flip": raw[:-5] + bytes([raw[-5] ^ 1]) + raw[-4:],
               "empty": b"", "garbage": b"\x00\xff not a cache entry"}[damage]
        with open(path, "wb") as handle:
            handle.write(raw)
    cache = ResultCache(str(tmp_path / "c"))
    report = _check(tree, cache)
    assert cache.stats.results_checked == 2
    tl004 = [f for f in report.findings if f.code == "TL004"]
    assert tl004 and all(f.severity == Severity.WARNING for f in tl004)
    assert "damaged" in tl004[0].message
    rest = [f for f in report.findings if f.code != "TL004"]
    assert rest == plain.findings and report.results == plain.results
    # the damaged entries were replaced: the next run is clean and fully reused
    again = ResultCache(str(tmp_path / "c"))
    assert _json(_check(tree, again)) == _json(plain) and again.stats.results_reused == 2


def test_an_entry_for_another_key_is_rejected(tree, tmp_path):
    _check(tree, ResultCache(str(tmp_path / "c")))
    units = [p for p in _entries(tmp_path / "c") if "/units/" in p]
    assert len(units) == 1
    cache = ResultCache(str(tmp_path / "c"))
    assert cache.prepare("salt", tree)
    os.makedirs(os.path.dirname(cache._path("units", "0" * 64)))
    os.rename(units[0], cache._path("units", "0" * 64))
    assert cache.load("units", "0" * 64) is None
    assert cache.warnings and "damaged" in cache.warnings[0][1]


def test_an_unusable_cache_folder_is_a_warning_and_a_full_check(tree, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    plain = _check(tree)
    cache = ResultCache(str(blocker))
    report = _check(tree, cache)
    assert not cache.usable
    tl004 = [f for f in report.findings if f.code == "TL004"]
    assert len(tl004) == 1 and "cannot be used" in tl004[0].message and tl004[0].result_id is None
    assert report.results == plain.results
    assert [f for f in report.findings if f.code != "TL004"] == plain.findings


def test_a_cache_folder_inside_the_tree_is_refused(tree):
    inside = os.path.join(tree, "cache")
    cache = ResultCache(inside)
    report = _check(tree, cache)
    assert not cache.usable and not os.path.exists(inside)
    assert any(f.code == "TL004" and "inside the tree" in f.message for f in report.findings)


def test_a_failing_cache_is_a_warning_and_a_plain_check(tree, tmp_path, monkeypatch):
    plain = _check(tree)

    def broken(*args):
        raise OSError("simulated")

    monkeypatch.setattr(store, "scan", broken)
    report = _check(tree, ResultCache(str(tmp_path / "c")))
    assert [f.code for f in report.findings if f.code == "TL004"] == ["TL004"]
    assert report.results == plain.results
    assert [f for f in report.findings if f.code != "TL004"] == plain.findings


def test_a_loader_crash_is_tl001_not_a_cache_problem(tree, tmp_path, monkeypatch):
    import checker.loaders.tree as loaders_tree
    import checker.pipeline as pipeline

    def crash(*args):
        raise RuntimeError("loader bug")

    monkeypatch.setattr(pipeline, "load_submitter", crash)  # the plain way
    monkeypatch.setattr(loaders_tree, "load_submitter", crash)  # and the way through the cache (imported on use)
    report = _check(tree, ResultCache(str(tmp_path / "c")))
    assert [f.code for f in report.findings] == ["TL001"]


def test_only_the_most_recent_salts_are_kept(tmp_path):
    for number in range(store.KEEP_SALTS + 2):
        cache = ResultCache(str(tmp_path / "c"))
        assert cache.prepare(f"{number:016x}" + "0" * 48, str(tmp_path / "tree"))
        cache.store("results", "a" * 64, [])
        folder = os.path.dirname(os.path.dirname(os.path.dirname(cache._path("results", "a" * 64))))
        os.utime(folder, (number * 1000, number * 1000))  # distinct ages, newest last
    kept = sorted(os.listdir(tmp_path / "c" / f"v{store.FORMAT}" / "entries"))
    assert kept == [f"{n:016x}" for n in range(2, store.KEEP_SALTS + 2)]


def test_parallel_workers_share_the_cache(tree, tmp_path):
    second = os.path.join(tree, "closed", "Beta")
    shutil.copytree(os.path.join(tree, "closed", "Acme"), second, symlinks=True)
    _rewrite(os.path.join(second, "systems", "edge_sys.json"), '"Acme"', '"Beta"')
    plain = _json(_check(tree))
    cold = ResultCache(str(tmp_path / "c"))
    assert _json(_check(tree, cold, jobs=2)) == plain
    warm = ResultCache(str(tmp_path / "c"))
    assert _json(_check(tree, warm, jobs=2)) == plain
    assert (warm.stats.units_reused, warm.stats.results_checked) == (2, 0)


def test_digest_memo_remembers_settled_files_only(tmp_path):
    path = tmp_path / "file.txt"
    path.write_text("first")
    memo = DigestMemo(str(tmp_path / "memo"), lambda *a: None)
    memo.digest("file.txt", str(path), os.stat(path))
    assert memo.new == {}  # changed just now: it may change again within the same clock tick
    memo.now += 10 * store.RACY_NS
    digest = memo.digest("file.txt", str(path), os.stat(path))
    assert memo.new["file.txt"][5] == digest
    memo.save(lambda *a: pytest.fail("save failed"))
    again = DigestMemo(str(tmp_path / "memo"), lambda *a: None)
    again.old["file.txt"][5] = "remembered"
    assert again.digest("file.txt", str(path), os.stat(path)) == "remembered"
    before = os.stat(path)
    path.write_text("other")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # and the old mtime: ctime still differs
    assert again.digest("file.txt", str(path), os.stat(path)) != "remembered"


def test_damaged_memo_is_a_warning(tmp_path):
    (tmp_path / "memo").write_bytes(b"mlpc-cache %d 0000\n{}" % store.FORMAT)
    seen = []
    memo = DigestMemo(str(tmp_path / "memo"), lambda path, message: seen.append(message))
    assert memo.old == {} and seen and "damaged" in seen[0]


def test_warm_digest_memo_avoids_hashing(tree, tmp_path, monkeypatch):
    monkeypatch.setattr(store, "RACY_NS", -3600 * 10**9)  # the copied files count as settled
    _check(tree, ResultCache(str(tmp_path / "c")))
    _rewrite(os.path.join(tree, OFFLINE, "accuracy", "accuracy.txt"), "rouge1", "rougeQ")
    hashed = []
    real = DigestMemo.digest

    def counting(self, rel, path, st):
        if rel not in self.old or self.old[rel][:5] != [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino,
                                                         st.st_dev]:
            hashed.append(rel)
        return real(self, rel, path, st)

    monkeypatch.setattr(DigestMemo, "digest", counting)
    _check(tree, ResultCache(str(tmp_path / "c")))
    assert hashed == [f"{OFFLINE}/accuracy/accuracy.txt"]


# ---- exact round trips -------------------------------------------------------------------------

def _same(a, b) -> bool:
    """Equal values of exactly the same types (NaN equals NaN)."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return a == b or (a != a and b != b)
    if type(a) in (tuple, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return list(a) == list(b) and all(_same(k1, k2) and _same(a[k1], b[k2]) for k1, k2 in zip(a, b))
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return a == b


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text()
    | st.decimals(allow_nan=False) | st.binary(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=5) | st.integers(), inner, max_size=4),
    max_leaves=12)


def _back(value):
    return store._loads(exact_dumps(value))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(values)
def test_values_round_trip_exactly(value):
    assert _same(_back(value), value)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.text(), st.sampled_from(list(Severity)), st.none() | st.integers(min_value=0), values,
       st.none() | st.text())
def test_findings_round_trip_exactly(message, severity, line, datum, waived):
    finding = Finding(message=message, location=Location("a/b", line, None), expected="x", actual=None,
                      hint="h", code="PF001", severity=severity, result_id="a", waived=waived,
                      data=(("k", datum),))
    back = _back([finding])[0]
    assert type(back.severity) is Severity and _same(back, finding)


def test_summary_round_trips_exactly():
    summary = ResultSummary(id="a/b", division="closed", submitter="S", system="x", model="m", mlperf_model="m",
                            scenario="Offline", scenario_dir="Offline", valid=True, value=0.1 + 0.2, unit="Samples/s",
                            inferred=False, has_power=False, accuracy=(("acc", "76.1"),),
                            system_fields=(("n", 2), ("f", 1.5), ("b", True)))
    back = _back([summary])
    assert back == [summary] and back[0].value == 0.1 + 0.2


class Foreign:
    pass


def test_only_allowed_classes_are_stored_or_loaded(tmp_path):
    with pytest.raises(Uncacheable):
        exact_dumps([Foreign()])
    import pickle
    with pytest.raises(pickle.UnpicklingError):
        store._loads(pickle.dumps(os.getcwd))  # any global outside the allow-list is refused
    cache = ResultCache(str(tmp_path / "c"))
    assert cache.prepare("salt", str(tmp_path / "elsewhere"))
    cache.store("results", "k" * 64, [Foreign()])
    assert cache.load("results", "k" * 64) is None and not list(_entries(tmp_path / "c"))
    nan = Finding("m", Location("p"), data=(("v", math.nan), ("d", Decimal("1.10"))))
    cache.store("results", "n" * 64, [nan])
    assert _same(cache.load("results", "n" * 64), [nan])


def test_a_well_sealed_entry_with_a_foreign_class_is_refused(tmp_path):
    import pickle
    cache = ResultCache(str(tmp_path / "c"))
    assert cache.prepare("salt", str(tmp_path / "elsewhere"))
    path = cache._path("results", "e" * 64)
    os.makedirs(os.path.dirname(path))
    with open(path, "wb") as handle:
        handle.write(store._seal(pickle.dumps(("results", "e" * 64, [Foreign()]))))
    assert cache.load("results", "e" * 64) is None
    assert cache.warnings and "damaged" in cache.warnings[0][1] and not os.path.exists(path)


# ---- the real tree and the CLI -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["v4.1", "v5.1"])
def test_real_report_is_identical_with_and_without_cache(tmp_path, name):
    root = real_tree(name)
    rules = load_rules(name)
    plain_report = check_tree(root, rules)
    plain = _json(plain_report)
    cold = ResultCache(str(tmp_path / "c"))
    assert _json(check_tree(root, rules, cache=cold, jobs=2)) == plain
    warm = ResultCache(str(tmp_path / "c"))
    warm_report = check_tree(root, rules, cache=warm)
    assert _json(warm_report) == plain
    assert warm.stats.results_checked == 0 and warm.stats.results_reused == len(json.loads(plain)["results"])
    # not only the JSON: the objects themselves, field by field and type by type
    assert _same(warm_report.findings, plain_report.findings) and _same(warm_report.results, plain_report.results)


def test_cli_cache_options(tree, tmp_path):
    runner = CliRunner()
    first = runner.invoke(app, ["check", tree, "-f", "json", "--cache-dir", str(tmp_path / "c")])
    second = runner.invoke(app, ["check", tree, "-f", "json", "--cache-dir", str(tmp_path / "c")])
    plain = runner.invoke(app, ["check", tree, "-f", "json", "--no-cache", "--cache-dir", str(tmp_path / "n")])
    assert first.exit_code == second.exit_code == plain.exit_code == 0, first.output
    assert len([p for p in _entries(tmp_path / "c") if f"{os.sep}results{os.sep}" in p]) == 2
    assert not os.path.exists(tmp_path / "n")
    assert first.output == second.output == plain.output and json.loads(first.output)["counts"]["results"] == 2
