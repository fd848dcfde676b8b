"""`mlpc check --round v5.1` on the real v5.1 subset agrees with the official v5.1.1 checker per result.

The tree (../shared/real_submissions/v5.1) holds 23 result folders of the published v5.1 round: Interactive
results (closed and open, lower-case `interactive/`), alias model folders (`llama3_1-8b`, `llama3_1-8b-edge`,
open `model_mapping.json` names), inferred results with power, a closed power result, and two SDXL results the
official checker rejects for their missing `accuracy/images`. `v5.1-expected/verdicts.csv` holds the official
verdict (`valid`/`error`) and result string of each folder; power results read
"<r> with power_metric = <p> and power_efficiency (samples/J) = <e>".
"""

import os

import pytest

from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from tests.conftest import official_verdicts, real_tree
from tests.parity import verdict_mismatches

# Deliberate differences from the official verdicts (result path -> reason). Keep this minimal.
DOCUMENTED_DIFFERENCES: dict[str, str] = {}


@pytest.fixture(scope="module")
def v51():
    root = real_tree("v5.1")
    expected = official_verdicts("v5.1")
    return expected, check_tree(root, load_rules("v5.1"))


def test_v51_result_folders_match_official(v51):
    expected, report = v51
    assert {r.id for r in report.results} == set(expected)


def test_v51_verdicts_and_values_match_official(v51):
    expected, report = v51
    assert verdict_mismatches(expected, report, DOCUMENTED_DIFFERENCES) == []
    assert sum(r.valid for r in report.results) == 21


def test_v51_documented_differences_are_real(v51):
    expected, report = v51
    got = {r.id: r for r in report.results}
    for path, reason in DOCUMENTED_DIFFERENCES.items():
        assert reason, path
        assert got[path].valid != (expected[path]["status"] == "valid"), f"{path} no longer differs; drop it"


def test_v51_rejections_have_the_official_reason(v51):
    _, report = v51
    invalid = sorted(r.id for r in report.results if not r.valid)
    images = {f.result_id for f in report.findings if f.code == "AC007"}
    assert invalid == sorted(images)
    assert all("stable-diffusion-xl" in path for path in invalid)


def test_v51_interactive_results_read_server_runs(v51):
    _, report = v51
    interactive = [r for r in report.results if r.scenario == "Interactive"]
    assert len(interactive) == 3
    assert {r.scenario_dir for r in interactive} == {"Interactive", "interactive"}
    assert all(r.valid and not r.inferred for r in interactive)
    units = {r.mlperf_model: r.unit for r in interactive}
    # The official checker labels llama3.1-8b Interactive results Queries/s, llama2-70b ones Tokens/s.
    assert units == {"llama2-70b-99": "Tokens/s", "llama3.1-8b": "Queries/s", "llama2-70b-99.9": "Tokens/s"}
    assert not [f for f in report.findings if f.code in ("PF015", "PF017", "ST016", "ST017")]


def test_v51_log_only_and_warning_findings(v51):
    _, report = v51
    coverage = [f for f in report.findings if f.code == "AC009"]
    assert len(coverage) == 1 and coverage[0].severity.value == "warning"
    assert "llama3_1-8b-edge/offline" in coverage[0].location.path
    assert coverage[0].actual == "4761" and coverage[0].expected == "5000"
    open_acc = [f for f in report.findings if f.code == "AC008"]
    assert len(open_acc) == 4 and all(f.severity.value == "warning" for f in open_acc)
    unknown = [f for f in report.findings if f.code == "SY007"]
    assert len(unknown) == 1 and "host_processor_vcpu_count" in unknown[0].message


def test_v51_aliases_and_inferred(v51):
    _, report = v51
    by_model = {(r.model, r.scenario_dir): r for r in report.results}
    assert by_model[("llama3_1-8b", "Offline")].mlperf_model == "llama3.1-8b"
    assert by_model[("llama3_1-8b-edge", "offline")].mlperf_model == "llama3.1-8b-edge"
    assert by_model[("llama3_1-70b-fp8_dyn", "server")].mlperf_model == "llama2-70b-99.9"
    mobilenet = {r.scenario_dir: r for r in report.results if r.model.startswith("mobilenet")}
    assert {k for k, r in mobilenet.items() if r.inferred} == {"multistream", "offline"}
    assert all(r.mlperf_model == "resnet" and r.has_power for r in mobilenet.values())


def _krai_copy(tmp_path):
    import shutil

    src = os.path.join(real_tree("v5.1"), "open", "Krai")
    dst = tmp_path / "open" / "Krai"
    shutil.copytree(src, dst, symlinks=True)
    return tmp_path, dst / "results" / "xe9680_h100_x8_vllm_092" / "llama3_1-70b-fp8_dyn"


def test_v51_interactive_must_come_from_a_server_run(tmp_path):
    import shutil

    root, model = _krai_copy(tmp_path)
    shutil.copy(model / "offline" / "performance" / "run_1" / "mlperf_log_detail.txt",
                model / "interactive" / "performance" / "run_1" / "mlperf_log_detail.txt")
    report = check_tree(str(root), load_rules("v5.1"))
    codes = {f.code for f in report.findings if f.severity.value == "error" and "/interactive/" in f.location.path}
    assert "PF015" in codes
    assert {r.scenario_dir: r.valid for r in report.results} == {"interactive": False, "offline": True, "server": True}


def test_v51_open_accuracy_without_any_metric_is_rejected(tmp_path):
    root, model = _krai_copy(tmp_path)
    txt = model / "offline" / "accuracy" / "accuracy.txt"
    txt.write_text("".join(line for line in txt.read_text().splitlines(keepends=True) if line.startswith("hash=")))
    report = check_tree(str(root), load_rules("v5.1"))
    errors = [f for f in report.findings if f.code == "AC003" and f.severity.value == "error"]
    assert len(errors) == 1 and "/offline/" in errors[0].location.path
    assert {r.scenario_dir: r.valid for r in report.results}["offline"] is False
    # v5.0 and earlier force any open accuracy valid
    assert not [f for f in check_tree(str(root), load_rules("v5.0")).findings if f.code == "AC003"]
