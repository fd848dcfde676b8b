"""fixtures/example_submission_v6.0: the example tree of the current round, made with the real LoadGen
6.0.10 (v6.0 seeds) in the folded v6.0 layout, checks clean under the smoke profile with the round detected
from its logs; the official profile still rejects its short runs; and the edits a submitter hoping for a
better number would make are caught."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from tests.fixtures_gen.test_fixture_logs import PERF, detail, files, scenario_logs_of_round, smoke_report

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "fixtures" / "example_submission_v6.0"
SUB = EXAMPLE / "closed" / "ExampleCo"
SCENARIOS = ("SingleStream", "MultiStream", "Offline")
RESULTS = SUB / "results" / "example_edge_system" / "resnet50"


def test_v60_layout():
    assert files(EXAMPLE) == {"README.md"}
    assert sorted(p.name for p in SUB.iterdir()) == ["calibration.md", "results", "src", "systems"]
    assert sorted(p.name for p in RESULTS.iterdir()) == sorted(SCENARIOS)
    for sc in SCENARIOS:
        folder = RESULTS / sc
        assert files(folder) == {"measurements.json", "user.conf", "README.md", "mlperf.conf"}
        assert sorted(p.name for p in folder.iterdir() if p.is_dir()) == ["TEST01", "TEST04", "accuracy",
                                                                          "performance"]
        assert files(folder / "performance" / "run_1") == PERF
        assert files(folder / "TEST01") == {"verify_accuracy.txt", "verify_performance.txt"}
        assert files(folder / "TEST04") == {"verify_performance.txt"}
        for test in ("TEST01", "TEST04"):
            assert files(folder / test / "performance" / "run_1") == PERF
            assert (folder / test / "verify_performance.txt").read_text().rstrip().endswith("TEST PASS")
        impl = json.loads((folder / "measurements.json").read_text())
        assert set(load_rules("v6.0").implementation_fields) <= set(impl)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_log_is_a_v60_loadgen_log(scenario):
    rules = load_rules("v6.0")
    for values in scenario_logs_of_round(RESULTS / scenario, rules):
        assert values["loadgen_version"].split(" @")[0] in [v.rstrip(".") for v in rules.loadgen_versions] or any(
            values["loadgen_version"].startswith(v) for v in rules.loadgen_versions), values["loadgen_version"]
        if values["effective_test_mode"] == "PerformanceOnly":
            assert values["result_validity"] == "VALID"


def test_smoke_check_is_clean_and_detects_the_round():
    report = smoke_report(EXAMPLE, "v6.0")
    assert {r.compliance for r in report.results} == {"passed"}


def test_official_profile_rejects_the_short_runs():
    report = check_tree(str(EXAMPLE), load_rules("v6.0"), "test")
    assert not any(r.valid for r in report.results)
    codes = {f.code for f in report.findings if f.severity.value == "error"}
    assert {"PF009", "AC009"} <= codes  # 300-500 ms runs; 1024 of the 50000 ImageNet samples


@pytest.fixture()
def copy(tmp_path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(EXAMPLE, root)
    return root


def _errors(root: Path) -> dict[str, set[str]]:
    report = check_tree(str(root), load_rules("v6.0"), "test", profile="smoke")
    out: dict[str, set[str]] = {}
    for f in report.findings:
        if f.severity.value == "error":
            out.setdefault(f.result_id.rsplit("/", 1)[-1], set()).add(f.code)
    return out


def test_a_faster_offline_number_in_the_logs_is_caught(copy):
    """Doubling the Offline throughput in the performance logs (detail and summary): the TEST01 and TEST04
    runs no longer agree with it."""
    run = copy / RESULTS.relative_to(EXAMPLE) / "Offline" / "performance" / "run_1"
    value = detail(run / "mlperf_log_detail.txt")["result_samples_per_second"]
    text = (run / "mlperf_log_detail.txt").read_text()
    needle = f'"key": "result_samples_per_second", "value": {value}'
    assert needle in text
    (run / "mlperf_log_detail.txt").write_text(text.replace(needle, needle.replace(str(value), str(value * 2))))
    summary = (run / "mlperf_log_summary.txt").read_text()
    line = next(ln for ln in summary.splitlines() if ln.startswith("Samples per second"))
    (run / "mlperf_log_summary.txt").write_text(summary.replace(line, f"Samples per second: {value * 2}"))
    found = _errors(copy)
    assert "Offline" in found and found["Offline"] & {"CP006", "CP021"}, found
    assert "SingleStream" not in found


def test_other_seeds_and_a_missing_test_are_caught(copy):
    base = copy / RESULTS.relative_to(EXAMPLE)
    log = base / "SingleStream" / "performance" / "run_1" / "mlperf_log_detail.txt"
    seed = str(load_rules("v6.0").seeds.qsl_rng_seed)
    log.write_text(log.read_text().replace(seed, "42"))
    shutil.rmtree(base / "MultiStream" / "TEST04")
    found = _errors(copy)
    assert "PF005" in found.get("SingleStream", set()), found
    assert "CP002" in found.get("MultiStream", set()), found
    assert "Offline" not in found


def test_the_example_is_not_modified_by_checking():
    before = {str(p): p.stat().st_mtime_ns for p in EXAMPLE.rglob("*")}
    check_tree(str(EXAMPLE), load_rules("v6.0"), "test", profile="smoke")
    assert {str(p): p.stat().st_mtime_ns for p in EXAMPLE.rglob("*")} == before
    assert not any(p.name == "privateid.json" for p in EXAMPLE.rglob("*"))
    assert os.path.isdir(SUB / "src")
