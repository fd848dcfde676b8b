"""The PL checks on constructed rounds: each code, its thresholds (read from rules/work_per_sample.yaml),
its data, and what is not assessed."""

from __future__ import annotations

import pytest

from checker.checks.base import SCOPES
from checker.registry import by_code
from tests.plausibility.helpers_pl import (
    H200,
    RULES,
    SEVERITY,
    TH,
    WORK,
    codes,
    ctx,
    resnet_rate,
    run,
    summary,
    system_fields,
)

PL_CODES = ("PL001", "PL002", "PL003", "PL004", "PL005")


def test_registered_as_round_checks_with_round_file_severities():
    checks = by_code()
    assert all(checks[c].scope == "round" and "round" in SCOPES for c in PL_CODES)
    assert {c: s.value for c, s in SEVERITY.items()} == {
        "PL001": "error", "PL002": "warning", "PL003": "warning", "PL004": "warning", "PL005": "info"}
    for name in ("v4.1", "v5.0", "v5.1"):
        from checker.loaders.rules import load_rules
        assert all(c in load_rules(name).severities for c in PL_CODES)


def test_thresholds_are_the_yaml_ones():
    assert (TH.utilisation_error, TH.utilisation_warning, TH.peer_ratio_warning, TH.peer_min_count,
            TH.server_offline_warning) == (1.0, 0.75, 1.3, 3, 1.10)


# ------------------------------------------------------------------ PL001 / PL002 utilisation


@pytest.mark.parametrize("u, expected", [
    (0.30, set()),
    (TH.utilisation_warning, set()),          # strictly above the threshold only
    (TH.utilisation_warning * 1.001, {"PL002"}),
    (0.90, {"PL002"}),
    (TH.utilisation_error, {"PL002"}),        # exactly 1.0 is still only "high"
    (TH.utilisation_error * 1.001, {"PL001"}),
    (2.5, {"PL001"}),
])
def test_utilisation_thresholds(u, expected):
    assert codes(ctx(summary(value=resnet_rate(u)))) == expected


def test_pl001_message_and_data_carry_every_input():
    s = summary(value=resnet_rate(1.2, accelerators=8), fields=system_fields(count="8"))
    [f] = run("PL001", ctx(s))
    assert f.result_id == s.id
    assert f.location.path == f"{s.id}/performance/run_1/mlperf_log_detail.txt"
    data = dict(f.data)
    assert data["utilisation"] == pytest.approx(1.2, rel=1e-6)
    assert (data["accelerators"], data["hardware"], data["precision"], data["peak_tops_per_accelerator"]) == (
        8, "NVIDIA H200-SXM-141GB", "fp8", 1979.0)
    assert data["work_gflop_per_sample"] == pytest.approx(8.18)
    assert data["threshold"] == 1.0 and data["units"] == "samples/s"
    assert "U = 1.200" in f.message and "×8" in f.message and "FP8 dense 1979" in f.message
    assert f.expected == "U <= 1" and f.actual == "U = 1.200"
    [g] = run("PL001", ctx(summary(value=resnet_rate(2.5))))
    assert "twice the dense peak" in g.message


def test_latency_scenarios_use_the_latency_bound():
    l_min_ms = 8.18e9 / 1979e12 * 1000
    s = summary(scenario="SingleStream", value=l_min_ms / 1.5)  # U = 1.5
    [f] = run("PL001", ctx(s))
    assert dict(f.data)["utilisation"] == pytest.approx(1.5) and dict(f.data)["latency_s"] > 0
    ms = summary(scenario="MultiStream", value=8 * l_min_ms / 0.8)  # 8 samples per query, U = 0.8
    assert codes(ctx(ms)) == {"PL002"}


def test_llm_tokens_per_second_uses_the_accuracy_run_output_length():
    # v4.1 labels llama2 token rates "Samples/s"; the unit follows the LoadGen key (result_tokens_per_second)
    from checker.metrics.plausibility import llm_work_per_sample
    w = WORK.lookup("llama2-70b-99")
    l_out = 280.0
    f = llm_work_per_sample(w.matmul_params, w.input_tokens, l_out, w.layers, w.attention_dim)
    tokens = 0.9 * 8 * 1979e12 / f * l_out  # U = 0.9 on 8 accelerators
    s = summary(model="llama2-70b-99", value=tokens, unit="Samples/s", fields=system_fields(count="8"),
                accuracy=(("ROUGE1", "44.4"), ("TOKENS_PER_SAMPLE", str(l_out))))
    [found] = run("PL002", ctx(s))
    data = dict(found.data)
    assert data["units"] == "tokens/s" and data["output_tokens_per_sample"] == pytest.approx(l_out)
    assert data["utilisation"] == pytest.approx(0.9, rel=1e-6)
    # without TOKENS_PER_SAMPLE the reference output length (294.45) is used: U within a few percent
    bare = summary(model="llama2-70b-99", value=tokens, fields=system_fields(count="8"))
    [again] = run("PL002", ctx(bare))
    assert dict(again.data)["output_tokens_per_sample"] == pytest.approx(w.reference_output_tokens)
    assert dict(again.data)["utilisation"] == pytest.approx(0.9, rel=0.04)


# ------------------------------------------------------------------ PL003 peers


def _peers(top_ratio: float, n_peers: int = 3, **kw):
    rows = [summary(f"peer{i}", value=resnet_rate(0.3)) for i in range(n_peers)]
    rows.append(summary("top", value=resnet_rate(0.3) * top_ratio, **kw))
    return ctx(*rows)


@pytest.mark.parametrize("ratio, n_peers, fires", [
    (1.5, 3, True), (TH.peer_ratio_warning * 1.001, 3, True), (TH.peer_ratio_warning, 3, False),
    (1.1, 3, False), (2.0, TH.peer_min_count - 1, False), (2.0, 5, True),
])
def test_peer_ratio_threshold_and_minimum_peers(ratio, n_peers, fires):
    found = run("PL003", _peers(ratio, n_peers))
    assert bool(found) == fires
    if fires:
        [f] = found
        assert f.result_id == "closed/Acme/results/top/resnet50/Offline"
        data = dict(f.data)
        assert data["peer_ratio"] == pytest.approx(ratio, rel=1e-6) and data["peer_count"] == n_peers
        assert data["peer_median"] == pytest.approx(resnet_rate(0.3))


def test_peers_are_same_sku_same_power_mode_per_accelerator():
    # 8 accelerators at 8x the rate of 1-accelerator peers: per accelerator it is the same
    assert not run("PL003", _peers(8.0 * 1.0, fields=system_fields(count="8")))
    # another SKU is not a peer
    assert not run("PL003", _peers(1.5, fields=system_fields("NVIDIA H100-SXM-80GB")))
    # a MaxQ system is not a peer of default-power systems
    rows = [summary(f"peer{i}_maxq", value=resnet_rate(0.2)) for i in range(3)]
    rows.append(summary("top", value=resnet_rate(0.3)))
    assert not run("PL003", ctx(*rows))


def test_invalid_results_are_neither_assessed_nor_peers():
    rows = [summary(f"peer{i}", value=resnet_rate(0.3)) for i in range(2)]
    rows.append(summary("bad", value=resnet_rate(0.01), valid=False))
    rows.append(summary("top", value=resnet_rate(0.6)))
    assert not run("PL003", ctx(*rows))  # only 2 valid peers
    assert codes(ctx(summary(value=resnet_rate(5.0), valid=False))) == set()


def test_open_division_is_not_assessed():
    assert codes(ctx(summary(value=resnet_rate(5.0), division="open"))) == set()


# ------------------------------------------------------------------ PL004 Server / Offline


@pytest.mark.parametrize("ratio, fires", [(1.2, True), (TH.server_offline_warning * 1.001, True),
                                          (TH.server_offline_warning, False), (1.05, False), (0.9, False)])
def test_server_offline_threshold(ratio, fires):
    off = summary(scenario="Offline", value=resnet_rate(0.3))
    srv = summary(scenario="Server", value=resnet_rate(0.3) * ratio, unit="Queries/s")
    found = run("PL004", ctx(off, srv))
    assert bool(found) == fires
    if fires:
        [f] = found
        assert f.result_id == srv.id
        data = dict(f.data)
        assert data["server_offline_ratio"] == pytest.approx(ratio, rel=1e-6)
        assert data["offline_result"] == off.id and data["offline"] == pytest.approx(off.value)


def test_server_offline_needs_a_valid_offline_of_the_same_system_and_model():
    srv = summary(scenario="Server", value=resnet_rate(0.6))
    assert not run("PL004", ctx(summary(scenario="Offline", value=resnet_rate(0.3), valid=False), srv))
    assert not run("PL004", ctx(summary("other", scenario="Offline", value=resnet_rate(0.3)), srv))
    assert not run("PL004", ctx(summary(model="bert-99", scenario="Offline", value=100.0), srv))


# ------------------------------------------------------------------ PL005 no assessment


def test_no_assessment_for_unknown_accelerator_and_benchmark():
    known = summary("known", value=resnet_rate(0.3))
    mystery = summary("mystery", value=1e9, fields=system_fields("Mystery X1"))
    unet = summary("known", model="3d-unet-99", value=5.0)
    found = run("PL005", ctx(known, mystery, unet))
    by_id = {f.result_id: f for f in found}
    assert set(by_id) == {mystery.id, unet.id}
    f = by_id[mystery.id]
    assert f.location.path == "closed/Acme/systems/mystery.json" and f.location.pointer == "/accelerator_model_name"
    assert "unknown hardware 'Mystery X1'" in f.message and "never" not in f.message
    assert by_id[unet.id].location.path.endswith("/performance/run_1/mlperf_log_detail.txt")
    assert "no minimum-work figure" in by_id[unet.id].message
    # a huge value on unknown hardware is not guessed at: no utilisation finding
    assert not run("PL001", ctx(known, mystery)) and not run("PL002", ctx(known, mystery))


def test_no_assessment_unknown_count_and_cpu_fallback():
    na = summary("na", value=resnet_rate(0.3), fields=system_fields(count="N/A", host_processors_per_node="N/A"))
    known = summary("known", value=resnet_rate(0.3))
    [f] = run("PL005", ctx(known, na))
    assert f.result_id == na.id
    cpu = summary("cpu", value=10.0, fields=system_fields("N/A", count="0",
                                                          host_processor_model_name="Intel(R) Xeon(R) Platinum 8592+"))
    assert codes(ctx(known, cpu)) == set()  # the CPU sockets are assessed (2 x 511 INT8 TOPS)


def test_no_assessment_is_silent_when_nothing_in_the_tree_is_assessable():
    only_unknown = ctx(summary("a", value=1e9, fields=system_fields("Mystery X1")),
                       summary("b", model="gptj-99", value=1.0, fields=system_fields("Example NPU")))
    assert codes(only_unknown) == set()


# ------------------------------------------------------------------ robustness and configuration


@pytest.mark.parametrize("fields", [
    (), (("accelerators_per_node", "-3"),), (("accelerators_per_node", 2.5), ("accelerator_model_name", H200)),
    (("number_of_nodes", "many"), ("accelerator_model_name", H200), ("accelerators_per_node", "x")),
    (("status", None),), (("accelerator_model_name", "\x00\udcff"),),
])
def test_odd_system_fields_never_crash(fields):
    rows = ctx(summary("odd", value=resnet_rate(0.3), fields=fields), summary("known", value=resnet_rate(0.3)),
               summary("none", value=None), summary("zero", value=0.0),
               summary("inf", value=float("inf")), summary("weird", scenario="Mystery", value=3.0))
    for code in PL_CODES:
        run(code, rows)  # no exception


def test_thresholds_follow_the_table(monkeypatch):
    import checker.loaders.hardware as hardware

    hw, work = hardware.default_tables()
    stricter = work.model_copy(update={"thresholds": TH.model_copy(update={"utilisation_warning": 0.2})})
    monkeypatch.setattr(hardware, "default_tables", lambda: (hw, stricter))  # (the PL checks look it up there)
    assert codes(ctx(summary(value=resnet_rate(0.3)))) == {"PL002"}


def test_engine_stamps_severity_and_result_id_and_pl001_invalidates():
    from checker.engine import _run
    from checker.engine import PROFILES
    out: list = []
    rows = ctx(summary(value=resnet_rate(1.5)))
    _run(by_code()["PL001"], rows, RULES, PROFILES["default"], out, scope_of=lambda f: f.result_id or "")
    [f] = out
    assert (f.code, f.severity.value, f.result_id) == ("PL001", "error", rows.results[0].id)
