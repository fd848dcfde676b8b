"""Plausibility bounds against the worked numbers of docs/plausibility.md, and on real data."""

from __future__ import annotations

from pathlib import Path

import pytest

from checker.audit.tree_adapter import submissions_from_tree
from checker.loaders.hardware import (
    HardwareTable,
    WorkTable,
    default_tables,
    load_hardware,
    load_work,
    normalise_hw_name,
)
from checker.metrics.plausibility import (
    assess,
    assess_result,
    decode_bandwidth_latency_bound,
    latency_utilisation,
    llm_work_per_sample,
    peer_ratio,
    priority_score,
    roofline_utilisation,
    server_offline_ratio,
)
from checker.models.audit_inputs import ScenarioResult, Submission
from tests.conftest import REAL

SHARED = Path(REAL)  # the shared real data (tests/conftest.py; MLPC_SHARED moves it)
HW, WORK = default_tables()
T = 1e12
G = 1e9


def need(p: Path) -> Path:
    if not p.is_dir():
        pytest.skip(f"real submission data not available at {p} (../shared is absent)")
    return p


def sub(acc="NVIDIA H200-SXM-141GB", n=8, *results, **kw) -> Submission:
    return Submission(division="closed", submitter=kw.pop("submitter", "Acme"),
                      system_id=kw.pop("system_id", "box"), status="available",
                      accelerator_model_name=acc, accelerators_per_node=n, number_of_nodes=1,
                      results=results, **kw)


def r(model, scenario, value, units="samples/s", **kw) -> ScenarioResult:
    return ScenarioResult(model=model, scenario=scenario, value=value, units=units, **kw)


# ------------------------------------------------------------------ tables


def test_tables_load_strictly_and_every_figure_has_a_source():
    from checker.models.record import mirror

    # (the shipped tables are held as records of the validated models: checker.models.record)
    assert (HW, WORK) == (mirror(load_hardware()), mirror(load_work()))
    assert isinstance(load_hardware(), HardwareTable) and isinstance(load_work(), WorkTable)
    assert all(e.source for e in HW.entries) and all(b.source for b in WORK.benchmarks)
    t = WORK.thresholds
    assert (t.utilisation_error, t.utilisation_warning, t.peer_ratio_warning, t.peer_min_count,
            t.server_offline_warning) == (1.0, 0.75, 1.3, 3, 1.10)


def test_unknown_key_is_a_hard_error(tmp_path):
    import pydantic
    bad = tmp_path / "hw.yaml"
    bad.write_text("format: mlpc-hardware/1\nentries: []\nsurprise: 1\n")
    with pytest.raises(pydantic.ValidationError):
        load_hardware(bad)
    bad2 = tmp_path / "w.yaml"
    bad2.write_text("format: mlpc-work-per-sample/2\nbenchmarks: []\n")
    with pytest.raises(pydantic.ValidationError):
        load_work(bad2)


@pytest.mark.parametrize("name, key", [
    ("NVIDIA H200-SXM-141GB", "NVIDIA H200-SXM-141GB"),
    ("NVIDIA H200-SXM-141GB-CTS", "NVIDIA H200-SXM-141GB"),
    ("NVIDIA H100-SXM-80GB", "NVIDIA H100-SXM-80GB"),
    ("NVIDIA H100-PCIe-80GB", "NVIDIA H100-PCIe-80GB"),
    ("NVIDIA H100-NVL-94GB", "NVIDIA H100-NVL-94GB"),
    ("NVIDIA GH200-144GB_aarch64", "NVIDIA GH200 144GB"),
    ("NVIDIA B200-SXM-180GB", "NVIDIA B200-SXM-180GB"),
    ("NVIDIA L40S", "NVIDIA L40S"),
    ("NVIDIA L4", "NVIDIA L4"),
    ("NVIDIA Jetson AGX Orin 64G", "NVIDIA Jetson AGX Orin 64G"),
    ("UntetherAI speedAI240 Slim", "UntetherAI speedAI240 Slim"),
    ("UntetherAI speedAI240 Preview", "UntetherAI speedAI240 Preview"),
])
def test_hardware_matching(name, key):
    assert [e.key for e in HW.lookup(name, "accelerator")] == [key]


@pytest.mark.parametrize("name", ["NVIDIA GeForce RTX 4090", "NVIDIA RTX-2000E-Ada-16GB",
                                  "[MAXSUN] MS-Intel Arc Pro B60 Dual 48G Turbo", "N/A", ""])
def test_unsourced_hardware_is_unknown(name):
    assert HW.lookup(name) == []


def test_cpu_names_normalised():
    assert normalise_hw_name("INTEL(R) XEON(R) PLATINUM 8592+") == "intelxeonplatinum8592+"
    assert [e.key for e in HW.lookup("INTEL(R) XEON(R) PLATINUM 8592+", "cpu")] == [
        "Intel Xeon Platinum 8592+"]
    assert HW.lookup("Intel Xeon Platinum 8592V", "cpu") == []


def test_best_dense_precision():
    b200 = HW.lookup("NVIDIA B200-SXM-180GB")[0]
    assert b200.roofline_peak() == ("fp4", 9000)
    orin = HW.lookup("NVIDIA Jetson AGX Orin 64G")[0]
    assert orin.roofline_peak() == ("int8", 137.5)


# ------------------------------------------------------------------ worked numbers (plausibility.md)


def test_work_per_sample_llm_matches_section_2_3():
    gptj = WORK.lookup("gptj-99")
    f740 = llm_work_per_sample(gptj.matmul_params, 740, 69, gptj.layers, gptj.attention_dim, 4)
    f870 = llm_work_per_sample(gptj.matmul_params, 870, 69, gptj.layers, gptj.attention_dim, 4)
    assert f740 / T == pytest.approx(12.1, abs=0.05)
    assert f870 / T == pytest.approx(13.7, abs=0.05)
    ll = WORK.lookup("llama2-70b-99")
    for l_out in (274, 294.45, 300):  # "F_tok ≈ 240–250 GFLOP per output token"
        f = llm_work_per_sample(ll.matmul_params, ll.input_tokens, l_out, ll.layers,
                                ll.attention_dim)
        assert 240 <= f / l_out / G <= 250.5  # 250.1 at the shortest outputs
    # 2N = 137.4 GFLOP/token, attention adds about 0.5–0.7 %
    two_n_part = 2 * ll.matmul_params * (ll.input_tokens + 294.45)
    f = llm_work_per_sample(ll.matmul_params, ll.input_tokens, 294.45, ll.layers, ll.attention_dim)
    assert 0.003 < f / two_n_part - 1 < 0.008
    mx = WORK.lookup("mixtral-8x7b")
    f = llm_work_per_sample(mx.matmul_params, mx.input_tokens, 144.84, mx.layers, mx.attention_dim)
    assert f / 144.84 / G == pytest.approx(101, abs=1.0)


def test_fixed_work_figures():
    assert WORK.lookup("resnet50").gflop_per_sample == 8.18
    assert WORK.lookup("bert-99.9").gflop_per_sample == 106.8
    assert WORK.lookup("stable-diffusion-xl").gflop_per_sample / 1000 == pytest.approx(281.1)
    assert WORK.lookup("3d-unet-99.9") is None


def test_llama2_h200_compute_roofline_section_2_4():
    # "1×H200 … compute roofline (prefill + decode) ≈ 8.1 k tok/s; best measured 4.49 k (0.55)"
    ll = WORK.lookup("llama2-70b-99")
    l_out = 294.45
    f_tok = llm_work_per_sample(ll.matmul_params, ll.input_tokens, l_out, ll.layers,
                                ll.attention_dim) / l_out
    roof = 1 * 1979 * T / f_tok
    assert roof == pytest.approx(8100, rel=0.02)
    assert roofline_utilisation(4490 / l_out, 1, 1979 * T, f_tok * l_out) == pytest.approx(
        0.55, abs=0.01)


def test_gptj_orin_batch1_bandwidth_bound_section_2_4():
    # "GPT-J on Jetson AGX Orin (204.8 GB/s, 4-bit W = 3.0 GB): ℓ ≥ 69 × 14.8 ms = 1.02 s;
    #  compute alone would give 0.09 s. Measured: 4.15 s (U = 0.25)."
    gptj = WORK.lookup("gptj-99")
    w = gptj.total_params * WORK.assumptions.min_weight_bytes_per_param
    assert w / G == pytest.approx(3.0, abs=0.05)
    bound = decode_bandwidth_latency_bound(w, 69, 1, 204.8 * G)
    assert bound == pytest.approx(1.02, abs=0.005)
    assert bound / 4.15 == pytest.approx(0.246, abs=0.002)
    f = llm_work_per_sample(gptj.matmul_params, gptj.input_tokens, 69, gptj.layers,
                            gptj.attention_dim, gptj.beams)
    assert latency_utilisation(4.15, 1, 137.5 * T, f) * 4.15 == pytest.approx(0.09, abs=0.005)


def test_resnet_h200_worked_example_offline():
    # §2.5: NVIDIA 8×H200 ResNet50 Offline 756,960 images/s
    u = roofline_utilisation(756960, 8, 1979 * T, 8.18 * G)
    assert u == pytest.approx(0.39, abs=0.005)  # §4.1 table: H200-SXM resnet50 0.39/0.40


def test_b200_fp4_vs_fp8_section_4_2():
    # "The B200 Llama2 result is U = 0.31 against the FP4 peak and 0.63 against the FP8 peak"
    u4 = roofline_utilisation(1.0, 8, 9000 * T, 1.0)
    u8 = roofline_utilisation(1.0, 8, 4500 * T, 1.0)
    assert u8 / u4 == pytest.approx(2.0)


def test_bert_padding_false_positive_section_4_2():
    # charging the padded 384 tokens (246.4 GFLOP) inflates U by 2.31× over the unpadded 106.8
    assert 246.4 / 106.8 == pytest.approx(2.31, abs=0.01)
    assert 0.532 * 246.4 / 106.8 > 1.2  # v4.1 BERT max 0.53 would become ≈ 1.23


def test_peer_ratio_and_server_offline():
    assert peer_ratio(1.2, [1.0, 1.0]) is None
    assert peer_ratio(1.2, [0.9, 1.0, 1.1]) == pytest.approx(1.2)
    assert peer_ratio(1.3, [1.0, 2.0, 1.0, 2.0]) == pytest.approx(1.3 / 1.5)
    assert server_offline_ratio(1.052, 1.0) == pytest.approx(1.052)
    with pytest.raises(ValueError):
        server_offline_ratio(1.0, 0.0)


def test_priority_score_section_5():
    # "In v4.1 the highest would be about 0.96 (S = 1.052 …; R = 1.20 gives 0.92)"
    score, driver = priority_score(0.3, 1.20, 1.052, WORK.thresholds)
    assert driver == "server/offline" and score == pytest.approx(0.956, abs=0.001)
    assert priority_score(None, 1.20, None, WORK.thresholds)[0] == pytest.approx(0.923, abs=0.001)
    assert priority_score(None, None, None, WORK.thresholds) == (None, None)


# ------------------------------------------------------------------ structured assessment


def test_assess_flags_thresholds():
    # ResNet50 on 1×H200: U = X·8.18e9/1979e12
    x_for = lambda u: u * 1979 * T / (8.18 * G)  # noqa: E731
    cases = {0.5: [], 0.8: ["high-utilisation"], 1.5: ["implausible-peak"]}
    for u, names in cases.items():
        a = assess_result(sub("NVIDIA H200-SXM-141GB", 1), r("resnet50", "Offline", x_for(u)),
                          HW, WORK)
        assert a.utilisation == pytest.approx(u)
        assert [f.name for f in a.flags] == names
    a = assess_result(sub("NVIDIA H200-SXM-141GB", 1), r("resnet50", "Offline", x_for(2.5)),
                      HW, WORK)
    assert a.flags[0].level == "error" and "2:4 sparse" in a.flags[0].message
    assert "needs an explanation" in a.flags[0].message


def test_unknown_accelerator_gives_no_assessment_not_a_guess():
    a = assess_result(sub("NVIDIA GeForce RTX 4090", 2), r("resnet50", "Offline", 1e9), HW, WORK)
    assert a.status == "no-assessment" and a.roofline is None
    assert a.flags[0].name == "unknown-hardware" and a.score is None


def test_unknown_model_and_count_give_no_assessment():
    assert assess_result(sub(), r("whisper", "Offline", 10.0), HW, WORK).status == "no-assessment"
    s = sub("NVIDIA H200-SXM-141GB", 0, host_processor_model_name="Unknown CPU")
    assert assess_result(s, r("resnet50", "Offline", 10.0), HW, WORK).status == "no-assessment"


def test_latency_scenarios():
    s = sub("NVIDIA H200-SXM-141GB", 1)
    l_min = 8.18 * G / (1979 * T)
    a = assess_result(s, r("resnet50", "SingleStream", l_min * 1000 * 4, "ms"), HW, WORK)
    assert a.utilisation == pytest.approx(0.25)
    a = assess_result(s, r("resnet50", "MultiStream", l_min * 1000 * 8 * 2, "ms"), HW, WORK)
    assert a.utilisation == pytest.approx(0.5)


def test_round_assessment_peers_and_server_offline():
    subs = [sub("NVIDIA L40S", 4, r("resnet50", "Offline", 40000.0 * k),
                r("resnet50", "Server", 40000.0 * k * (1.2 if i == 0 else 0.9)),
                system_id=f"s{i}") for i, k in enumerate([1.5, 1.0, 1.0, 1.05])]
    rows = assess(subs, HW, WORK)
    top = rows[0]
    assert top.system_id == "s0"
    off = next(a for a in rows if a.system_id == "s0" and a.scenario == "Offline")
    assert off.peer_count == 3 and off.peer_ratio == pytest.approx(1.5)
    assert "above-peers" in [f.name for f in off.flags]
    srv = next(a for a in rows if a.system_id == "s0" and a.scenario == "Server")
    assert srv.server_offline_ratio == pytest.approx(1.2)
    assert "server-exceeds-offline" in [f.name for f in srv.flags]
    # MaxQ systems are not peers of default-power ones
    maxq = sub("NVIDIA L40S", 4, r("resnet50", "Offline", 10000.0), system_id="s_MaxQ")
    rows = assess(subs + [maxq], HW, WORK)
    assert next(a for a in rows if a.system_id == "s_MaxQ").peer_ratio is None


# ------------------------------------------------------------------ real data


def test_real_v41_no_result_exceeds_peak_and_h200_agrees_with_note():
    subs = submissions_from_tree(need(SHARED / "v4.1"))
    rows = assess([s for s in subs if s.division == "closed"], HW, WORK)
    assessed = [a for a in rows if a.status == "assessed"]
    assert len(assessed) >= 24
    assert max(a.utilisation for a in assessed) < 1.0
    assert max(a.utilisation for a in assessed) < WORK.thresholds.utilisation_warning
    assert not [f for a in rows for f in a.flags if f.level in ("error", "warning")]
    u = {(a.system_id, a.model, a.scenario): a.utilisation for a in assessed}
    h = "H200-SXM-141GBx8_TRT"
    # plausibility.md §4.1 per-accelerator table, H200-SXM Offline median/max:
    # llama2 0.49/0.55, mixtral 0.38/0.38, sdxl 0.31/0.31, gptj 0.25/0.26 (with L_in = 870)
    assert 0.47 <= u[(h, "llama2-70b-99", "Offline")] <= 0.55
    assert u[(h, "mixtral-8x7b", "Offline")] == pytest.approx(0.38, abs=0.01)
    assert u[(h, "stable-diffusion-xl", "Offline")] == pytest.approx(0.31, abs=0.01)
    assert u[(h, "gptj-99", "Offline")] * 13.7 / 12.1 == pytest.approx(0.25, abs=0.01)
    # Orin GPT-J SingleStream is bandwidth-bound at ≈ 0.25; SDXL SingleStream 0.205
    orin = next(a for a in assessed if a.system_id == "Orin_TRT" and a.scenario == "SingleStream"
                and a.model == "gptj-99")
    assert orin.roofline.bound == "decode-bandwidth"
    assert orin.utilisation == pytest.approx(0.246, abs=0.005)
    assert u[("Orin_TRT", "stable-diffusion-xl", "SingleStream")] == pytest.approx(0.205, abs=0.005)
    # NeuralMagic vLLM 8×L40S Llama2: "0.039 and 0.024" (§4.3)
    nm = "vLLM_8xL40S-reference-cpu-pytorch-v2.3.1-default_config"
    assert u[(nm, "llama2-70b-99", "Offline")] == pytest.approx(0.039, abs=0.001)
    assert u[(nm, "llama2-70b-99", "Server")] == pytest.approx(0.024, abs=0.001)
    # CPU: Xeon 8592+ ×2 ResNet50 Offline 0.20/0.21
    assert u[("X210M7-1-node-2S-EMR-PyTorch", "resnet50", "Offline")] == pytest.approx(0.20,
                                                                                        abs=0.01)
    # every Server/Offline ratio ≤ 1.052 (v4.1 max) here
    assert all(a.server_offline_ratio <= 1.052 for a in rows if a.server_offline_ratio)
    # the printed line carries its inputs
    line = next(a for a in assessed if a.system_id == h and a.model == "llama2-70b-99"
                and a.scenario == "Offline").roofline.line
    assert "×8" in line and "FP8 dense 1979" in line and "GFLOP/token" in line


def test_real_v51_h200_and_unknown_hardware():
    subs = submissions_from_tree(need(SHARED / "v5.1"))
    rows = assess([s for s in subs if s.division == "closed"], HW, WORK)
    assessed = [a for a in rows if a.status == "assessed"]
    assert assessed and max(a.utilisation for a in assessed) < 1.0
    hpe = next(a for a in assessed if a.model == "llama2-70b-99" and a.scenario == "Offline")
    assert 0.45 < hpe.utilisation < 0.6
    unknown = {a.accelerator for a in rows if any(f.name == "unknown-hardware" for f in a.flags)}
    assert unknown == {"NVIDIA RTX-2000E-Ada-16GB",
                       "[MAXSUN] MS-Intel Arc Pro B60 Dual 48G Turbo"}
