"""The committed LoadGen fixtures (fixtures/loadgen/, fixtures/example_submission/).

Fast tests read only committed files.  The regeneration test runs the real LoadGen
when a venv made as described in fixtures/README.md exists, and skips otherwise.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"
LOADGEN = FIXTURES / "loadgen"
EXAMPLE = FIXTURES / "example_submission"

SEEDS = {
    "v4.1": (3066443479025735752, 10688027786191513374, 14962580496156340209),
    "v5.0": (6023615788873153749, 15036839855038426416, 9933818062894767841),
    "v5.1": (1780908523862526354, 14771362308971278857, 18209322760996052031),
    "v6.1": (2085463073848966840, 2747215439041700203, 16159082839903944936),
}
TEST05_SEEDS_V41 = (16799458546791641818, 5453809927556429288, 5435552105434836064)
# Which mlcommons-loadgen releases write which round's seeds (DESIGN.md, "Tests").
LOADGEN_RELEASE = {"v4.1": r"^4\.1\.30\b", "v5.0": r"^5\.0\.(1[2-9]|20)\b", "v5.1": r"^(5\.0\.22|5\.1\.2)\b",
                   "v6.1": r"^6\.0\.1[67]\b"}
SCENARIOS = ("SingleStream", "MultiStream", "Offline", "Server")
MODES = ("performance", "accuracy")
SEED_KEYS = ("effective_qsl_rng_seed", "effective_sample_index_rng_seed", "effective_schedule_rng_seed")


def detail(path: Path) -> dict:
    """First value of every key of a mlperf_log_detail.txt."""
    values: dict = {}
    for line in path.read_text().splitlines():
        if line.startswith(":::MLLOG"):
            rec = json.loads(line[len(":::MLLOG") :])
            values.setdefault(rec["key"], rec["value"])
    return values


def errors(path: Path) -> list[str]:
    out = []
    for line in path.read_text().splitlines():
        if line.startswith(":::MLLOG"):
            rec = json.loads(line[len(":::MLLOG") :])
            if rec["metadata"].get("is_error"):
                out.append(str(rec["value"]))
    return out


def seeds_of(d: dict) -> tuple:
    return tuple(d[k] for k in SEED_KEYS)


def scenario_logs_of_round(folder: Path, rules) -> list[dict]:
    """The four detail logs of an example scenario folder (performance, accuracy, TEST01, TEST04), each
    asserted to carry the round's seeds and no LoadGen error; their values, for further checks."""
    seeds = (rules.seeds.qsl_rng_seed, rules.seeds.sample_index_rng_seed, rules.seeds.schedule_rng_seed)
    logs = sorted(folder.rglob("mlperf_log_detail.txt"))
    assert len(logs) == 4  # performance, accuracy, TEST01, TEST04
    found = []
    for path in logs:
        values = detail(path)
        assert seeds_of(values) == seeds, path
        assert errors(path) == [], path
        found.append(values)
    return found


def smoke_report(example: Path, round_name: str):
    """The smoke-profile report of an example tree, asserted to detect ``round_name`` from its seeds and to
    accept its three results with no error."""
    from checker.pipeline import check_tree
    from checker.loaders.detect import rules_for

    rules, reason = rules_for(str(example))
    assert rules.round == round_name and f"{round_name} seeds" in reason
    report = check_tree(str(example), rules, reason, profile="smoke")
    assert [r.valid for r in report.results] == [True, True, True]
    assert not report.has_errors()
    return report


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --------------------------------------------------------------------------
# fixtures/loadgen
# --------------------------------------------------------------------------


@pytest.mark.parametrize("round_name", sorted(SEEDS))
def test_generated_record_names_release_and_seeds(round_name):
    info = json.loads((LOADGEN / round_name / "generated.json").read_text())
    assert info["round"] == round_name
    assert re.match(LOADGEN_RELEASE[round_name], info["mlcommons_loadgen"])
    assert (
        info["effective_qsl_rng_seed"],
        info["effective_sample_index_rng_seed"],
        info["effective_schedule_rng_seed"],
    ) == SEEDS[round_name]


@pytest.mark.parametrize("round_name", sorted(SEEDS))
@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("mode", MODES)
def test_scenario_logs_present_with_round_seeds(round_name, scenario, mode):
    d = LOADGEN / round_name / scenario / mode
    for name in ("mlperf_log_detail.txt", "mlperf_log_summary.txt", "mlperf_log_accuracy.json"):
        assert (d / name).is_file(), f"{d / name} missing"
        assert (d / name).stat().st_size < 200 * 1024
    log = detail(d / "mlperf_log_detail.txt")
    assert seeds_of(log) == SEEDS[round_name]
    assert re.match(LOADGEN_RELEASE[round_name], log["loadgen_version"])
    assert log["effective_scenario"] == scenario
    assert log["effective_test_mode"] == {"performance": "PerformanceOnly", "accuracy": "AccuracyOnly"}[mode]
    assert log["effective_performance_sample_count"] == 1024
    assert errors(d / "mlperf_log_detail.txt") == []
    summary = (d / "mlperf_log_summary.txt").read_text()
    if mode == "performance":
        assert log["result_validity"] == "VALID"
        assert f"Scenario : {scenario}" in summary
        assert "Result is : VALID" in summary
    else:
        entries = json.loads((d / "mlperf_log_accuracy.json").read_text())
        assert sorted(e["qsl_idx"] for e in entries) == list(range(1024))


@pytest.mark.parametrize("round_name", sorted(SEEDS))
def test_accuracy_logs_identical_across_scenarios_payloads(round_name):
    """The SUT's payload depends only on the sample index, so every scenario's
    AccuracyOnly log carries the same qsl_idx -> data mapping."""
    maps = []
    for scenario in SCENARIOS:
        entries = json.loads((LOADGEN / round_name / scenario / "accuracy" / "mlperf_log_accuracy.json").read_text())
        maps.append({e["qsl_idx"]: e["data"] for e in entries})
    assert all(m == maps[0] for m in maps)


@pytest.mark.parametrize("round_name", sorted(SEEDS))
@pytest.mark.parametrize("scenario", ("Offline", "Server"))
def test_llm_token_latency_logs(round_name, scenario):
    d = LOADGEN / round_name / "llm" / scenario / "performance"
    log = detail(d / "mlperf_log_detail.txt")
    assert seeds_of(log) == SEEDS[round_name]
    assert log["requested_use_token_latencies"] is True
    assert log["result_validity"] == "VALID"
    assert log["effective_performance_sample_count"] == 24576
    for name in ("mlperf_log_detail.txt", "mlperf_log_summary.txt"):
        assert (d / name).stat().st_size < 200 * 1024
    if scenario == "Offline":
        assert log["result_tokens_per_second"] > 0
    else:
        assert log["result_first_token_99.00_percentile_latency_ns"] > 0
        assert log["result_time_per_output_token_99.00_percentile_ns"] > 0


# --------------------------------------------------------------------------
# fixtures/example_submission
# --------------------------------------------------------------------------

SUB = EXAMPLE / "closed" / "ExampleCo"
SYS = "example_edge_system"
EX_SCENARIOS = ("SingleStream", "MultiStream", "Offline")
SYSTEM_FIELDS = (
    "division submitter status system_name number_of_nodes host_processor_model_name "
    "host_processors_per_node host_processor_core_count host_memory_capacity host_storage_capacity "
    "host_storage_type accelerators_per_node accelerator_model_name accelerator_memory_capacity "
    "framework operating_system system_type other_software_stack host_processor_frequency "
    "host_processor_caches host_memory_configuration host_processor_interconnect host_networking "
    "host_networking_topology accelerator_frequency accelerator_host_interconnect accelerator_interconnect "
    "accelerator_interconnect_topology accelerator_memory_configuration accelerator_on-chip_memories "
    "cooling hw_notes sw_notes host_network_card_count system_type_detail"
).split()
PERF = {"mlperf_log_detail.txt", "mlperf_log_summary.txt"}


def files(d: Path) -> set[str]:
    return {p.name for p in d.iterdir() if p.is_file()}


def test_example_tree_expected_layout():
    assert files(EXAMPLE) == {"README.md"}
    assert sorted(p.name for p in (EXAMPLE / "closed").iterdir()) == ["ExampleCo"]
    assert sorted(p.name for p in SUB.iterdir()) == ["code", "compliance", "measurements", "results", "systems"]
    assert files(SUB / "systems") == {f"{SYS}.json"}
    assert files(SUB / "code" / "resnet50") == {"README.md"}
    for sc in EX_SCENARIOS:
        res = SUB / "results" / SYS / "resnet50" / sc
        assert files(res / "performance" / "run_1") == PERF
        assert files(res / "accuracy") == PERF | {"accuracy.txt", "mlperf_log_accuracy.json"}
        meas = SUB / "measurements" / SYS / "resnet50" / sc
        assert files(meas) == {"mlperf.conf", "user.conf", "README.md", f"{SYS}.json"}
        comp = SUB / "compliance" / SYS / "resnet50" / sc
        assert sorted(p.name for p in comp.iterdir()) == ["TEST01", "TEST04", "TEST05"]
        assert files(comp / "TEST01") == {"verify_accuracy.txt", "verify_performance.txt"}
        assert files(comp / "TEST01" / "accuracy") == {"accuracy.txt", "mlperf_log_accuracy.json"}
        for t in ("TEST01", "TEST04", "TEST05"):
            assert files(comp / t / "performance" / "run_1") == PERF
        for t in ("TEST04", "TEST05"):
            assert files(comp / t) == {"verify_performance.txt"}
    assert sorted(p.name for p in (SUB / "results" / SYS / "resnet50").iterdir()) == sorted(EX_SCENARIOS)


def test_example_tree_is_git_friendly_and_small():
    total = 0
    for root, dirs, fnames in os.walk(EXAMPLE):
        for n in dirs + fnames:
            assert " " not in n and not n.startswith(".") and n != "__pycache__", n
        assert dirs or fnames, f"empty directory {root}"
        total += sum(os.path.getsize(os.path.join(root, f)) for f in fnames)
    assert total < 2 * 1024 * 1024


def test_example_system_description():
    desc = json.loads((SUB / "systems" / f"{SYS}.json").read_text())
    assert set(SYSTEM_FIELDS) <= set(desc) and len(SYSTEM_FIELDS) == 35
    assert all(isinstance(desc[k], str) and desc[k].strip() for k in SYSTEM_FIELDS)
    assert (desc["division"], desc["submitter"], desc["status"], desc["system_type"]) == (
        "closed",
        "ExampleCo",
        "available",
        "edge",
    )


@pytest.mark.parametrize("scenario", EX_SCENARIOS)
def test_example_measurements(scenario):
    meas = SUB / "measurements" / SYS / "resnet50" / scenario
    impl = json.loads((meas / f"{SYS}.json").read_text())
    for key in ("input_data_types", "retraining", "starting_weights_filename", "weight_data_types", "weight_transformations"):
        assert impl[key]
    conf = (meas / "mlperf.conf").read_text()
    for seed in SEEDS["v4.1"] + TEST05_SEEDS_V41:
        assert str(seed) in conf
    assert f"resnet50.{scenario}." in (meas / "user.conf").read_text()
    assert (meas / "README.md").read_text().strip()


@pytest.mark.parametrize("scenario", EX_SCENARIOS)
def test_example_results(scenario):
    res = SUB / "results" / SYS / "resnet50" / scenario
    perf = detail(res / "performance" / "run_1" / "mlperf_log_detail.txt")
    assert seeds_of(perf) == SEEDS["v4.1"]
    assert perf["result_validity"] == "VALID"
    assert perf["effective_scenario"] == scenario
    assert errors(res / "performance" / "run_1" / "mlperf_log_detail.txt") == []
    acc = detail(res / "accuracy" / "mlperf_log_detail.txt")
    assert acc["effective_test_mode"] == "AccuracyOnly" and seeds_of(acc) == SEEDS["v4.1"]
    lines = (res / "accuracy" / "accuracy.txt").read_text().splitlines()
    m = re.match(r"^accuracy=([\d.]+)%, good=(\d+), total=(\d+)$", lines[0])
    assert m and float(m.group(1)) >= 76.46 * 0.99
    assert abs(float(m.group(1)) - 100 * int(m.group(2)) / int(m.group(3))) < 0.001
    hm = re.match(r"^hash=([0-9a-f]{64})$", lines[-1])
    assert hm
    log = res / "accuracy" / "mlperf_log_accuracy.json"
    text = log.read_text()
    # officially truncated: 4096 chars + "\n\n...\n\n" + 4096 chars
    assert log.stat().st_size <= 10240 and len(text) == 8199 and text[4096:4103] == "\n\n...\n\n"
    original = LOADGEN / "v4.1" / scenario / "accuracy" / "mlperf_log_accuracy.json"
    assert sha256(original) == hm.group(1)
    orig_text = original.read_text()
    assert text == orig_text[:4096] + "\n\n...\n\n" + orig_text[-4096:]


def _summary_score(path: Path, key: str) -> float:
    for line in path.read_text().splitlines():
        line = line.strip().lstrip("*").strip()
        if line.startswith(key):
            return float(line.split(":", 1)[1])
    raise AssertionError(f"{key} not in {path}")


SCORE_KEY = {
    "SingleStream": "Early stopping 90th percentile estimate",
    "MultiStream": "Early stopping 99th percentile estimate",
    "Offline": "Samples per second",
}


@pytest.mark.parametrize("scenario", EX_SCENARIOS)
def test_example_compliance(scenario):
    res = SUB / "results" / SYS / "resnet50" / scenario
    comp = SUB / "compliance" / SYS / "resnet50" / scenario
    ref = _summary_score(res / "performance" / "run_1" / "mlperf_log_summary.txt", SCORE_KEY[scenario])
    latency = scenario != "Offline"
    for t in ("TEST01", "TEST04", "TEST05"):
        run = comp / t / "performance" / "run_1"
        log = detail(run / "mlperf_log_detail.txt")
        assert log["result_validity"] == "VALID"
        assert errors(run / "mlperf_log_detail.txt") == []
        assert seeds_of(log) == (TEST05_SEEDS_V41 if t == "TEST05" else SEEDS["v4.1"])
        verify = (comp / t / "verify_performance.txt").read_text()
        assert "TEST PASS" in verify
        # the verdict is the recomputed one
        test = _summary_score(run / "mlperf_log_summary.txt", SCORE_KEY[scenario])
        if t == "TEST04":
            r, s = (1e9 / ref, 1e9 / test) if latency else (ref, test)
            assert s < r * (1.2 if latency else 1.1)
            assert log["effective_performance_issue_same"] is True
            assert log["effective_performance_issue_same_index"] == 3
        elif t == "TEST05":
            small = scenario == "MultiStream" and ref <= 1600000 or scenario == "SingleStream" and ref <= 200000
            th = 0.2 if small else 0.05
            assert test < ref * (1 + th) if latency else test > ref * (1 - th)
        else:
            small = scenario == "MultiStream" and ref <= 1600000 or scenario == "SingleStream" and ref <= 200000
            th = 0.2 if small else 0.1
            assert ref * (1 - th) < test < ref * (1 + th)
            assert log["effective_accuracy_log_rng_seed"] == 720381539243781796
    # TEST01 accuracy: every sampled performance-mode answer equals the accuracy-run answer
    assert "TEST PASS" in (comp / "TEST01" / "verify_accuracy.txt").read_text()
    original = LOADGEN / "v4.1" / scenario / "accuracy" / "mlperf_log_accuracy.json"
    acc = {e["qsl_idx"]: e["data"] for e in json.loads(original.read_text())}
    t01_log = comp / "TEST01" / "accuracy" / "mlperf_log_accuracy.json"
    sampled = json.loads(t01_log.read_text())
    assert sampled and all(acc[e["qsl_idx"]] == e["data"] for e in sampled)
    assert f"num_perf_log_entries = {len(sampled)}" in (comp / "TEST01" / "verify_accuracy.txt").read_text()
    t01_txt = (comp / "TEST01" / "accuracy" / "accuracy.txt").read_text().splitlines()
    assert t01_txt[-1] == f"hash={sha256(t01_log)}"


# --------------------------------------------------------------------------
# regeneration with the real LoadGen (skipped without the venvs)
# --------------------------------------------------------------------------


def _venv_python(round_name: str) -> str:
    env = os.environ.get("MLPC_LOADGEN_" + round_name.replace(".", "").upper() + "_PYTHON")
    path = env or f"/tmp/lg/{round_name}/bin/python"
    if not os.path.exists(path):
        pytest.skip(f"no LoadGen venv for {round_name} at {path} (see fixtures/README.md)")
    return path


@pytest.mark.parametrize("round_name", sorted(SEEDS))
def test_regenerate_singlestream_log_has_same_seeds(round_name, tmp_path):
    python = _venv_python(round_name)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "import make_loadgen_logs as m; from pathlib import Path;"
        "m.run_loadgen(sys.argv[2], scenario='SingleStream', mode='accuracy', outdir=Path(sys.argv[3]))"
    )
    subprocess.run([sys.executable, "-c", code, str(FIXTURES), python, str(tmp_path)], check=True, timeout=300)
    log = detail(tmp_path / "mlperf_log_detail.txt")
    assert seeds_of(log) == SEEDS[round_name]
    committed = LOADGEN / round_name / "SingleStream" / "accuracy" / "mlperf_log_accuracy.json"
    # AccuracyOnly output is deterministic for a given LoadGen release
    assert (tmp_path / "mlperf_log_accuracy.json").read_bytes() == committed.read_bytes()
