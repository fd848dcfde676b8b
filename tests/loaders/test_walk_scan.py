"""The walk of a submitter folder in C (``checker/_walk_scan.c``) against the scandir walk it stands for
(``checker.loaders.tree._scandir_walk``): the same folders, names, sizes and order on the real trees and on
folders made to hold every case, and a refusal (the scandir walk then runs) wherever that walk has more to say."""

from __future__ import annotations

import os
import socket

import pytest

from checker.loaders import tree
from checker.loaders.compiled import compiled
from checker.loaders.fs import Sandbox
from checker.loaders.rules import load_rules
from tests.conftest import REAL

walk = compiled("walk", "_walk_scan")
snapshots, build = compiled("snapshots", "_walk_scan"), compiled("build", "_walk_scan")
needs_walk = pytest.mark.skipif(walk is None and not os.environ.get("CI"),
                                reason="the C extension checker._walk_scan is not built here")
RULES = load_rules("v5.1")


def test_the_extension_is_built_on_ci():
    """CI installs the project with a compiler: the extension must be there, or the fast path is untested."""
    if os.environ.get("CI") and walk is None:
        pytest.fail("checker._walk_scan was not built (is a C compiler and Python.h installed?)")


def _both(root: str, rel: str, rules=RULES):
    """(C walk or None, scandir walk) of ``rel`` below ``root``; the C walk's is what _walk_submitter returns."""
    box = Sandbox(root)
    fresh = {k: [] for k in ("broken", "escaping", "large", "hidden", "spaced", "pycache", "empty", "errors", "links")}
    fast = walk(os.fsencode(box.abs(rel)), rel, rules.file_size_limit_bytes)
    return (tree._walk_submitter(box, rel, rules) if fast is not None else None), tree._scandir_walk(box, rel, rules, fresh)


def _read_ahead(path: bytes, rel: str, limit: int):
    """What a snapshot of ``path`` read ahead gives (None where the snapshot or its building declines)."""
    (taken,) = snapshots([path], 10**9)
    return None if taken is None else build(taken, rel, limit)


def _same(root: str, rel: str, rules=RULES) -> bool:
    """The C walk, when it takes the folder, gives what the scandir walk gives (in the same order), and so does
    its snapshot read ahead; True when taken."""
    fast, slow = _both(root, rel, rules)
    path = os.fsencode(Sandbox(root).abs(rel))
    direct, ahead = walk(path, rel, rules.file_size_limit_bytes), _read_ahead(path, rel, rules.file_size_limit_bytes)
    assert direct == ahead and (direct is None or [list(direct[0].items())] == [list(ahead[0].items())])
    if fast is None:
        return False
    assert list(fast) == list(slow)
    for key in slow:
        if key == "known":
            assert list(fast["known"].items()) == list(slow["known"].items())
            for folder, (files, dirs) in fast["known"].items():
                assert list(files.items()) == list(slow["known"][folder][0].items()) and type(dirs) is frozenset
        else:
            assert fast[key] == slow[key], key
    return True


def _submitters(round_name: str):
    root = os.path.join(REAL, round_name)
    if not os.path.isdir(root):
        pytest.skip(f"real submission data not found at {root} (set MLPC_SHARED to the shared/ folder)")
    for division in sorted(os.listdir(root)):
        if os.path.isdir(os.path.join(root, division)):
            for submitter in sorted(os.listdir(os.path.join(root, division))):
                yield root, f"{division}/{submitter}"


@needs_walk
@pytest.mark.parametrize("round_name", ["v4.1", "v5.1", "v6.0", "v6.1"])
def test_every_real_submitter_walks_the_same(round_name):
    taken = [_same(root, rel) for root, rel in _submitters(round_name)]
    assert taken and all(taken)  # no link or odd name in the real trees: the C walk takes every one


def _make(root, files: dict[str, bytes], folders=()):
    for rel, data in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
    for rel in folders:
        os.makedirs(os.path.join(root, rel), exist_ok=True)


@needs_walk
def test_odd_but_plain_names_sizes_and_folders(tmp_path):
    """Hidden and spaced names, __pycache__ (empty and not), empty folders, files over the size limit, names
    that sort differently as bytes and as letters (all UTF-8: the same), deep folders."""
    files = {"closed/S/.hidden": b"x", "closed/S/a b/c d.txt": b"12", "closed/S/__pycache__/m.pyc": b"\0" * 9,
             "closed/S/x/__pycache__/.keep": b"", "closed/S/Z": b"z", "closed/S/a": b"a" * 5000,
             "closed/S/é/ü.json": b"{}", "closed/S/日本/語": b"1", "closed/S/b/" + "d/" * 30 + "f": b"deep",
             "closed/S/.git/config": b"[core]", "closed/S/A-_.~": b"", "closed/S/a.": b"", "closed/S/a0": b""}
    _make(tmp_path, files, folders=["closed/S/empty", "closed/S/x/empty too", "closed/S/__pycache__/inner",
                                    "closed/S/.dotdir"])
    assert _same(str(tmp_path), "closed/S")
    small = RULES.model_copy(update={"file_size_limit_bytes": 4})
    assert _same(str(tmp_path), "closed/S", small)
    fast, _ = _both(str(tmp_path), "closed/S", small)
    assert {issue.rel for issue in fast["large"]} == {"closed/S/a", "closed/S/__pycache__/m.pyc", "closed/S/.git/config"}
    assert _same(str(tmp_path), "closed/S/__pycache__")  # the walked folder itself named __pycache__
    _make(tmp_path, {}, folders=["closed/E"])
    assert _same(str(tmp_path), "closed/E")  # the walked folder itself empty


@needs_walk
def test_it_declines_where_the_scandir_walk_has_more_to_say(tmp_path):
    """A link (in the folder or below), a fifo, a socket, a name that is not UTF-8, a folder that is not
    there: None, and _walk_submitter still answers through the scandir walk."""
    cases = []
    for case in ("link", "deep link", "dangling", "fifo", "socket", "latin-1", "missing"):
        root = tmp_path / case.replace(" ", "_")
        _make(root, {"closed/S/a.txt": b"a", "closed/S/sub/b.txt": b"b"})
        sub = root / "closed" / "S"
        if case == "link":
            os.symlink("a.txt", sub / "l")
        elif case == "deep link":
            os.symlink("../a.txt", sub / "sub" / "l")
        elif case == "dangling":
            os.symlink("nowhere", sub / "sub" / "l")
        elif case == "fifo":
            os.mkfifo(sub / "sub" / "f")
        elif case == "socket":
            server = socket.socket(socket.AF_UNIX)
            server.bind(os.fspath(sub / "s"))
            cases.append(server)
        elif case == "latin-1":
            with open(os.fsencode(sub) + b"/caf\xe9.txt", "wb") as handle:
                handle.write(b"x")
        rel = "closed/T" if case == "missing" else "closed/S"
        box = Sandbox(str(root))
        assert walk(os.fsencode(box.abs(rel)), rel, RULES.file_size_limit_bytes) is None, case
        (taken,) = snapshots([os.fsencode(box.abs(rel))], 100)
        if case == "latin-1":  # read, and declined when its names are made
            assert build(taken, rel, RULES.file_size_limit_bytes) is None
        else:
            assert taken is None, case
        got = tree._walk_submitter(box, rel, RULES)
        if case in ("link", "deep link", "dangling"):
            assert got["links"], case
        if case == "missing":
            assert got["errors"], case
        if case == "latin-1":
            assert "closed/S/caf\udce9.txt" in {f"closed/S/{n}" for n in got["known"]["closed/S"][0]}
    for server in cases:
        server.close()


@needs_walk
def test_snapshots_stop_at_the_folder_limit_and_take_only_bytes(tmp_path):
    _make(tmp_path, {"closed/A/x/a": b"1", "closed/B/b": b"2", "closed/C/c": b"3"})
    paths = [os.fsencode(tmp_path / "closed" / name) for name in "ABC"]
    taken = snapshots(paths, 2)  # A holds two folders: the limit is reached after it
    assert taken[0] is not None and taken[1:] == [None, None]
    assert build(taken[0], "closed/A", 10) == walk(paths[0], "closed/A", 10)
    assert snapshots([], 5) == [] and snapshots([b"/no\0where"], 5) == [None]
    with pytest.raises(TypeError):
        snapshots(["not bytes"], 5)
    with pytest.raises((TypeError, ValueError)):
        build("not a snapshot", "x", 10)


@needs_walk
def test_bad_arguments_raise_or_decline():
    assert walk(b"/no\0where", "x", 10) is None
    with pytest.raises(TypeError):
        walk("not bytes", "x", 10)
    with pytest.raises(TypeError):
        walk(b"/", b"not str", 10)
