"""Summary log vs detail log: the fields they share, compared within LoadGen's two roundings."""

import glob
import os

import pytest

from checker.loaders.loadgen_log import parse_detail_log, parse_summary_log
from checker.metrics.log_digest import detail_key, disagreements
from tests.conftest import REAL


class Log(dict):
    def get(self, key, default=None):
        return super().get(key, default)


DETAIL = Log(effective_scenario="Offline", effective_test_mode="PerformanceOnly", result_validity="VALID",
             result_samples_per_second=503.212, result_min_latency_ns=1977982590, result_min_duration_met=True,
             effective_qsl_rng_seed=1780908523862526354, effective_min_duration_ms=600000)
SUMMARY = {"Scenario": "Offline", "Mode": "PerformanceOnly", "Result is": "VALID", "Samples per second": "503.21",
           "Min latency (ns)": "1977982590", "Min duration satisfied": "Yes", "qsl_rng_seed": "1780908523862526354",
           "min_duration (ms)": "600000", "SUT name": "anything"}


def test_digest_of_the_same_run_agrees():
    assert disagreements(SUMMARY, DETAIL) == []


@pytest.mark.parametrize("label,value", [
    ("Result is", "INVALID"), ("Scenario", "Server"), ("Mode", "AccuracyOnly"), ("Samples per second", "503.23"),
    ("Min latency (ns)", "1977982591"), ("Min duration satisfied", "No"), ("qsl_rng_seed", "1"),
    ("Samples per second", "fast"),
])
def test_each_edited_field_is_a_disagreement(label, value):
    found = disagreements({**SUMMARY, label: value}, DETAIL)
    assert [(d.label, d.summary, d.setting) for d in found] == [(label, value, False)]


def test_run_length_settings_are_marked_as_settings():
    found = disagreements({**SUMMARY, "min_duration (ms)": "0"}, DETAIL)
    assert [(d.key, d.setting) for d in found] == [("effective_min_duration_ms", True)]


def test_multistream_latencies_are_per_query():
    detail = Log(effective_scenario="MultiStream", result_min_latency_ns=100, result_min_query_latency_ns=900)
    assert disagreements({"Min latency (ns)": "900"}, detail) == []
    assert len(disagreements({"Min latency (ns)": "901"}, detail)) == 1


def test_every_real_log_pair_agrees_outside_the_known_settings_quirk():
    pairs = [p for p in glob.glob(os.path.join(REAL, "*", "**", "mlperf_log_summary.txt"), recursive=True)
             if os.path.isfile(os.path.join(os.path.dirname(p), "mlperf_log_detail.txt"))]
    if not pairs:
        pytest.skip(f"real submission data not found at {REAL}")
    record, settings = [], []
    for path in pairs:
        found = disagreements(parse_summary_log(path), parse_detail_log(os.path.join(os.path.dirname(path),
                                                                                        "mlperf_log_detail.txt")))
        record += [(path, d) for d in found if not d.setting]
        settings += [path for d in found if d.setting]
    assert len(pairs) > 200 and record == []
    assert all("Jetson-Thor" in path for path in settings)  # LoadGen 6.0.9 summaries, v6.0 open NVIDIA


@pytest.mark.parametrize("label,key", [
    ("Early stopping 90th percentile estimate", "early_stopping_latency_ss"),  # LoadGen 4.x
    ("Early stopping 90.0th percentile estimate", "early_stopping_latency_ss"),  # LoadGen 5.x and later
    ("Early stopping 99.0th percentile estimate", "early_stopping_latency_ms"),
    ("90.0th percentile latency (ns)", "result_90.00_percentile_latency_ns"),
    ("99.9th percentile latency (ns)", "result_99.90_percentile_latency_ns"),
    ("Tokens per second (inferred)", "result_inferred_tokens_per_second"),
    ("Completed tokens per second (inferred)", "result_inferred_completed_tokens_per_second"),
])
def test_result_labels_of_every_loadgen_release_name_their_detail_key(label, key):
    assert detail_key(label) == key


def test_new_style_result_line_edited_in_the_summary_is_a_disagreement():
    detail = Log(effective_scenario="SingleStream", early_stopping_latency_ss=1203352,
                 **{"result_90.00_percentile_latency_ns": 1203311})
    summary = {"90.0th percentile latency (ns)": "1203311", "Early stopping 90.0th percentile estimate": "1203352"}
    assert disagreements(summary, detail) == []
    edited = {**summary, "Early stopping 90.0th percentile estimate": "802235"}
    assert [d.key for d in disagreements(edited, detail)] == ["early_stopping_latency_ss"]
