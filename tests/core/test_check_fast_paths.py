"""What the checks remember across results (per round, model or text) is what they would compute afresh."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.checks import bandwidth, log_record
from checker.checks.memo import forget
from checker.checks.performance import reported_value
from checker.loaders.detect import rules_for
from checker.loaders.rules import load_rules
from checker.metrics.accuracy_metrics import read_accuracy
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


BOUNDARIES = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
PIECES = st.sampled_from(["'tokens_per_sample': 291.5", "'tokens_per_sample':\t12", "'tokens_per_sample': x",
                          "'tokens_per_sample': -3", "'gen_len': 100 'gen_num': 4", "tokens_per_sample", "hash=abc",
                          "{'rouge1': 1, 'tokens_per_sample': 7.5}", " 50%|#####| 2/4", "", "'gen_num':", "é ",
                          *BOUNDARIES])


def _figures(text: str, metric: str, pattern: str):
    whole = read_accuracy(text, {metric: pattern}, [(metric, 0.0)], []).values.get(metric)
    return whole, read_accuracy(log_record._lines_with(text, pattern), {metric: pattern}, [(metric, 0.0)], []
                                ).values.get(metric)


@settings(max_examples=400)
@given(st.lists(PIECES, max_size=12))
def test_figure_from_the_lines_holding_the_pattern(pieces):
    text = "".join(pieces)
    for metric in ("TOKENS_PER_SAMPLE", "GEN_LEN", "GEN_NUM"):
        whole, part = _figures(text, metric, load_rules("v6.0").accuracy_patterns[metric])
        assert whole == part, (metric, text)
    whole, part = _figures(text, "X", r"tokens_per_sample':\s([\d.]+)")  # no leading .*: the whole text is read
    assert whole == part


@pytest.mark.parametrize("root", TREES, ids=os.path.basename)
def test_figures_of_real_accuracy_files(root):
    for rules, result in _results(root):
        text = result.accuracy.accuracy_txt
        if not text:
            continue
        for metric in ("TOKENS_PER_SAMPLE", "GEN_LEN", "GEN_NUM"):
            pattern = rules.accuracy_patterns.get(metric)
            if pattern:
                whole, part = _figures(text, metric, pattern)
                assert whole == part, (result.rel, metric)


@pytest.mark.parametrize("round_name", ["v4.1", "v5.0", "v5.1", "v6.0", "v6.1"])
def test_pf005_reads_the_seeds_a_dump_would_give(round_name):
    """PF005 reads the round's seeds by field name (a dump would build the seeds' validator in every worker):
    the same names, in the same order, with the same values as ``model_dump``."""
    from checker.checks.performance import _seeds

    rules = load_rules(round_name)
    expected = tuple((name, f"effective_{name}", value) for name, value in rules.seeds.model_dump().items())
    assert _seeds(rules) == expected
    assert len(expected) == 3 and all(isinstance(value, int) for _, _, value in expected)
