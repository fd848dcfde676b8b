"""PF020: inferred results stand on an allowed scenario and are byte-identical copies of their source."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.recompute.helpers import RES, base_tree, check, findings, mllog


def _infer_offline_from_singlestream(root):
    shutil.rmtree(root / RES / "Offline")
    shutil.copytree(root / RES / "SingleStream", root / RES / "offline")
    meas = root / RES.replace("results", "measurements")
    os.rename(meas / "Offline", meas / "offline")


def test_identical_copy_is_an_inferred_result_with_its_value(tmp_path):
    root = base_tree(tmp_path)
    _infer_offline_from_singlestream(root)
    report = check(root)
    assert not findings(report, "PF020")
    offline = [r for r in report.results if r.scenario_dir == "offline"][0]
    assert offline.inferred and offline.valid and offline.value == 0.6667  # result_qps_without_loadgen_overhead


def test_edited_copy_lists_the_files_that_differ(tmp_path):
    root = base_tree(tmp_path)
    _infer_offline_from_singlestream(root)
    (root / RES / "offline/accuracy/mlperf_log_summary.txt").write_text("edited\n")
    os.remove(root / RES / "offline/performance/run_1/mlperf_log_summary.txt")
    (root / RES / "offline/performance/run_1/notes.txt").write_text("extra\n")
    report = check(root)
    [item] = findings(report, "PF020")
    assert "differ: accuracy/mlperf_log_summary.txt" in item.actual
    assert "missing: performance/run_1/mlperf_log_summary.txt" in item.actual
    assert "extra: performance/run_1/notes.txt" in item.actual
    data = dict(item.data)
    assert data["inferred_value"] == 0.6667 and data["source_scenario"] == "SingleStream"
    assert data["source_folder"].endswith("gptj-99/SingleStream")
    assert abs(data["rules_form_value"] - 1000 / 1500.0) < 1e-12  # 1000 / mean latency (ms), rules 4.1.1
    assert item.severity.value == "warning"


def test_an_edit_that_keeps_the_size_is_found_by_content(tmp_path):
    """Sizes from the walk tell most edits; an edit of the same length is found by the files' digests, in a
    file the loader reads (the accuracy summary) and in one it does not (an added note in both folders)."""
    root = base_tree(tmp_path)
    (root / RES / "SingleStream/notes.txt").write_text("abc\n")
    _infer_offline_from_singlestream(root)
    (root / RES / "offline/notes.txt").write_text("abd\n")
    summary = root / RES / "offline/accuracy/mlperf_log_summary.txt"
    text = summary.read_text()
    summary.write_text(text[:-2] + ("x" if text[-2] != "x" else "y") + text[-1])
    [item] = findings(check(root), "PF020")
    assert "differ: accuracy/mlperf_log_summary.txt, notes.txt" in item.actual


def test_inferred_from_a_scenario_the_benchmark_lacks(tmp_path):
    """gptj-99 on edge has SingleStream and Offline only: an Offline result cannot stand on MultiStream."""
    root = base_tree(tmp_path)
    log = root / RES / "Offline/performance/run_1/mlperf_log_detail.txt"
    log.write_text(mllog({"effective_scenario": "MultiStream", "effective_samples_per_query": 8,
                          "result_mean_query_latency_ns": 200_000_000}) + log.read_text())
    report = check(root)
    [item] = findings(report, "PF020")
    assert item.actual == "MultiStream" and "not a scenario of gptj-99" in item.message
    assert dict(item.data)["inferred_value"] == 40.0  # 8 * 1000 / 200 ms


def test_no_source_folder_means_no_copy_comparison(tmp_path):
    root = base_tree(tmp_path)
    _infer_offline_from_singlestream(root)
    shutil.rmtree(root / RES / "SingleStream")
    assert not findings(check(root), "PF020")


def test_non_edge_systems_are_pf016s(tmp_path):
    root = base_tree(tmp_path)
    _infer_offline_from_singlestream(root)
    (root / RES / "offline/accuracy/mlperf_log_summary.txt").write_text("edited\n")
    sys_json = root / "closed/Acme/systems/edge_sys.json"
    data = json.loads(sys_json.read_text())
    data["system_type"] = "datacenter"
    sys_json.write_text(json.dumps(data))
    codes = {f.code for f in check(root).findings}
    assert "PF016" in codes and "PF020" not in codes


def test_link_leaving_the_tree_is_not_followed(tmp_path):
    root = base_tree(tmp_path)
    _infer_offline_from_singlestream(root)
    target = root / RES / "offline/accuracy/mlperf_log_summary.txt"
    outside = tmp_path / "outside.txt"
    outside.write_bytes(target.read_bytes())
    os.remove(target)
    os.symlink(outside, target)
    report = check(root)
    assert "ST005" in {f.code for f in report.findings}
    [item] = findings(report, "PF020")
    assert "missing: accuracy/mlperf_log_summary.txt" in item.actual


def test_cache_sees_a_change_of_the_source_folder(tmp_path):
    from typer.testing import CliRunner

    from checker.cli import app

    root = base_tree(tmp_path)
    _infer_offline_from_singlestream(root)
    runner = CliRunner()
    args = ["check", str(root), "--cache-dir", str(tmp_path / "cache"), "-q", "-f", "json", "-o"]
    assert runner.invoke(app, args + [str(tmp_path / "first.json")]).exit_code == 0
    with open(root / RES / "SingleStream/performance/run_1/mlperf_log_summary.txt", "a") as handle:
        handle.write("edited\n")
    runner.invoke(app, args + [str(tmp_path / "second.json")])
    with open(tmp_path / "second.json") as handle:
        assert "PF020" in {f["code"] for f in json.load(handle)["findings"]}
