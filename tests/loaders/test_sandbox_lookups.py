"""What ``Sandbox`` answers from the walk's listings (``is_file``, ``is_dir``, ``size``, ``read_bytes``) must be
what it answers without them (the file system asked), and ``Sandbox.open`` of a small walked file (read whole
into memory) must read as the plain file does: the same bytes through ``read``, ``readline``, ``seek``, the same
digest, and a file changed or removed since the walk read as it is now."""

from __future__ import annotations

import hashlib

import pytest

from checker.loaders import fs
from checker.loaders.fs import Sandbox
from checker.loaders.rules import load_rules
from checker.loaders.tree import _walk_submitter

SUB = "closed/Acme"
NAMES = ["a.txt", "empty.txt", "big.bin", "sub", "sub/x.txt", "missing", "sub/missing", "no/such/file", "", ".",
         "..", "sub/.", "sub/..", "a.txt/x"]


def _tree(tmp_path):
    base = tmp_path / "root" / "closed" / "Acme"
    (base / "sub").mkdir(parents=True)
    (base / "a.txt").write_bytes(b"line one\nline two\n" * 50)
    (base / "empty.txt").write_bytes(b"")
    (base / "big.bin").write_bytes(bytes(range(256)) * 5000)  # above SMALL_FILE_BYTES once it is lowered
    (base / "sub" / "x.txt").write_bytes(b"x\n")
    return tmp_path / "root", base


def _walked(root):
    box = Sandbox(str(root))
    walk = _walk_submitter(box, SUB, load_rules("v4.1"))
    box.trust(SUB, tuple(walk["links"]), walk["known"])
    return box


@pytest.mark.parametrize("name", NAMES)
def test_walked_answers_are_the_file_systems(tmp_path, name):
    root, _ = _tree(tmp_path)
    walked, plain = _walked(root), Sandbox(str(root))
    rel = f"{SUB}/{name}" if name else SUB
    assert walked._known  # (the walk's listings are there to answer from)
    for ask in ("is_file", "is_dir", "size", "read_bytes", "read_text"):
        assert getattr(walked, ask)(rel) == getattr(plain, ask)(rel), (ask, rel)


def _read_all_ways(handle) -> list:
    got = [handle.read(5), handle.readline(), handle.read(0)]
    handle.seek(3)
    got += [handle.readline(), handle.read(), handle.read()]
    handle.seek(0)
    got.append(handle.read())
    return got


@pytest.mark.parametrize("name", ["a.txt", "empty.txt", "big.bin", "sub/x.txt"])
@pytest.mark.parametrize("small", [1024 * 1024, 100])
def test_open_reads_as_the_plain_file(tmp_path, monkeypatch, name, small):
    monkeypatch.setattr(fs, "SMALL_FILE_BYTES", small)
    root, base = _tree(tmp_path)
    box = _walked(root)
    rel = f"{SUB}/{name}"
    with open(base / name, "rb") as plain:
        expected = _read_all_ways(plain)
    in_memory = box._small(rel) is not None
    assert in_memory == ((base / name).stat().st_size <= small)
    with box.open(rel) as handle:
        assert _read_all_ways(handle) == expected
    reader = box.open(rel, hashing=True)
    assert reader.peek(7) == (base / name).read_bytes()[:7]
    assert reader.hexdigest() == hashlib.sha256((base / name).read_bytes()).hexdigest()
    reader.close()
    box.digest_below([SUB])
    with box.open(rel) as handle:
        handle.read(3)
    assert box.digests[rel] == hashlib.sha256((base / name).read_bytes()).hexdigest()


def test_open_of_a_file_changed_since_the_walk(tmp_path):
    root, base = _tree(tmp_path)
    box = _walked(root)
    (base / "a.txt").write_bytes(b"grown " * 100)  # another size than the walk saw: read as it is now
    assert box._small(f"{SUB}/a.txt") is None
    with box.open(f"{SUB}/a.txt") as handle:
        assert handle.read() == b"grown " * 100
    (base / "sub" / "x.txt").unlink()  # removed: the error open() gives
    with pytest.raises(FileNotFoundError):
        box.open(f"{SUB}/sub/x.txt")
    (base / "empty.txt").unlink()
    (base / "empty.txt").mkdir()  # a folder now: the error open() gives
    with pytest.raises(IsADirectoryError):
        box.open(f"{SUB}/empty.txt")
