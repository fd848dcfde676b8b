"""The compliance-folder loader's quick answers from the walk (which files of a TEST0x folder are there, the
text of its verify files) against the plain answers of the file system, on real trees and on odd folders."""

from __future__ import annotations

import glob
import os

import pytest

from checker.loaders.audit_spec import load_round_spec
from checker.loaders.compliance_folder import MAX_TEXT_BYTES, _asked, _files, _path_join, _read_small_text
from checker.loaders.fs import Sandbox
from checker.loaders.rules import load_rules
from checker.loaders.tree import _walk_submitter
from tests.conftest import REAL

SPEC = load_round_spec("v4.1")
WANTED = [_asked(SPEC.tests.get(name)) for name in ("TEST01", "TEST04", "TEST05", "TEST06", "TEST99")]


def walked(root: str, submitter: str) -> Sandbox:
    box = Sandbox(root)
    walk = _walk_submitter(box, submitter, load_rules("v4.1"))
    assert not walk["errors"]
    box.trust(submitter, tuple(walk["links"]), walk["known"])
    return box


def plain_files(box: Sandbox, rel: str, wanted) -> frozenset:
    return frozenset(f for f in wanted if box.is_file(f"{rel}/{f}"))


def check_folder(root: str, box: Sandbox, rel: str) -> None:
    plain = Sandbox(root)
    for wanted, read in WANTED:
        assert _files(box, rel, wanted) == plain_files(plain, rel, wanted), rel
        for text in read:
            assert _read_small_text(box, f"{rel}/{text}") == _read_small_text(plain, f"{rel}/{text}")


def _submitters() -> list[tuple[str, str]]:
    root = os.path.join(REAL, "v4.1")
    return [(root, os.path.relpath(path, root)) for path in sorted(glob.glob(os.path.join(root, "closed", "*")))]


@pytest.mark.parametrize("root,submitter", _submitters() or [pytest.param(None, None, marks=pytest.mark.skip("real submission data not found (set MLPC_SHARED to the shared/ folder)"))])
def test_quick_answers_on_real_trees(root, submitter):
    box = walked(root, submitter)
    tests = sorted(glob.glob(os.path.join(root, submitter, "compliance", "*", "*", "*", "TEST*")))
    for path in tests:
        check_folder(root, box, os.path.relpath(path, root))


@pytest.fixture()
def odd(tmp_path):
    root = tmp_path / "root"
    base = root / "closed" / "Acme" / "compliance" / "sys" / "resnet50" / "Offline"
    full = base / "TEST01"
    (full / "performance" / "run_1").mkdir(parents=True)
    (full / "accuracy").mkdir()
    for name in ("performance/run_1/mlperf_log_detail.txt", "performance/run_1/mlperf_log_summary.txt",
                 "accuracy/mlperf_log_accuracy.json", "verify_performance.txt"):
        (full / name).write_text("x")
    (full / "verify_accuracy.txt").write_bytes(b"TEST PASS\n" + b"y" * (MAX_TEXT_BYTES + 10))  # past the limit
    (base / "TEST04").mkdir()
    (base / "TEST04" / "performance").write_text("a file where a folder belongs")
    (base / "TEST04" / "verify_performance.txt").mkdir()  # a folder where a file belongs
    (base / "TEST05" / "performance" / "run_1").mkdir(parents=True)
    (base / "TEST05" / "performance" / "run_1" / "mlperf_log_detail.txt").symlink_to(full / "verify_performance.txt")
    (base / "TEST06" / "accuracy").mkdir(parents=True)
    os.mkfifo(base / "TEST06" / "accuracy" / "mlperf_log_accuracy.json")
    return str(root), "closed/Acme/compliance/sys/resnet50/Offline"


def test_quick_answers_on_odd_folders(odd):
    root, rel = odd
    box = walked(root, "closed/Acme")
    assert box.files_below(f"{rel}/TEST01") is not None  # (the quick answer is the one tested there)
    for name in ("TEST01", "TEST04", "TEST05", "TEST06", "TEST07"):
        check_folder(root, box, f"{rel}/{name}")
    assert _read_small_text(box, f"{rel}/TEST01/verify_accuracy.txt").startswith("TEST PASS\ny")
    assert len(_read_small_text(box, f"{rel}/TEST01/verify_accuracy.txt")) == MAX_TEXT_BYTES


@pytest.mark.parametrize("path", ["/a/b", "/a/b/", "", "/", "a", "/a//b"])
@pytest.mark.parametrize("rel", ["x", "x/y.txt", "accuracy/mlperf_log_accuracy.json", "", "/x", "x/", "x//y", "./x", "../x"])
def test_path_join_is_os_path_join(path, rel):
    assert _path_join(path, rel) == os.path.join(path, *rel.split("/"))
