"""What the checks remember across results (per round, model or text) is what they would compute afresh."""

from __future__ import annotations

import os

import pytest

from checker.checks import bandwidth, log_record
from checker.checks.memo import forget
from checker.checks.performance import reported_value
from checker.loaders.detect import rules_for
from checker.loaders.tree import load_submitter, load_top
from checker.metrics.bandwidth import declared_types, load_appendix_b
from checker.metrics.run_record import Bounds
from checker.results import result_value
from checker import summary
from tests.conftest import REAL, REPO

TREES = [os.path.join(REPO, "fixtures", "example_submission"), os.path.join(REPO, "fixtures", "example_submission_v6.0"),
         *(os.path.join(REAL, name) for name in ("v4.1", "v5.1", "v6.0", "v6.1"))]


def _results(root: str):
    if not os.path.isdir(root):
        pytest.skip(f"{root} not found")
    rules, _ = rules_for(root)
    _, units = load_top(root, rules)
    for division, submitter in units:
        for result in load_submitter(root, division, submitter, rules).results:
            yield rules, result


@pytest.mark.parametrize("value", [None, "", "int8", "fp32, int8", "INT8 and fp16", "uint8 (images)", "bogus",
                                   ["int8", "fp32"], {"a": "fp16"}, 5])
def test_declared_types_once_per_text(value):
    table = load_appendix_b()
    first = bandwidth._declared_types(value, table)
    assert first == declared_types(value, table)
    assert bandwidth._declared_types(value, table) == first


@pytest.mark.parametrize("root", TREES, ids=os.path.basename)
def test_remembered_readings_are_fresh_ones(root):
    seen = 0
    for rules, result in _results(root):
        seen += 1
        assert reported_value(result, rules) == result_value(result, rules)
        model = rules.models.get(result.mlperf_model)
        band, window = rules.offline_rate_duration_band, rules.power_window_band
        assert log_record._bounds(result, rules) == Bounds(
            tuple(band) if band else None, rules.server_completed_over_scheduled_max, rules.run_record_tolerance,
            model.inferred_tokens_per_sample if model else None, tuple(window) if window else None,
            rules.power_window_slack_s)
        facts = summary._model_facts(rules, result.mlperf_model, result.scenario)
        summary._MODEL_FACTS.clear()
        assert summary._model_facts(rules, result.mlperf_model, result.scenario) == facts
        if model is not None:
            assert facts[1] == tuple(dict.fromkeys(t.metric for t in model.accuracy))
            assert facts[2] == tuple(model.compliance_tests)
        forget()
    assert seen
