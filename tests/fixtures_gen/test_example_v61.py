"""fixtures/example_submission_v6.1: the LoadGen half of the v6.1 example (resnet50 on an edge system, made with
the real LoadGen 6.0.17, v6.1 seeds, v6.0 layout) checks clean under the smoke profile with v6.1 detected; the
endpoint half is fixtures/endpoint/_base (tests/endpoint). Together they are a round holding both kinds."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from checker.pipeline import check_tree
from checker.loaders.detect import rules_for
from checker.loaders.rules import load_rules
from tests.fixtures_gen.test_fixture_logs import scenario_logs_of_round, smoke_report

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "fixtures" / "example_submission_v6.1"
ENDPOINT = REPO / "fixtures" / "endpoint" / "_base"
RESULTS = EXAMPLE / "closed" / "ExampleCo" / "results" / "example_edge_system" / "resnet50"
SCENARIOS = ("SingleStream", "MultiStream", "Offline")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_log_is_a_6_0_17_log_with_the_v61_seeds(scenario):
    for values in scenario_logs_of_round(RESULTS / scenario, load_rules("v6.1")):
        assert values["loadgen_version"].startswith("6.0.17"), values["loadgen_version"]


def test_smoke_check_is_clean_and_detects_v61():
    smoke_report(EXAMPLE, "v6.1")


def test_loadgen_and_endpoint_results_in_one_tree(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(EXAMPLE, root)
    shutil.copytree(ENDPOINT / "closed" / "Acme", root / "closed" / "Acme")
    rules, reason = rules_for(str(root))
    assert rules.round == "v6.1" and "endpoint result files agree" in reason
    report = check_tree(str(root), rules, reason, profile="smoke")
    assert len(report.results) == 12 and all(r.valid for r in report.results)
