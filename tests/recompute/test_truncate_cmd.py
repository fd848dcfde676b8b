"""`mlpc truncate SRC --out DEST`: the published form, source untouched, atomic, streaming."""

from __future__ import annotations

import hashlib
import os
import shutil
import tracemalloc

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.loaders.accuracy_log import is_truncated_shape, truncate_accuracy_log
from checker.loaders.tree_writer import apply_truncation, open_staging, plan_truncation
from tests.conftest import real_tree
from tests.recompute.helpers import RES, SUB, acc_log, base_tree, check, tree_digest

runner = CliRunner()
ACC = f"{RES}/Offline/accuracy"
TEST01 = f"{SUB}/compliance/edge_sys/gptj-99/Offline/TEST01/accuracy"


def run(*args):
    return runner.invoke(app, list(args))


@pytest.fixture()
def source(tmp_path):
    """The fixture tree with an untruncated accuracy log (no hash yet) and a TEST01 accuracy folder."""
    root = base_tree(tmp_path, "src")
    log = acc_log(3000)
    (root / ACC / "mlperf_log_accuracy.json").write_bytes(log)
    txt = root / ACC / "accuracy.txt"
    txt.write_text(txt.read_text().split("hash=")[0])
    os.makedirs(root / TEST01)
    (root / TEST01 / "mlperf_log_accuracy.json").write_bytes(acc_log(900))
    return root


def test_truncate_end_to_end(tmp_path, source):
    before = tree_digest(source)
    original = (source / ACC / "mlperf_log_accuracy.json").read_bytes()
    out = tmp_path / "out"
    result = run("truncate", str(source), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert tree_digest(source) == before
    assert "[1/2]" in result.stderr and "[2/2]" in result.stderr and "wrote" in result.stderr
    log = out / ACC / "mlperf_log_accuracy.json"
    assert is_truncated_shape(log) and log.stat().st_size == 8199
    expected = tmp_path / "expected.json"
    truncate_accuracy_log(source / ACC / "mlperf_log_accuracy.json", expected)
    assert log.read_bytes() == expected.read_bytes()
    digest = hashlib.sha256(original).hexdigest()
    assert (out / ACC / "accuracy.txt").read_text().endswith(f"\nhash={digest}\n")
    assert (out / ACC / "accuracy.txt").read_text().startswith((source / ACC / "accuracy.txt").read_text())
    # TEST01: accuracy.txt is created with just the hash line, as the official tool does
    test01 = (out / TEST01 / "accuracy.txt").read_text()
    assert test01 == f"\nhash={hashlib.sha256(acc_log(900)).hexdigest()}\n"
    # the untouched SingleStream folder is copied byte for byte
    assert (out / RES / "SingleStream/accuracy/accuracy.txt").read_bytes() == \
        (source / RES / "SingleStream/accuracy/accuracy.txt").read_bytes()
    codes = {f.code for f in check(out).findings}
    assert not codes & {"AC004", "AC005", "AC010", "AC011"}, codes
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".partial")]


def test_dry_run_writes_nothing(tmp_path, source):
    before = tree_digest(source)
    listing = sorted(os.listdir(tmp_path))
    result = run("truncate", str(source), "--out", str(tmp_path / "out"), "--dry-run")
    assert result.exit_code == 0, result.output
    assert "would truncate" in result.stderr and "nothing written" in result.stderr
    assert sorted(os.listdir(tmp_path)) == listing and tree_digest(source) == before


def test_existing_destination_is_refused(tmp_path, source):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    for extra in ([], ["--dry-run"]):
        result = run("truncate", str(source), "--out", str(out), *extra)
        assert result.exit_code == 2 and "already exists" in result.stderr
        assert result.exception is None or isinstance(result.exception, SystemExit)
    assert os.listdir(out) == ["keep.txt"]


def test_destination_inside_source_is_refused(source):
    result = run("truncate", str(source), "--out", str(source / "closed" / "copy"))
    assert result.exit_code == 2 and "inside the source" in result.stderr
    assert not (source / "closed" / "copy").exists()


def test_missing_source_and_missing_parent(tmp_path):
    assert run("truncate", str(tmp_path / "nope"), "--out", str(tmp_path / "o")).exit_code == 2
    result = run("truncate", str(base_tree(tmp_path)), "--out", str(tmp_path / "a" / "b"))
    assert result.exit_code == 2 and "parent folder" in result.stderr


def test_small_log_is_kept_whole_and_hashed(tmp_path):
    root = base_tree(tmp_path, "src")
    txt = root / ACC / "accuracy.txt"
    txt.write_text(txt.read_text().split("hash=")[0])
    out = tmp_path / "out"
    assert run("truncate", str(root), "--out", str(out)).exit_code == 0
    log = (root / ACC / "mlperf_log_accuracy.json").read_bytes()
    assert (out / ACC / "mlperf_log_accuracy.json").read_bytes() == log
    assert (out / ACC / "accuracy.txt").read_text().endswith(f"hash={hashlib.sha256(log).hexdigest()}\n")
    assert not {f.code for f in check(out).findings}


def test_already_truncated_tree_is_copied_unchanged(tmp_path):
    root = base_tree(tmp_path, "src")
    out = tmp_path / "out"
    result = run("truncate", str(root), "--out", str(out))
    assert result.exit_code == 0 and "0 log(s) truncated" in result.stderr
    assert sorted(os.listdir(out)) == sorted(os.listdir(root))
    for dirpath, _, files in os.walk(root):
        for name in files:
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            assert (out / rel).read_bytes() == (root / rel).read_bytes(), rel


def test_non_utf8_log_fails_cleanly_and_writes_nothing(tmp_path, source):
    (source / ACC / "mlperf_log_accuracy.json").write_bytes(b"\xff\xfe" * 5000)
    out = tmp_path / "out"
    result = run("truncate", str(source), "--out", str(out))
    assert result.exit_code == 1 and "nothing written" in result.stderr and "not UTF-8" in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert not out.exists() and not [p for p in os.listdir(tmp_path) if p.endswith(".partial")]


def test_link_leaving_the_tree_is_an_error_not_read(tmp_path, source):
    outside = tmp_path / "outside.json"
    outside.write_bytes(acc_log(3000))
    log = source / ACC / "mlperf_log_accuracy.json"
    os.remove(log)
    os.symlink(outside, log)
    result = run("truncate", str(source), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1 and "leaves the source tree" in result.stderr
    assert not (tmp_path / "out").exists()


def test_links_inside_the_tree_are_copied_as_links(tmp_path, source):
    os.symlink("../gptj-99", source / f"{SUB}/code/gptj-99/again")
    out = tmp_path / "out"
    assert run("truncate", str(source), "--out", str(out)).exit_code == 0
    assert os.readlink(out / f"{SUB}/code/gptj-99/again") == "../gptj-99"


def test_streaming_memory_is_constant(tmp_path):
    """A 64 MiB log is hashed and truncated with a few MiB of Python memory."""
    root = base_tree(tmp_path, "src")
    big = root / ACC / "mlperf_log_accuracy.json"
    entry = b'{"seq_id": 0, "qsl_idx": 0, "data": "' + b"AB" * 2000 + b'"}'
    with open(big, "wb") as handle:
        handle.write(b"[\n")
        for _ in range(64 * 1024 * 1024 // (len(entry) + 2)):
            handle.write(entry + b",\n")
        handle.write(entry + b"\n]\n")
    items = plan_truncation(str(root))
    staging = open_staging(str(root), str(tmp_path / "out"))
    tracemalloc.start()
    try:
        outcomes = apply_truncation(staging, items)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    staging.commit()
    assert [o.error for o in outcomes] == [None]
    assert peak < 8 * 1024 * 1024, peak
    assert outcomes[0].digest == hashlib.sha256(big.read_bytes()).hexdigest()


def test_real_v51_tree_is_already_in_published_form(tmp_path):
    src = real_tree("v5.1")
    part = tmp_path / "part"
    shutil.copytree(os.path.join(src, "closed", "Intel"), part / "closed" / "Intel", symlinks=True)
    before = tree_digest(part)
    result = run("truncate", str(part), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "0 log(s) truncated" in result.stderr and tree_digest(part) == before
    for dirpath, _, files in os.walk(part):
        for name in files:
            rel = os.path.relpath(os.path.join(dirpath, name), part)
            assert (tmp_path / "out" / rel).read_bytes() == (part / rel).read_bytes(), rel
