"""A detail log against itself (PF025): every relation holds on real logs and breaks when one figure moves."""

import glob
import os

import pytest

from checker.loaders.loadgen_log import parse_detail_log
from checker.metrics.run_record import Bounds, contradictions
from tests.conftest import REAL

BOUNDS = Bounds(offline_band=(0.99, 1.1), server_completed_max=1.01, tolerance=0.001, power_window_band=(0.9, 1.00001),
                power_window_slack_s=0.002)


class Log(dict):
    def get(self, key, default=None):
        return super().get(key, default)


def _latencies(prefix="result_", mid="", **over):
    values = {f"{prefix}min{mid}_latency_ns": 100, f"{prefix}max{mid}_latency_ns": 1000, f"{prefix}mean{mid}_latency_ns": 400}
    return values | over


# a Server run as LoadGen logs it: 24576 queries scheduled over 4096 s, latencies 10-60 s
SERVER = Log(effective_scenario="Server", generated_samples_per_query=1, generated_query_count=24576,
             generated_query_duration=4096_000_000_000, result_query_count=24576,
             result_scheduled_samples_per_sec=5.99976, result_completed_samples_per_sec=5.94,
             result_min_latency_ns=10_000_000_000, result_max_latency_ns=60_000_000_000,
             result_mean_latency_ns=30_000_000_000, result_completed_tokens_per_second=5.94 * 290,
             result_token_throughput_with_loadgen_overhead=5.99976 * 290)
OFFLINE = Log(effective_scenario="Offline", generated_samples_per_query=24576, result_samples_per_second=8.0,
              result_max_latency_ns=3072_000_000_000, result_min_latency_ns=1_000_000_000,
              result_mean_latency_ns=1500_000_000_000, result_tokens_per_second=2400.0)
SINGLE = Log(effective_scenario="SingleStream", result_min_latency_ns=900_000, result_max_latency_ns=3_000_000,
             result_mean_latency_ns=1_250_000, result_qps_without_loadgen_overhead=800.0,
             early_stopping_latency_ss=1_500_000, early_stopping_latency_ms=2_100_000,
             early_stopping_result=" * Processed at least 64 queries (5000).",
             **{"result_50.00_percentile_latency_ns": 1_200_000, "result_90.00_percentile_latency_ns": 1_450_000,
                "result_99.00_percentile_latency_ns": 2_000_000})
MULTI = Log(effective_scenario="MultiStream", result_min_query_latency_ns=9_000_000,
            result_max_query_latency_ns=30_000_000, result_mean_query_latency_ns=12_000_000,
            early_stopping_latency_ms=21_000_000,
            **{"result_99.00_percentile_per_query_latency_ns": 20_000_000})
GPTJ = Log(effective_scenario="Offline", generated_samples_per_query=13368, result_samples_per_second=2.98724,
           result_max_latency_ns=4_475_040_000_000, result_inferred_tokens_per_second=206.119)


@pytest.mark.parametrize("log", [SERVER, OFFLINE, SINGLE, MULTI, GPTJ], ids=["server", "offline", "ss", "ms", "gptj"])
def test_untouched_runs_hold(log):
    assert contradictions(log, Bounds(**{**BOUNDS.__dict__, "inferred_tokens_per_sample": 69.0})) == []


@pytest.mark.parametrize("log,key,factor", [
    (SERVER, "result_completed_samples_per_sec", 1.5),
    (SERVER, "result_scheduled_samples_per_sec", 1.5),
    (SERVER, "result_completed_tokens_per_second", 1.5),
    (SERVER, "result_completed_samples_per_sec", 0.9),  # slower than the schedule allows, too
    (OFFLINE, "result_samples_per_second", 1.5),
    (SINGLE, "early_stopping_latency_ss", 1 / 1.5),
    (SINGLE, "early_stopping_latency_ms", 1 / 1.5),
    (SINGLE, "result_qps_without_loadgen_overhead", 1.5),
    (SINGLE, "result_90.00_percentile_latency_ns", 1 / 1.5),  # below the 50th percentile
    (MULTI, "early_stopping_latency_ms", 1 / 1.5),
    (GPTJ, "result_inferred_tokens_per_second", 1.5),
])
def test_one_figure_moved_is_named(log, key, factor):
    edited = Log({**log, key: log[key] * factor})
    bounds = Bounds(**{**BOUNDS.__dict__, "inferred_tokens_per_sample": 69.0})
    assert key in {c.key for c in contradictions(edited, bounds)}


def test_relations_without_a_tolerance_are_not_applied():
    edited = Log({**SERVER, "result_scheduled_samples_per_sec": SERVER["result_scheduled_samples_per_sec"] * 1.5})
    assert contradictions(edited, Bounds()) == []


def test_token_singlestream_estimate_is_the_first_token_one():
    log = Log(effective_scenario="SingleStream", early_stopping_ttft_result=" * Processed at least 64 queries",
              early_stopping_latency_ss=272_739_682, result_max_latency_ns=5_000_000_000,
              **{"result_90.00_percentile_latency_ns": 3_545_895_439,
                 "result_first_token_90.00_percentile_latency_ns": 245_686_253,
                 "result_first_token_max_latency_ns": 384_914_280})
    assert contradictions(log, BOUNDS) == []
    edited = Log({**log, "early_stopping_latency_ss": 150_000_000})
    assert [c.key for c in contradictions(edited, BOUNDS)] == ["early_stopping_latency_ss"]


def test_every_real_performance_log_holds():
    logs = [p for p in glob.glob(os.path.join(REAL, "v*", "**", "performance", "run_1", "mlperf_log_detail.txt"),
                                 recursive=True)]
    if not logs:
        pytest.skip(f"real submission data not found at {REAL}")
    found = {}
    for path in logs:
        factor = 69.0 if "/gptj" in path else None
        problems = contradictions(parse_detail_log(path), Bounds(**{**BOUNDS.__dict__, "inferred_tokens_per_sample": factor}))
        if problems:
            found[path] = [c.message for c in problems]
    assert len(logs) > 150
    assert found == {}


# an Offline run of 3072 s as LoadGen stamps it (power_begin/power_end to the millisecond)
STAMPED = Log({**OFFLINE, "power_begin": "02-12-2026 19:53:24.890", "power_end": "02-12-2026 20:44:36.890"})


@pytest.mark.parametrize("last_ns,caught", [(3072_000_000_000, False), (3072_001_999_999, False),
                                            (3072_050_000_000, True), (2764_000_000_000, True)])
def test_offline_duration_against_the_power_window(last_ns, caught):
    """The last completion (and the rate that follows from it) moved together: the stamps still tell."""
    edited = Log({**STAMPED, "result_max_latency_ns": last_ns,
                  "result_samples_per_second": STAMPED["generated_samples_per_query"] / (last_ns / 1e9)})
    found = [c.key for c in contradictions(edited, BOUNDS)]
    assert ("result_max_latency_ns" in found) is caught, found


def test_server_rate_and_latencies_edited_alike_are_seen_through_the_window():
    log = Log({**SERVER, "power_begin": "02-12-2026 19:53:24.890", "power_end": "02-12-2026 21:02:44.000"})
    assert contradictions(log, BOUNDS) == []
    faster = Log({**log, **{k: log[k] * 1.5 for k in ("result_completed_samples_per_sec",
                                                        "result_scheduled_samples_per_sec")},
                  "generated_query_duration": log["generated_query_duration"] // 1.5 * 1})
    assert "result_completed_samples_per_sec" in {c.key for c in contradictions(faster, BOUNDS)}


def test_unreadable_stamps_are_left_to_the_power_checks():
    assert contradictions(Log({**STAMPED, "power_end": "yesterday"}), BOUNDS) == []
