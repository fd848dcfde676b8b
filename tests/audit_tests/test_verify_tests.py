"""Pure verification: thresholds, one-/two-sided rules, official quirks."""

from __future__ import annotations

import struct

from checker.audit import verify_tests as vt
from checker.loaders.audit_spec import load_round_spec
from checker.loaders.loadgen_log import parse_summary_text

from .helpers import summary

V41 = load_round_spec("v4.1")
V51 = load_round_spec("v5.1")


def perf(test, scenario, ref, val, spec=V41, valid=True):
    return vt.verify_performance(
        test, spec.tests[test].performance,
        parse_summary_text(summary(scenario, True, ref)), parse_summary_text(summary(scenario, valid, val)),
    )


def test_test04_is_one_sided_10pct_offline():
    assert perf("TEST04", "Offline", 1000, 1099).passed
    assert not perf("TEST04", "Offline", 1000, 1100).passed  # exclusive bound
    assert perf("TEST04", "Offline", 1000, 500).passed  # slower is fine


def test_test04_latency_to_throughput_always_relaxed():
    v = perf("TEST04", "SingleStream", 1_000_000, 850_000)  # 17.6% faster
    assert v.threshold_pct == 20 and v.passed
    assert v.compared_reference == 1000.0
    assert not perf("TEST04", "SingleStream", 1_000_000, 830_000).passed  # 20.5% faster


def test_test05_not_worse_5pct_and_relaxation():
    assert perf("TEST05", "Offline", 1000, 951).passed
    assert not perf("TEST05", "Offline", 1000, 950).passed
    assert perf("TEST05", "Offline", 1000, 5000).passed  # better is fine
    assert not perf("TEST05", "SingleStream", 1_000_000, 1_060_000).passed
    assert perf("TEST05", "SingleStream", 150_000, 170_000).passed  # ref <= 200000 ns: 20%


def test_test01_perf_is_two_sided():
    assert perf("TEST01", "Offline", 1000, 1050).passed
    assert not perf("TEST01", "Offline", 1000, 1150).passed
    assert not perf("TEST01", "Offline", 1000, 850).passed


def test_invalid_run_fails():
    v = perf("TEST04", "Offline", 1000, 1000, valid=False)
    assert not v.passed and any("INVALID" in r for r in v.reasons)


def entries(pairs):
    return [vt.OutputEntry(q, d) for q, d in pairs]


def test_test01_first_element_vs_full():
    acc = entries([(1, "AA00"), (2, "BB00")])
    v = vt.verify_test01_outputs(acc, entries([(1, "AA00"), (2, "BBFF")]))
    assert v.official_passed and not v.passed and v.num_perf_log_full_mismatch == 1
    v = vt.verify_test01_outputs(acc, entries([(1, "CC00")]))
    assert not v.official_passed and v.num_perf_log_data_mismatch == 1
    v = vt.verify_test01_outputs(acc, entries([(9, "AA00")]))
    assert not v.official_passed and v.num_missing_qsl_idxs == 1


def test_test01_fallback_deltas_and_first_character_bug():
    rule41, rule51 = V41.tests["TEST01"].accuracy, V51.tests["TEST01"].accuracy
    base = "Accuracy Results: {'FID_SCORE': 23.0, 'CLIP_SCORE': 31.7}\n"
    comp = "Accuracy Results: {'FID_SCORE': 23.345, 'CLIP_SCORE': 31.7}\n"  # FID delta ~1.48%
    v41 = vt.verify_test01_fallback("stable-diffusion-xl", base, comp, rule41)
    v51 = vt.verify_test01_fallback("stable-diffusion-xl", base, comp, rule51)
    assert v41.passed and v41.official_passed
    assert v51.passed and not v51.official_passed  # official v5.x allows only 1%
    v = vt.verify_test01_fallback("resnet", "accuracy=76.0%\n", "accuracy=75.0%\n", rule41)
    assert not v.passed
    v = vt.verify_test01_fallback("3d-unet-99.9", "Accuracy: mean = 0.8600\n", "Accuracy: mean = 0.8605\n", rule41)
    assert v.passed  # 0.058% <= 0.1%
    assert not vt.verify_test01_fallback("resnet", "nothing\n", "accuracy=75\n", rule41).passed


def tok(values):
    return struct.pack(f"<{len(values)}q", *values).hex().upper()


def test_test06_eos_first_token_length():
    rule = V41.tests["TEST06"].llm_output
    good = [vt.OutputEntry(i, tok([5, 6, 2]), tok([5]), 3) for i in range(3)]
    v = vt.verify_test06(good, "Server", 2, rule)
    assert v.passed and v.official_passed
    bad = good + [vt.OutputEntry(7, tok([5, 2, 2]), tok([5]), 3)]
    v = vt.verify_test06(bad, "Server", 2, rule)
    assert not v.passed and not v.official_passed and v.eos_violations == (7,)
    v = vt.verify_test06([vt.OutputEntry(1, tok([5, 6]), tok([9]), 2)], "Server", 2, rule)
    assert v.first_token_strict == "False" and not v.official_passed
    v = vt.verify_test06([vt.OutputEntry(1, tok([5, 6]), None, 3)], "Offline", 2, rule)
    assert not v.length_ok and not v.passed
    v = vt.verify_test06([], "Offline", 2, rule)
    assert v.official_passed and not v.passed  # nothing verified


def test_test06_width_inferred_from_token_count():
    rule = V41.tests["TEST06"].llm_output
    data = struct.pack("<3i", 5, 6, 2).hex()
    v = vt.verify_test06([vt.OutputEntry(1, data, None, 3)], "Offline", 2, rule)
    assert v.element_bytes == 4 and v.passed


def test_submitted_test06_skipped_only_offline_in_strict():
    rule = V41.tests["TEST06"].llm_output
    text = "First token check pass: Skipped\nEOS check pass: True\nSample length check pass: True\n"
    official, strict = vt.read_verify_test06(text, "Server", rule)
    assert official.passed and not strict
    official, strict = vt.read_verify_test06(text, "Offline", rule)
    assert official.passed and strict


def test_test01_outputs_compare_as_bytes_whatever_the_hex_case():
    acc = [vt.OutputEntry(1, "aa00"), vt.OutputEntry(2, "BB0f", raw=bytes.fromhex("BB0f"))]
    perf = [vt.OutputEntry(1, "AA00", raw=b"\xaa\x00"), vt.OutputEntry(2, "bb0F")]
    v = vt.verify_test01_outputs(acc, perf)
    assert v.passed and v.official_passed and v.num_perf_log_full_mismatch == 0
    v = vt.verify_test01_outputs(acc, [vt.OutputEntry(1, "AA01")])
    assert v.official_passed and not v.passed  # first element equal, the rest differs
    v = vt.verify_test01_outputs([vt.OutputEntry(1, "not hex")], [vt.OutputEntry(1, "NOT HEX")])
    assert v.passed  # text that is not hex is compared as upper-cased text, as before


def test_test01_on_reference_keys_reduced_to_the_logged_samples_gives_the_same_verdict():
    """The load stage keeps of the accuracy-mode log only the samples the TEST01 log holds (plus its own
    consistency counts): the verdict is the one the whole log gives, duplicates and empty outputs included."""
    acc = [(0, b"01"), (1, b""), (1, b""), (2, b"0A"), (2, b"0B"), (3, b"FF"), (4, b"00"), (4, b"00"), (5, b"")]
    perf = [(1, b""), (2, b"0A"), (3, b"FE"), (7, b"00"), (5, b"01")]
    whole = vt.verify_test01_keys(acc, perf)
    reduced = vt.reference_keys(acc, {qsl for qsl, _ in perf})
    assert sorted(reduced.keys) == [1, 2, 3, 5] and reduced.entries == 9
    assert reduced.duplicates == 3 and reduced.mismatches == 1  # qsl 2 logged again with other data
    assert vt.verify_test01_keys(reduced, perf) == whole
    assert whole.num_acc_log_duplicate_keys == 3 and whole.num_acc_log_data_mismatch == 1
    assert whole.num_perf_log_qsl_idx_match == 4 and whole.num_missing_qsl_idxs == 1
    assert whole.num_perf_log_full_mismatch == 2  # qsl 3 (FF vs FE) and qsl 5 (empty vs 01)
