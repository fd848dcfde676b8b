"""Round detection and the per-round file layout (rules/<round>.yaml `layout:`) on every real round we hold."""

import os

import pytest

from checker.loaders.detect import detect_round
from checker.loaders.rules import available_rounds, load_rules
from checker.loaders.tree import load_tree
from tests.conftest import REAL, real_tree

REAL_ROUNDS = sorted(d for d in os.listdir(REAL) if not d.endswith("-expected")) if os.path.isdir(REAL) else []


@pytest.mark.parametrize("name", REAL_ROUNDS or ["(none)"])
def test_every_real_round_is_detected_from_its_logs(name):
    root = real_tree(name)
    if name not in available_rounds():
        pytest.skip(f"{name}: no rules/{name}.yaml yet")
    found, reason = detect_round(root)
    assert found == name, reason
    assert f"{name} seeds" in reason


def test_v60_results_use_the_folded_layout():
    rules = load_rules("v6.0")
    tree = load_tree(real_tree("v6.0"), rules)
    assert len(tree.results) == 44
    for result in tree.results:
        sub = f"{result.division}/{result.submitter}"
        assert result.measurements.rel == result.rel
        assert result.compliance_rel == result.rel and result.compliance_exists
        assert result.code_rel == f"{sub}/src" and result.code_exists
        assert result.measurements.impl_json_name == "measurements.json"
        assert result.system.rel == f"{sub}/systems/{result.system.system}.json" and result.system.exists
    # the v5.1-style copies Dell left inside its llama3.1-8b results are not read as measurements
    dell = [r for r in tree.results if r.model_dir == "llama3_1-8b"]
    assert dell and all("measurements" in r.measurements.listing.dirs for r in dell)
    assert all(isinstance(r.measurements.impl_json, dict) for r in dell)
    assert {s.submitter: s.measurement_systems for s in tree.submitters}["Dell"] == ()


def test_v51_results_keep_the_separate_trees():
    rules = load_rules("v5.1")
    tree = load_tree(real_tree("v5.1"), rules)
    for result in tree.results:
        sub = f"{result.division}/{result.submitter}"
        tail = f"{result.system.system}/{result.model_dir}/{result.scenario_dir}"
        assert result.measurements.rel == f"{sub}/measurements/{tail}"
        assert result.compliance_rel == f"{sub}/compliance/{tail}"
        assert result.code_rel.startswith(f"{sub}/code/")


def test_a_v60_tree_is_not_taken_for_v51(tmp_path):
    """The v6.0 seeds decide even when the LoadGen version string is unknown (a source build "6.0.8 @ NA")."""
    import shutil

    src = os.path.join(real_tree("v6.0"), "closed", "Lenovo")
    shutil.copytree(src, tmp_path / "closed" / "Lenovo", symlinks=True)
    for dirpath, _, files in os.walk(tmp_path):
        for name in files:
            if name == "mlperf_log_detail.txt":
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(text.replace('"6.0.', '"9.9.'))
    found, reason = detect_round(str(tmp_path))
    assert found == "v6.0", reason


LOADGEN_FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "loadgen")


@pytest.mark.parametrize("name", sorted(os.listdir(LOADGEN_FIXTURES)) if os.path.isdir(LOADGEN_FIXTURES) else [])
def test_logs_of_the_real_loadgen_release_of_each_round_are_detected(name, tmp_path):
    """fixtures/loadgen/<round>/ holds logs written by the LoadGen release of that round (no shared data needed)."""
    if name not in available_rounds():
        pytest.skip(f"{name}: no rules/{name}.yaml")
    src = os.path.join(LOADGEN_FIXTURES, name, "Offline", "performance", "mlperf_log_detail.txt")
    dst = tmp_path / "closed" / "X" / "results" / "s" / "m" / "Offline" / "performance" / "run_1"
    dst.mkdir(parents=True)
    with open(src, "rb") as handle:
        (dst / "mlperf_log_detail.txt").write_bytes(handle.read())
    assert detect_round(str(tmp_path))[0] == name


def test_the_v60_example_submission_is_detected_and_uses_the_folded_layout():
    root = os.path.join(os.path.dirname(LOADGEN_FIXTURES), "example_submission_v6.0")
    if not os.path.isdir(root):
        pytest.skip("no v6.0 example submission")
    found, reason = detect_round(root)
    assert found == "v6.0", reason
    tree = load_tree(root, load_rules("v6.0"))
    assert tree.results and all(r.compliance_rel == r.rel and r.code_rel.endswith("/src") for r in tree.results)
