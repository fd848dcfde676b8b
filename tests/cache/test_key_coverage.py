"""The result key covers every file a result-scope check reads.

The cache reuses a result's findings while its key is unchanged, so a result check that reads a file
outside what ``checker.cache.result_key`` covers would give stale verdicts. This test runs every
result-scope check on every fixture tree and the real trees while recording each path they touch
(open, stat, listing) and fails on any path inside the tree that the key does not cover. A new check
that reads somewhere new must widen ``result_key`` (and this test's ``covered``) first.
"""

import builtins
import io
import os

import pytest

from checker.diagnostics import MlpcError
from checker.engine import PROFILES, _run
from checker.loaders.detect import detect_round
from checker.loaders.rules import load_rules
from checker.loaders.tree import load_tree
from checker.registry import ALL_CHECKS
from tests.conftest import REAL, REPO

FIXTURES = os.path.join(REPO, "fixtures", "checks")
TREES = sorted(os.path.join(FIXTURES, d) for d in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, d)))
TREES += [os.path.join(REAL, name) for name in ("v4.1", "v5.1") if os.path.isdir(os.path.join(REAL, name))]
RESULT_CHECKS = tuple(c for c in ALL_CHECKS if c.scope == "result")


def covered(rel: str, result, depth: int) -> bool:
    """Mirror of what checker.cache.result_key hashes for ``result``."""
    sub = f"{result.division}/{result.submitter}"
    tail = f"{result.system.system}/{result.model_dir}/{result.scenario_dir}"
    meas = f"{sub}/measurements/{tail}"

    def under(folder):
        return rel == folder or rel.startswith(folder + "/")

    if any(under(f) for f in (result.rel.rsplit("/", 1)[0], meas, f"{sub}/compliance/{tail}")):
        return True
    if rel == "." or any(f.startswith(rel + "/") for f in (result.rel, meas, result.code_rel)):
        return True  # a folder above: resolving a path (realpath) looks at each of them
    probe = meas
    for _ in range(depth):
        probe = os.path.dirname(probe)
        if rel == probe or os.path.dirname(rel) == probe:
            return True
    return rel in (result.system.rel, f"{sub}/code/{result.model_dir}") or under(result.code_rel)


class Recorder:
    def __init__(self, root):
        self.root = os.path.realpath(root)
        self.seen: list[str] = []

    def note(self, path):
        if isinstance(path, int):
            return
        try:
            full = os.path.abspath(os.fsdecode(path))
        except (TypeError, ValueError):
            return
        if full == self.root or full.startswith(self.root + os.sep):
            self.seen.append(os.path.relpath(full, self.root).replace(os.sep, "/"))

    def wrap(self, func):
        def spy(path, *args, **kwargs):
            self.note(path)
            return func(path, *args, **kwargs)
        return spy


def _rules_for(path):
    try:
        return load_rules(detect_round(path)[0])
    except MlpcError:
        return load_rules("v4.1")


@pytest.mark.parametrize("path", TREES, ids=[os.path.relpath(t, REPO) if t.startswith(REPO) else os.path.basename(t)
                                             for t in TREES])
def test_result_checks_read_only_what_the_key_covers(path, monkeypatch):
    rules = _rules_for(path)
    tree = load_tree(path, rules)
    recorder = Recorder(tree.root.root)
    for name in ("stat", "lstat", "scandir", "listdir", "readlink", "open"):
        monkeypatch.setattr(os, name, recorder.wrap(getattr(os, name)))
    monkeypatch.setattr(builtins, "open", recorder.wrap(builtins.open))
    monkeypatch.setattr(io, "open", recorder.wrap(io.open))  # pathlib reads through io.open
    outside = []
    depth = rules.power.measure_file_ancestor_depth
    for result in tree.results:
        recorder.seen = []
        for item in RESULT_CHECKS:
            _run(item, result, rules, PROFILES["default"], [])
        outside += [(result.rel, rel) for rel in recorder.seen if not covered(rel, result, depth)]
    assert outside == [], f"result checks read files the cache key does not cover: {sorted(set(outside))[:10]}"


@pytest.mark.parametrize("path", TREES, ids=[os.path.relpath(t, REPO) if t.startswith(REPO) else os.path.basename(t)
                                             for t in TREES])
def test_a_submitter_reads_only_its_folder(path, monkeypatch):
    """The unit key covers one submitter folder: loading it and running every check of scopes
    submitter to result must not read elsewhere in the tree (links are followed by the key itself),
    and round-scope checks read nothing at all."""
    from checker.pipeline import check_unit
    from checker.loaders.tree import load_top

    rules = _rules_for(path)
    top, units = load_top(path, rules)
    recorder = Recorder(top.root.root)
    for name in ("stat", "lstat", "scandir", "listdir", "readlink", "open"):
        monkeypatch.setattr(os, name, recorder.wrap(getattr(os, name)))
    monkeypatch.setattr(builtins, "open", recorder.wrap(builtins.open))
    monkeypatch.setattr(io, "open", recorder.wrap(io.open))
    outside = []
    for division, submitter in units:
        recorder.seen = []
        sub = f"{division}/{submitter}"
        check_unit(top.root.root, division, submitter, rules, PROFILES["default"])
        seen, recorder.seen = recorder.seen, []
        # the key follows links inside the tree: what a link points to is covered too
        real_root = os.path.realpath(top.root.root)
        targets = {os.path.relpath(os.path.realpath(os.path.join(top.root.root, rel)), real_root)
                   for rel in seen if os.path.islink(os.path.join(top.root.root, rel))}
        allowed = [sub] + [t for t in targets if not t.startswith("..")]
        outside += [rel for rel in seen
                    if not any(rel == a or rel.startswith(a + "/") or a.startswith(rel + "/") for a in allowed)
                    and rel != "."]
    assert outside == [], f"a submitter's check read outside its folder: {sorted(set(outside))[:10]}"
