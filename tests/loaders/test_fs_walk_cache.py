"""A Sandbox that has walked a folder answers listings and file tests from the walk; the answers must be
those of the file system itself, for every kind of entry and every odd path."""

from __future__ import annotations

import os

import pytest

from checker.loaders.fs import Sandbox
from checker.loaders.rules import load_rules
from checker.loaders.tree import _walk_submitter

SUB = "closed/Acme"


@pytest.fixture()
def tree(tmp_path):
    root = tmp_path / "root"
    base = root / SUB
    (base / "results" / "sys" / "resnet50" / "Offline" / "performance" / "run_1").mkdir(parents=True)
    (base / "results" / "sys" / "resnet50" / "Offline" / "performance" / "run_1" / "mlperf_log_detail.txt").write_text("x" * 50)
    (base / "results" / "sys" / "resnet50" / "Offline" / "accuracy").mkdir()
    (base / "results" / "sys" / "resnet50" / "Offline" / "accuracy" / "accuracy.txt").write_text("acc=76.1\n")
    (base / "empty").mkdir()
    (base / "linked").mkdir()
    (base / "linked" / "plain.txt").write_text("plain")
    (base / "linked" / "to_plain").symlink_to("plain.txt")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    (base / "linked" / "escape").symlink_to(outside)
    (base / "linked" / "dirlink").symlink_to(base / "empty")
    (base / "special").mkdir()
    os.mkfifo(base / "special" / "pipe")
    (base / "special" / "note.txt").write_text("n")
    (base / "big.bin").write_bytes(b"\x00" * 300)
    return str(root)


PATHS = [SUB, f"{SUB}/results", f"{SUB}/results/sys/resnet50/Offline", f"{SUB}/results/sys/resnet50/Offline/performance/run_1",
         f"{SUB}/results/sys/resnet50/Offline/performance/run_1/mlperf_log_detail.txt",
         f"{SUB}/results/sys/resnet50/Offline/accuracy/accuracy.txt", f"{SUB}/results/sys/resnet50/Offline/accuracy/missing.txt",
         f"{SUB}/empty", f"{SUB}/empty/nothing", f"{SUB}/linked", f"{SUB}/linked/plain.txt", f"{SUB}/linked/to_plain",
         f"{SUB}/linked/escape", f"{SUB}/linked/dirlink", f"{SUB}/special", f"{SUB}/special/pipe", f"{SUB}/special/note.txt",
         f"{SUB}/big.bin", f"{SUB}/results/.", f"{SUB}/results/..", f"{SUB}/results/", f"{SUB}//results",
         f"{SUB}/results/sys/../sys", f"{SUB}/nope/deeper", f"{SUB}/big.bin/inside"]


def _answers(box: Sandbox, rel: str):
    return (box.listing(rel), box.is_dir(rel), box.is_file(rel), box.size(rel), box.read_bytes(rel, limit=100),
            box.read_text(rel, limit=1000))


def test_walked_sandbox_answers_like_the_file_system(tree):
    plain = Sandbox(tree)
    walked = Sandbox(tree)
    walk = _walk_submitter(walked, SUB, load_rules("v4.1"))
    assert not walk["errors"]
    walked.trust(SUB, tuple(walk["links"]), walk["known"])
    assert f"{SUB}/results" in walked._known and f"{SUB}/linked" not in walked._known  # links: not cached
    assert f"{SUB}/special" not in walked._known  # a fifo: not cached
    for rel in PATHS:
        assert _answers(walked, rel) == _answers(plain, rel), rel


def test_a_file_removed_after_the_walk_is_a_read_error_not_a_crash(tree):
    box = Sandbox(tree)
    walk = _walk_submitter(box, SUB, load_rules("v4.1"))
    box.trust(SUB, tuple(walk["links"]), walk["known"])
    rel = f"{SUB}/results/sys/resnet50/Offline/accuracy/accuracy.txt"
    os.remove(os.path.join(tree, rel))
    data, error = box.read_bytes(rel)
    assert data is None and error.startswith("cannot read file")
