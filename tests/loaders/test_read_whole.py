"""``read_whole`` reads a walked file with one ``read`` of the size the walk saw; a file that changed since the
walk must still be read as it is now (to its end, or past the read limit so that the caller refuses it), and
``Sandbox.read_bytes`` must give what a plain read gives, keeping a digest where one is asked for."""

from __future__ import annotations

import hashlib

import pytest

from checker.loaders.fs import Sandbox, read_whole
from checker.loaders.rules import load_rules
from checker.loaders.tree import _walk_submitter


@pytest.mark.parametrize("content", [b"", b"x", b"line\n" * 1000, bytes(range(256)) * 300])
@pytest.mark.parametrize("seen", ["same", "grew", "shrank"])
def test_read_whole_is_the_file_now(tmp_path, content, seen):
    path = tmp_path / "f.bin"
    path.write_bytes(content)
    size = {"same": len(content), "grew": max(len(content) - 3, 0), "shrank": len(content) + 7}[seen]
    assert read_whole(str(path), size, limit=1 << 20) == content


def test_read_whole_stops_past_the_limit(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"a" * 5000)
    data = read_whole(str(path), 10, limit=100)  # grew far past the limit since the walk
    assert 100 < len(data) <= 5000 and data == b"a" * len(data)


def test_read_whole_of_a_folder_raises(tmp_path):
    with pytest.raises(OSError):
        read_whole(str(tmp_path), 0, limit=100)


def _walked(tmp_path):
    base = tmp_path / "root" / "closed" / "Acme" / "results"
    base.mkdir(parents=True)
    (base / "a.txt").write_bytes(b"hello\n")
    (base / "b.txt").write_bytes(b"x" * 64)
    box = Sandbox(str(tmp_path / "root"))
    walk = _walk_submitter(box, "closed/Acme", load_rules("v4.1"))
    box.trust("closed/Acme", tuple(walk["links"]), walk["known"])
    return box, base


def test_read_bytes_after_the_walk(tmp_path):
    box, base = _walked(tmp_path)
    box.digest_below(["closed/Acme/results"])
    assert box.read_bytes("closed/Acme/results/a.txt") == (b"hello\n", None)
    assert box.digests["closed/Acme/results/a.txt"] == hashlib.sha256(b"hello\n").hexdigest()
    (base / "b.txt").write_bytes(b"y" * 200)  # grew past the limit since the walk
    data, error = box.read_bytes("closed/Acme/results/b.txt", limit=100)
    assert data is None and error.startswith("file is at least") and "100-byte read limit" in error
    assert "closed/Acme/results/b.txt" not in box.digests  # a refused read keeps no digest
    (base / "a.txt").unlink()
    data, error = box.read_bytes("closed/Acme/results/a.txt")
    assert data is None and error.startswith("cannot read file:")
