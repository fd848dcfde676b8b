"""Bad input never produces a traceback: each problem is a coded diagnostic and checking continues."""

import json
import os
import shutil

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from tests.conftest import REPO

BASE = os.path.join(REPO, "fixtures", "checks", "_base")
RES = "closed/Acme/results/edge_sys/gptj-99/Offline"
SYS = "closed/Acme/systems/edge_sys.json"


@pytest.fixture()
def tree(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(BASE, root, symlinks=True)
    # a second, untouched submitter proves checking continues past the broken one
    shutil.copytree(root / "closed" / "Acme", root / "closed" / "Beta")
    beta_sys = root / "closed/Beta/systems/edge_sys.json"
    data = json.loads(beta_sys.read_text())
    data["submitter"] = "Beta"
    beta_sys.write_text(json.dumps(data))
    return root


def _run(root):
    report = check_tree(str(root), load_rules("v4.1"))
    beta = [r for r in report.results if r.submitter == "Beta"]
    assert beta and all(r.valid for r in beta), "the healthy submitter must still be checked and valid"
    assert not any(f.code == "TL001" for f in report.findings), [f.message for f in report.findings if f.code == "TL001"]
    return report


def _codes(report, prefix="closed/Acme"):
    return {f.code for f in report.findings if (f.result_id or "").startswith(prefix) or f.location.path.startswith(prefix)}


def test_truncated_detail_log(tree):
    path = tree / RES / "performance/run_1/mlperf_log_detail.txt"
    path.write_bytes(path.read_bytes()[:-150])
    assert "PF003" in _codes(_run(tree))


def test_binary_detail_log(tree):
    (tree / RES / "performance/run_1/mlperf_log_detail.txt").write_bytes(b"\x00\x01\x02" * 1000)
    assert "PF003" in _codes(_run(tree))


def test_empty_detail_log(tree):
    (tree / RES / "performance/run_1/mlperf_log_detail.txt").write_text("")
    assert "PF003" in _codes(_run(tree))


@pytest.mark.parametrize("content", ["{not json", "[1, 2, 3]", "42", "null", "[" * 5000 + "]" * 5000])
def test_system_json_not_an_object(tree, content):
    (tree / SYS).write_text(content)
    assert "SY001" in _codes(_run(tree))


def test_system_json_key_written_twice_is_read_with_its_last_value(tree):
    codes = _codes_of(tree, '{"a": 1, "a": 2}')
    assert "ST024" in codes and "SY001" not in codes and "SY005" in codes


def _codes_of(tree, content):
    (tree / SYS).write_text(content)
    return _codes(_run(tree))


@pytest.mark.parametrize("field,value", [("status", True), ("status", None), ("system_type", ["edge"]),
                                         ("is_network", True), ("submitter", {"x": [1, {"y": None}]}),
                                         ("division", 3.5), ("framework", None)])
def test_system_json_wrong_types(tree, field, value):
    data = json.loads((tree / SYS).read_text())
    data[field] = value
    (tree / SYS).write_text(json.dumps(data))
    report = _run(tree)
    assert _codes(report) & {"SY002", "SY003", "SY004", "SY006", "SY008", "SY009", "SY005"}


def test_implementation_json_wrong_type(tree):
    (tree / "closed/Acme/measurements/edge_sys/gptj-99/Offline/edge_sys.json").write_text('["x"]')
    assert "MS003" in _codes(_run(tree))


def test_missing_files(tree):
    os.remove(tree / RES / "accuracy/accuracy.txt")
    os.remove(tree / RES / "performance/run_1/mlperf_log_detail.txt")
    codes = _codes(_run(tree))
    assert {"ST019", "ST020"} <= codes


def test_accuracy_txt_binary(tree):
    (tree / RES / "accuracy/accuracy.txt").write_bytes(b"\x00\xff" * 100)
    assert "AC003" in _codes(_run(tree))


def test_symlink_loop_and_escape(tree):
    code = tree / "closed/Acme/code/gptj-99"
    os.symlink("loop_b", code / "loop_a")
    os.symlink("loop_a", code / "loop_b")
    os.symlink("/", code / "root_link")
    os.symlink("../../../../..", code / "up_link")
    codes = _codes(_run(tree))
    assert {"ST004", "ST005"} <= codes


def test_results_folder_is_a_link_out_of_the_tree(tree, tmp_path):
    outside = tmp_path / "outside"
    shutil.copytree(tree / RES, outside)
    shutil.rmtree(tree / RES)
    os.symlink(outside, tree / RES)
    codes = _codes(_run(tree))
    assert "ST005" in codes


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read files regardless of permissions")
def test_unreadable_file(tree):
    path = tree / RES / "accuracy/accuracy.txt"
    os.chmod(path, 0)
    try:
        assert _codes(_run(tree))
    finally:
        os.chmod(path, 0o644)


def test_cli_never_prints_a_traceback(tree):
    (tree / SYS).write_text("\x00garbage")
    (tree / RES / "performance/run_1/mlperf_log_detail.txt").write_text(":::MLLOG {]\n")
    result = CliRunner().invoke(app, ["check", str(tree), "--round", "v4.1"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "SY001" in result.output and "PF003" in result.output


def test_cli_usage_errors_exit_2(tmp_path):
    runner = CliRunner()
    assert runner.invoke(app, ["check", str(tmp_path / "missing")]).exit_code == 2
    result = runner.invoke(app, ["check", BASE, "--round", "v9.9"])
    assert result.exit_code == 2 and "unknown round" in result.output
    result = runner.invoke(app, ["check", str(tmp_path)])
    assert result.exit_code == 2 and "cannot detect the round" in result.output
