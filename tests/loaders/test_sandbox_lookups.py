"""What ``Sandbox`` answers from the walk's listings (``is_file``, ``is_dir``, ``size``, ``read_bytes``) must be
what it answers without them (the file system asked)."""

from __future__ import annotations

import pytest

from checker.loaders.fs import Sandbox
from checker.loaders.rules import load_rules
from checker.loaders.tree import _walk_submitter

SUB = "closed/Acme"
NAMES = ["a.txt", "empty.txt", "big.bin", "sub", "sub/x.txt", "missing", "sub/missing", "no/such/file", "", ".",
         "..", "sub/.", "sub/..", "a.txt/x", "no/such/dir/x", "sub/missing/x", "sub/missing/deeper/x", "a.txt/x/y",
         "sub/x.txt/y", "sub/../a.txt", "sub/./x.txt", "no/../a.txt"]


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



@pytest.mark.parametrize("name", ["no/such/dir/x", "sub/missing/x", "sub/missing/deeper/x", "a.txt/x/y", "sub/x.txt/y"])
def test_paths_below_a_folder_the_walk_saw_missing_are_answered_without_the_file_system(tmp_path, monkeypatch, name):
    """A result's compliance folder is asked about whether or not it is there: when the walk listed a folder
    above it that lacks the next folder on the way, no stat or realpath is made."""
    import checker.loaders.fs as fs

    root, _ = _tree(tmp_path)
    walked = _walked(root)

    def asked(*args, **kwargs):
        raise AssertionError(f"the file system was asked about {args}")

    monkeypatch.setattr(fs.os.path, "isdir", asked)
    monkeypatch.setattr(fs.os.path, "isfile", asked)
    monkeypatch.setattr(fs.os.path, "realpath", asked)
    assert not walked.is_dir(f"{SUB}/{name}")
    assert not walked.is_file(f"{SUB}/{name}")


def test_a_folder_holding_a_link_is_still_asked_about(tmp_path):
    """The walk does not vouch for a folder holding a link: what lies below the link is found on disk."""
    root, base = _tree(tmp_path)
    (base / "linked").symlink_to(base / "sub", target_is_directory=True)
    walked, plain = _walked(root), Sandbox(str(root))
    for name in ("linked", "linked/x.txt", "linked/missing/x"):
        rel = f"{SUB}/{name}"
        for ask in ("is_file", "is_dir"):
            assert getattr(walked, ask)(rel) == getattr(plain, ask)(rel), (ask, rel)
    assert walked.is_file(f"{SUB}/linked/x.txt")
