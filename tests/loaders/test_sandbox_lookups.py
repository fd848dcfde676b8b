"""What ``Sandbox`` answers from the walk's listings (``is_file``, ``is_dir``, ``size``, ``read_bytes``) must be
what it answers without them (the file system asked)."""

from __future__ import annotations

import pytest

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
    (base / "big.bin").write_bytes(bytes(range(256)) * 5000)
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

