"""Submitter folders read ahead in a thread (``checker.loaders.prewalk``): what a worker builds from them is the
walk it would have made, a folder is taken once, the walk uses what was read, and nothing starts where the
extension is not there or the folder is no submission root."""

from __future__ import annotations

import os

import pytest

from checker.loaders import prewalk, tree
from checker.loaders.compiled import compiled
from checker.loaders.fs import Sandbox
from checker.loaders.rules import load_rules
from tests.conftest import REAL

needs_walk = pytest.mark.skipif(compiled("snapshots", "_walk_scan") is None,
                                reason="the C extension checker._walk_scan is not built here")
RULES = load_rules("v4.1")


@pytest.fixture(autouse=True)
def _clean():
    yield
    prewalk.finish()
    prewalk.drop()


def _root() -> str:
    root = os.path.join(REAL, "v4.1")
    if not os.path.isdir(root):
        pytest.skip(f"real submission data not found at {root} (set MLPC_SHARED to the shared/ folder)")
    return root


def _units(root: str) -> list[str]:
    return [f"{d}/{s}" for d in prewalk.DIVISIONS if os.path.isdir(os.path.join(root, d))
            for s in sorted(os.listdir(os.path.join(root, d)))]


@needs_walk
def test_a_worker_builds_from_what_was_read_the_walk_it_would_have_made(monkeypatch):
    root = _root()
    expected = {rel: tree._walk_submitter(Sandbox(root), rel, RULES) for rel in _units(root)}
    assert prewalk.start(root)
    prewalk._thread.join()  # (read to the end: finish() would stop it wherever it is)
    prewalk.finish()
    walked = []
    monkeypatch.setattr(tree, "_WALK", lambda *args: walked.append(args) or None)  # (the folder read again)
    for rel, walk in expected.items():
        assert tree._walk_submitter(Sandbox(root), rel, RULES) == walk, rel
    assert walked == []  # every submitter folder of the subset was read ahead (far under the folder limit)
    assert prewalk.take(os.path.join(root, _units(root)[0])) is None  # taken once


@needs_walk
def test_taking_stops_the_reading_and_a_folder_not_read_is_walked(tmp_path):
    root = _root()
    assert prewalk.start(root)
    prewalk.take(os.path.join(root, "closed", "no such submitter"))  # (waits for the thread)
    assert prewalk._thread is None
    os.makedirs(tmp_path / "closed" / "S")
    (tmp_path / "closed" / "S" / "a.txt").write_text("a")
    got = tree._walk_submitter(Sandbox(str(tmp_path)), "closed/S", RULES)
    assert got["known"] == {"closed/S": ({"a.txt": 1}, frozenset())}


def test_nothing_starts_without_the_extension_or_outside_a_submission_root(tmp_path, monkeypatch):
    assert not prewalk.start(str(tmp_path))  # no division folder
    os.makedirs(tmp_path / "open")
    monkeypatch.setenv("MLPC_PURE_PYTHON", "1")
    assert not prewalk.start(str(tmp_path))
    assert prewalk._thread is None and prewalk.take(str(tmp_path / "open" / "x")) is None


@needs_walk
def test_what_was_not_taken_is_dropped():
    root = _root()
    assert prewalk.start(root)
    prewalk._thread.join()
    prewalk.finish()
    assert prewalk._read
    prewalk.drop()
    assert not prewalk._read


def test_the_folders_read_ahead_are_the_divisions_of_every_round_file():
    """The reading starts before the round is known: its division names must be those of every round file."""
    from checker.loaders.rules import available_rounds

    assert {d for r in available_rounds() for d in load_rules(r).divisions} == set(prewalk.DIVISIONS)


@needs_walk
def test_a_thread_that_cannot_start_leaves_the_walk_to_the_workers(monkeypatch):
    import threading

    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    assert not prewalk.start(_root())
    assert prewalk._thread is None and prewalk.take(os.path.join(_root(), "closed", "x")) is None
