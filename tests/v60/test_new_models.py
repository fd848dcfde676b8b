"""The accuracy and performance paths of each model new in v6.0, on copies of real v6.0 results.

Each case starts from a real result the official checker accepted (and mlpc too), makes one edit a
submitter hoping for a better number could make, and asserts the coded finding that rejects it; the
untouched twin stays valid, so every test can fail.
"""

import os

import pytest

from tests.v60.helpers import check, codes_for, copy_submitter, replace_text, result_dir, set_log_values, verdict

NVIDIA = "closed/NVIDIA"
KRAI = "closed/Krai"
NEBIUS = "closed/Nebius"
GOOGLE = "closed/Google"
DELL = "closed/Dell"
GATE = "closed/GATEOverflow"

# (submitter, model folder, scenario folder, accuracy.txt text as published, edited text, expected code)
ACCURACY_EDITS = [
    (NVIDIA, "gpt-oss-120b", "Offline", "'exact_match': 83.630", "'exact_match': 82.290", "AC001"),
    (KRAI, "wan-2.2-t2v-a14b", "offline", "'vbench_score': 69.78", "'vbench_score': 69.77", "AC001"),
    (NEBIUS, "qwen3-vl-235b-a22b", "offline", '{"f1": 0.7880721729948121}', '{"f1": 0.7823}', "AC001"),
    (GOOGLE, "dlrm-v3", "Offline", "lifetime_gauc/rating: 0.7862891896349031", "lifetime_gauc/rating: 0.7858", "AC001"),
    (GOOGLE, "dlrm-v3", "Offline", "lifetime_accuracy/rating: 0.6964261896038318", "lifetime_accuracy/rating: 0.6958",
     "AC001"),
    # lower NE is better: a worse NE than 0.86687 / 0.999 fails the rules' bound (the official checker lets it pass)
    (GOOGLE, "dlrm-v3", "Offline", "lifetime_ne/rating: 0.8675504587396468", "lifetime_ne/rating: 0.8678", "AC013"),
    (DELL, "yolo-95", "offline", "mAP=53.110%", "mAP=50.72%", "AC001"),
    # 52.0 passes yolo-95's 50.73 but not yolo-99's 52.866
    (GATE, "yolo-99", "offline", "mAP=53.108%", "mAP=52.0%", "AC001"),
]


@pytest.mark.parametrize("submitter,model,scenario,old,new,code", ACCURACY_EDITS,
                         ids=[f"{m}-{c}-{n[:12]}" for _, m, _, _, n, c in ACCURACY_EDITS])
def test_accuracy_below_the_v60_target_is_rejected(tmp_path, submitter, model, scenario, old, new, code):
    root = copy_submitter(tmp_path, submitter)
    result = result_dir(root, submitter, model, scenario)
    before = check(root)
    assert verdict(before, result) and not codes_for(before, result)
    replace_text(os.path.join(result, "accuracy", "accuracy.txt"), old, new)
    after = check(root)
    assert not verdict(after, result)
    assert code in codes_for(after, result)


def test_dlrm_ne_direction_default_and_official(tmp_path):
    """A better (lower) NE is fine by the rules, rejected by the official checker's lower bound (AC012 under
    --profile official); a worse one is the reverse (AC013 by default)."""
    root = copy_submitter(tmp_path, GOOGLE)
    result = result_dir(root, GOOGLE, "dlrm-v3", "Offline")
    replace_text(os.path.join(result, "accuracy", "accuracy.txt"), "lifetime_ne/rating: 0.8675504587396468",
                 "lifetime_ne/rating: 0.8601")
    assert verdict(check(root), result)
    official = check(root, "official")
    assert not verdict(official, result) and codes_for(official, result) == {"AC012"}


def test_rgat_percent_against_fraction(tmp_path):
    """The real Cisco rgat accuracy (71.803 %) fails the rules' percent target (AC013) and passes the official
    fraction target 0.721314 (no AC012): the official verdict for it would rest on the detail logs alone."""
    root = copy_submitter(tmp_path, "closed/Cisco")
    result = result_dir(root, "closed/Cisco", "rgat", "Offline")
    assert "AC013" in codes_for(check(root), result)
    official = check(root, "official")
    assert not {"AC001", "AC012", "AC013"} & codes_for(official, result)


# (submitter, model, scenario, log edits of performance/run_1/mlperf_log_detail.txt, expected code)
PERFORMANCE_EDITS = [
    (NVIDIA, "gpt-oss-120b", "Server", {"result_time_per_output_token_99.00_percentile_ns": 80000000}, "PF013"),
    (NVIDIA, "gpt-oss-120b", "Offline", {"effective_performance_sample_count": 6395}, "PF004"),
    (NVIDIA, "gpt-oss-120b", "Server", {"requested_use_token_latencies": False}, "PF012"),
    (KRAI, "wan-2.2-t2v-a14b", "singlestream", {"effective_qsl_rng_seed": 1780908523862526354}, "PF005"),
    (KRAI, "wan-2.2-t2v-a14b", "offline", {"effective_min_duration_ms": 60000}, "PF009"),
    (NEBIUS, "qwen3-vl-235b-a22b", "server", {"effective_target_latency_ns": 61000000000}, "PF007"),
    (NEBIUS, "qwen3-vl-235b-a22b", "offline", {"effective_samples_per_query": 48288}, "PF008"),
    (GOOGLE, "dlrm-v3", "Server", {"early_stopping_met": False}, "PF006"),
    (GOOGLE, "dlrm-v3", "Offline", {"effective_performance_sample_count": 349822}, "PF004"),
    (DELL, "yolo-95", "singlestream", {"effective_schedule_rng_seed": 0}, "PF005"),
    (GATE, "yolo-99", "multistream", {"effective_performance_sample_count": 63}, "PF004"),
]


@pytest.mark.parametrize("submitter,model,scenario,edits,code", PERFORMANCE_EDITS,
                         ids=[f"{m}-{s}-{c}" for _, m, s, _, c in PERFORMANCE_EDITS])
def test_performance_edit_is_rejected(tmp_path, submitter, model, scenario, edits, code):
    root = copy_submitter(tmp_path, submitter)
    result = result_dir(root, submitter, model, scenario)
    set_log_values(os.path.join(result, "performance", "run_1", "mlperf_log_detail.txt"), **edits)
    after = check(root)
    assert not verdict(after, result)
    assert code in codes_for(after, result)


def test_interactive_limits_default_and_official(tmp_path):
    """gpt-oss-120b Interactive with TTFT p99 2.5 s: over the Interactive limit (2 s), under the Server one (3 s).
    The rules reject it (PF021); the official checker, which picks the Server limits, accepts it."""
    root = copy_submitter(tmp_path, NVIDIA)
    result = result_dir(root, NVIDIA, "gpt-oss-120b", "Interactive")
    set_log_values(os.path.join(result, "performance", "run_1", "mlperf_log_detail.txt"),
                   **{"result_first_token_99.00_percentile_latency_ns": 2500000000})
    default = check(root)
    assert "PF021" in codes_for(default, result) and "PF013" not in codes_for(default, result)
    assert not verdict(default, result)
    official = check(root, "official")
    assert verdict(official, result) and not codes_for(official, result)
    # over the Server limit too: both profiles reject it, with PF013
    set_log_values(os.path.join(result, "performance", "run_1", "mlperf_log_detail.txt"),
                   **{"result_first_token_99.00_percentile_latency_ns": 3000000000})
    assert "PF013" in codes_for(check(root, "official"), result)


def test_invalid_run_and_loadgen_errors_default_and_official(tmp_path):
    """The official v6.0 checker accepts an INVALID run and LoadGen errors in the performance log (G1, G4)."""
    root = copy_submitter(tmp_path, KRAI)
    result = result_dir(root, KRAI, "wan-2.2-t2v-a14b", "offline")
    from tests.v60.helpers import add_log_entry
    log = os.path.join(result, "performance", "run_1", "mlperf_log_detail.txt")
    set_log_values(log, result_validity="INVALID")
    add_log_entry(log, "error_runtime", "IssueQueryThread 0 Ending early", error=True)
    default = check(root)
    assert {"PF001", "PF002"} <= codes_for(default, result)
    assert verdict(check(root, "official"), result)


def test_wan_singlestream_is_reported_in_seconds(tmp_path):
    root = copy_submitter(tmp_path, KRAI)
    result = result_dir(root, KRAI, "wan-2.2-t2v-a14b", "singlestream")
    report = check(root)
    row = next(r for r in report.results if os.path.join(root, r.id) == result)
    assert row.unit == "Latency (s)" and 57 < row.value < 58


def test_equal_issue_off_is_reported(tmp_path):
    """The published NVIDIA gpt-oss Interactive run has equal issue off although mlperf.conf asks for it:
    a warning in v6.0 (the official checker does not look)."""
    root = copy_submitter(tmp_path, NVIDIA)
    result = result_dir(root, NVIDIA, "gpt-oss-120b", "Interactive")
    assert "PF011" in codes_for(check(root), result, "warning")
    assert "PF011" not in codes_for(check(root, "official"), result, "warning")
