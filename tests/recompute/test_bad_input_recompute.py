"""Bad input around the recompute checks and commands: findings or clean errors, never tracebacks."""

from __future__ import annotations

import hashlib
import os

from typer.testing import CliRunner

from checker.cli import app
from tests.recompute.helpers import MEAS, RES, SUB, base_tree, check, findings

runner = CliRunner()
ACC = f"{RES}/Offline/accuracy"


def test_empty_accuracy_txt(tmp_path):
    root = base_tree(tmp_path)
    (root / ACC / "accuracy.txt").write_text("")
    codes = {f.code for f in check(root).findings}
    assert "AC004" in codes and "AC010" not in codes


def test_binary_accuracy_txt(tmp_path):
    root = base_tree(tmp_path)
    (root / ACC / "accuracy.txt").write_bytes(b"\x00\xff" * 50)
    assert "AC010" not in {f.code for f in check(root).findings}


def test_accuracy_log_that_is_a_folder(tmp_path):
    root = base_tree(tmp_path)
    os.remove(root / ACC / "mlperf_log_accuracy.json")
    os.makedirs(root / ACC / "mlperf_log_accuracy.json")
    codes = {f.code for f in check(root).findings}
    assert "AC005" in codes and not codes & {"AC010", "AC011"}


def test_empty_and_garbage_performance_logs(tmp_path):
    root = base_tree(tmp_path)
    (root / RES / "SingleStream/performance/run_1/mlperf_log_detail.txt").write_text("")
    (root / RES / "Offline/performance/run_1/mlperf_log_detail.txt").write_bytes(b"\x00" * 100)
    report = check(root)
    assert "PF003" in {f.code for f in report.findings} and not findings(report, "PF019")


def test_truncate_handles_an_empty_log(tmp_path):
    root = base_tree(tmp_path, "src")
    (root / ACC / "mlperf_log_accuracy.json").write_bytes(b"")
    txt = root / ACC / "accuracy.txt"
    txt.write_text(txt.read_text().split("hash=")[0])
    result = runner.invoke(app, ["truncate", str(root), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / ACC / "accuracy.txt").read_text().endswith(f"hash={hashlib.sha256(b'').hexdigest()}\n")
    assert findings(check(tmp_path / "out"), "AC011")  # the empty log itself is still not a JSON list


def test_infer_with_unreadable_system_description(tmp_path):
    root = base_tree(tmp_path, "src")
    import shutil
    shutil.rmtree(root / RES / "Offline")
    shutil.rmtree(root / MEAS / "Offline")
    (root / SUB / "systems/edge_sys.json").write_text("{not json")
    result = runner.invoke(app, ["infer", str(root), "--out", str(tmp_path / "out"), "--round", "v4.1"])
    assert result.exit_code == 0, result.output
    assert "no readable system_type" in result.stderr and "0 inferred folder(s)" in result.stderr


def test_infer_on_a_tree_without_submitters(tmp_path):
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["infer", str(tmp_path / "empty"), "--out", str(tmp_path / "out"), "--round", "v4.1"])
    assert result.exit_code == 2 and "no submitter folder" in result.stderr
    assert not (tmp_path / "out").exists()


def test_special_files_are_skipped_not_opened(tmp_path):
    root = base_tree(tmp_path, "src")
    os.mkfifo(root / SUB / "code/gptj-99/pipe")
    result = runner.invoke(app, ["truncate", str(root), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0 and "special file" in result.stderr
    assert not (tmp_path / "out" / SUB / "code/gptj-99/pipe").exists()
