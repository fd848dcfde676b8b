"""The warm path (checker/warm.py): an unchanged tree is answered from the cache alone, with the report a
check without the cache gives, byte for byte; any change to the tree (in a unit or outside, in place or
by adding or removing a file), a damaged entry or a recent file sends the check the usual way."""

import json
import os
import subprocess
import sys
import time

import pytest

from checker import api
from checker import cache as store
from checker.cache import ResultCache
from checker.reporters import json_report, text

OFFLINE = "closed/Acme/results/edge_sys/gptj-99/Offline"
RACY_S = store.RACY_NS / 1e9  # (the tests below close the racy window; a new process has it open)
ACCURACY = os.path.join(OFFLINE, "accuracy", "accuracy.txt")


@pytest.fixture(autouse=True)
def settled(monkeypatch):
    """A freshly copied tree is all "recently changed" (ctime cannot be set back): the racy window is
    closed here; test_recent_files_are_not_vouched_for opens it again."""
    monkeypatch.setattr(store, "RACY_NS", 0)


class Took:
    """Which way each check went: the usual way runs checker.api._check."""

    def __init__(self, monkeypatch):
        self.usual = 0
        real = api._check

        def counted(*args, **kwargs):
            self.usual += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(api, "_check", counted)


def _reports(root, cache=False, **options):
    report = api.check(root, cache=cache, **options)
    report.elapsed_s = 0.0  # the one field meant to differ (the text report shows it)
    return json_report.render(report), text.render(report, details=True, show_info=True)


def _cache(tmp_path):
    return ResultCache(str(tmp_path / "cache"))


def test_a_warm_report_is_the_report_without_the_cache(base_tree, tmp_path, monkeypatch):
    took = Took(monkeypatch)
    plain = _reports(base_tree)
    for spool in (False, True):
        assert _reports(base_tree, _cache(tmp_path), spool=spool) == plain  # cold, then warm
    warm = _cache(tmp_path)
    assert _reports(base_tree, warm) == plain
    assert took.usual == 2  # the plain check and the cold one; both re-checks were warm
    assert (warm.stats.units_reused, warm.stats.units_checked, warm.warnings) == (1, 0, [])
    # the warm path's report is the usual way's even in the fields the renderers leave out
    usual, quick = api.check(base_tree, cache=False), api.check(base_tree, cache=_cache(tmp_path))
    assert quick.results == usual.results and list(quick.findings) == list(usual.findings)
    assert (quick.root, quick.round, quick.round_reason, quick.profile, quick.checks_run, quick.fingerprint) == \
        (usual.root, usual.round, usual.round_reason, usual.profile, usual.checks_run, usual.fingerprint)


def test_options_have_their_own_entries(base_tree, tmp_path, monkeypatch):
    took = Took(monkeypatch)
    for options in ({}, {"round": "v4.1"}, {"profile": "smoke"}, {"round": "v4.1", "profile": "official"}):
        plain = _reports(base_tree, **options)
        assert _reports(base_tree, _cache(tmp_path), **options) == plain
        before = took.usual
        assert _reports(base_tree, _cache(tmp_path), **options) == plain
        assert took.usual == before, options


def _same_size_edit(path: str, old: str, new: str) -> None:
    """The edit a submitter hoping for a better number makes: in place, same size, old mtime put back."""
    before = os.stat(path)
    with open(path, encoding="utf-8") as handle:
        content = handle.read()
    assert old in content and len(old) == len(new)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(content.replace(old, new))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # only ctime tells


@pytest.mark.parametrize("change", ["in place", "added", "removed", "outside the units", "folder added"])
def test_any_change_is_checked_the_usual_way(base_tree, tmp_path, monkeypatch, change):
    took = Took(monkeypatch)
    _reports(base_tree, _cache(tmp_path))
    path = os.path.join(base_tree, ACCURACY)
    if change == "in place":
        _same_size_edit(path, "'rouge1': 43.1", "'rouge1': 41.0")  # below the target: AC001
    elif change == "added":
        with open(os.path.join(base_tree, OFFLINE, "accuracy", "notes.txt"), "w") as handle:
            handle.write("x")
    elif change == "removed":
        os.remove(path)
    elif change == "outside the units":
        with open(os.path.join(base_tree, "closed", "stray.txt"), "w") as handle:
            handle.write("x")
    else:
        os.mkdir(os.path.join(base_tree, "open"))
    plain = _reports(base_tree)
    before = took.usual
    assert _reports(base_tree, _cache(tmp_path)) == plain
    assert took.usual == before + 1
    if change == "in place":
        assert '"AC001"' in plain[0]
    assert _reports(base_tree, _cache(tmp_path)) == plain  # and the next re-check is warm again
    assert took.usual == before + 1


def _entries(cache_dir, kind):
    return [os.path.join(d, f) for d, _, files in os.walk(cache_dir) if f"/{kind}/" in d + "/" for f in files]


@pytest.mark.parametrize("kind", ["trees", "stats", "units", "rounds"])
def test_a_damaged_entry_is_a_warning_and_the_usual_way(base_tree, tmp_path, monkeypatch, kind):
    plain = json_report.render(api.check(base_tree, cache=False))
    api.check(base_tree, cache=_cache(tmp_path))
    found = _entries(str(tmp_path / "cache"), kind)
    assert len(found) == 1, found
    with open(found[0], "r+b") as handle:
        handle.seek(-3, os.SEEK_END)
        handle.write(b"xyz")
    took = Took(monkeypatch)
    damaged = _cache(tmp_path)
    report = api.check(base_tree, cache=damaged)
    assert took.usual == 1
    assert [m.split(" (")[0] for _, m in damaged.warnings] == ["cache entry is damaged"]
    assert [f.code for f in report.findings if f.code == "TL004"] == ["TL004"]
    report.findings = [f for f in report.findings if f.code != "TL004"]
    assert json_report.render(report) == plain


def test_what_the_warm_path_cannot_vouch_for(base_tree, tmp_path, monkeypatch):
    took = Took(monkeypatch)
    os.symlink("edge_sys.json", os.path.join(base_tree, "closed", "Acme", "systems", "link.json"))
    api.check(base_tree, cache=_cache(tmp_path))
    api.check(base_tree, cache=_cache(tmp_path))
    assert took.usual == 2 and not _entries(str(tmp_path / "cache"), "trees")
    # not for a git ref, nor a check of a few submitters (`only`), nor a throw-away tree's cache
    os.remove(os.path.join(base_tree, "closed", "Acme", "systems", "link.json"))
    api.check(base_tree, cache=_cache(tmp_path), only=[os.path.join(base_tree, "closed", "Acme")])
    assert not _entries(str(tmp_path / "cache"), "trees")
    api.check(base_tree, cache=ResultCache(str(tmp_path / "cache"), persist_memo=False))
    assert not _entries(str(tmp_path / "cache"), "trees")


def test_recent_files_are_not_vouched_for(base_tree, tmp_path, monkeypatch):
    monkeypatch.setattr(store, "RACY_NS", 60 * 10**9)
    api.check(base_tree, cache=_cache(tmp_path))
    assert not _entries(str(tmp_path / "cache"), "trees") and _entries(str(tmp_path / "cache"), "units")


PROBE = """
import sys
sys.argv[0] = "mlpc"  # as the console script runs it
from checker.cli import app
try:
    app()
finally:
    heavy = sorted(m for m in sys.modules if m in ("checker.engine", "checker.registry", "checker.context",
                   "checker.loaders.tree", "checker.loaders.detect", "checker.models.rules", "pydantic")
                   or m.startswith("checker.checks."))
    print("HEAVY", " ".join(heavy), file=sys.stderr)
"""


def test_a_warm_re_check_in_a_new_process_loads_no_check(base_tree, tmp_path):
    """The command line, as a user runs it twice: the second run imports none of the checks, the round
    file's model or pydantic, and writes the same report."""
    time.sleep(RACY_S + 0.2)  # the copied files must be older than the racy window
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))}
    outputs = []
    for number in (1, 2):
        output = str(tmp_path / f"r{number}.json")
        run = subprocess.run([sys.executable, "-c", PROBE, "check", base_tree, "--format", "json", "--quiet",
                              "--output", output, "--cache-dir", str(tmp_path / "cache")],
                             capture_output=True, text=True, env=env, timeout=300)
        assert run.returncode in (0, 1), run.stderr
        heavy = run.stderr.split("HEAVY", 1)[1].split()
        outputs.append((heavy, open(output, "rb").read()))
    assert "checker.engine" in outputs[0][0]  # the first run checks
    assert outputs[1][0] == []
    assert outputs[1][1] == outputs[0][1]
    assert json.loads(outputs[1][1])["counts"]["results"] > 0


def test_after_a_change_the_unchanged_units_are_not_walked_again(base_tree, tmp_path, monkeypatch):
    import shutil

    shutil.copytree(os.path.join(base_tree, "closed", "Acme"), os.path.join(base_tree, "closed", "Beta"))
    took = Took(monkeypatch)
    api.check(base_tree, cache=_cache(tmp_path))
    _same_size_edit(os.path.join(base_tree, ACCURACY), "'rouge1': 43.1", "'rouge1': 41.0")
    walked = []
    real = store.stat_manifest

    def counted(root, rel_dir="", skip=frozenset()):
        walked.append(rel_dir)
        return real(root, rel_dir, skip)

    monkeypatch.setattr(store, "stat_manifest", counted)
    changed = _cache(tmp_path)
    report = json_report.render(api.check(base_tree, cache=changed))
    assert took.usual == 2 and changed.stats.units_reused == 1 and changed.stats.units_checked == 1
    assert "closed/Beta" not in walked and "closed/Acme" in walked
    monkeypatch.setattr(store, "stat_manifest", real)
    assert report == json_report.render(api.check(base_tree, cache=False))
