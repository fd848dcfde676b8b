"""Every accuracy target, upper limit, sample count, latency bound and minimum of every round file, pinned to
the official table it comes from (issue #16, item 3).

The numbers below were copied from the tables, not from rules/: a changed round file fails here until its
number is shown to match its source, and a number in a round file that no table here vouches for fails too.
Sources (in ../shared/docs/):
  OC  official-checker.md section 3 (tags v4.1, v5.0, v5.0.1): 3.2 targets, 3.4 counts, 3.5 latencies, 3.7 seeds
  R6  rounds-v6.md section 3 (the v5.1.1 monolith's MODEL_CONFIG["v5.1"] and v6.0 at 6d0cf9dc): 3.2, 3.4, 3.5, 3.7
  mlpc  a bound mlpc adds on top of the official one (the round file marks it `source: rules` and says why)
v5.1 is judged with the v5.1.1 tables (the tag the round's review used), not with the older v5.1 tag.
"""

import pytest

from checker.loaders.rules import available_rounds, load_rules

# ---- accuracy targets (>=): round -> model -> ((metric, expression), ...) -----------------------------
_LLAMA2_99 = (("ROUGE1", "44.4312*0.99"), ("ROUGE2", "22.0352*0.99"), ("ROUGEL", "28.6162*0.99"),
              ("TOKENS_PER_SAMPLE", "294.45*0.9"))
_LLAMA2_999 = (("ROUGE1", "44.4312*0.999"), ("ROUGE2", "22.0352*0.999"), ("ROUGEL", "28.6162*0.999"),
               ("TOKENS_PER_SAMPLE", "294.45*0.9"))
_BASE = {  # OC 3.2, identical in v4.1 and v5.0 (R6 3.2: unchanged in v5.1.1 and v6.0)
    "resnet": (("acc", "76.46*0.99"),),
    "retinanet": (("mAP", "37.55*0.99"),),
    "bert-99": (("F1", "90.874*0.99"),),
    "bert-99.9": (("F1", "90.874*0.999"),),
    "dlrm-v2-99": (("AUC", "80.31*0.99"),),
    "dlrm-v2-99.9": (("AUC", "80.31*0.999"),),
    "3d-unet-99": (("DICE", "0.86170*0.99"),),
    "3d-unet-99.9": (("DICE", "0.86170*0.999"),),
    "llama2-70b-99": _LLAMA2_99,
    "llama2-70b-99.9": _LLAMA2_999,
    "stable-diffusion-xl": (("CLIP_SCORE", "31.68631873"), ("FID_SCORE", "23.01085758")),
}
_GPTJ = {
    "gptj-99": (("ROUGE1", "42.9865*0.99"), ("ROUGE2", "20.1235*0.99"), ("ROUGEL", "29.9881*0.99"),
                ("GEN_LEN", "4016878*0.9")),
    "gptj-99.9": (("ROUGE1", "42.9865*0.999"), ("ROUGE2", "20.1235*0.999"), ("ROUGEL", "29.9881*0.999"),
                  ("GEN_LEN", "4016878*0.9")),
}
_MIXTRAL_50 = (("ROUGE1", "45.5989*0.99"), ("ROUGE2", "23.3526*0.99"), ("ROUGEL", "30.4608*0.99"),
               ("TOKENS_PER_SAMPLE", "144.84*0.9"), ("gsm8k_accuracy", "73.66*0.99"), ("mbxp_accuracy", "60.16*0.99"))
_L405 = (("ROUGEL", "21.6666*0.99"), ("exact_match", "90.1335*0.99"), ("TOKENS_PER_SAMPLE", "684.68*0.9"))
_V51_NEW = {  # OC 3.2 "later additions" = R6 3.2 (v5.1.1), except deepseek-r1 (R6 3.2: v5.1.1 values)
    "llama3.1-8b": (("ROUGE1", "38.7792*0.99"), ("ROUGE2", "15.9075*0.99"), ("ROUGEL", "24.4957*0.99"),
                    ("ROUGELSUM", "35.793*0.99"), ("GEN_LEN", "8167644*0.9")),
    "llama3.1-8b-edge": (("ROUGE1", "39.06*0.99"), ("ROUGE2", "16.1147*0.99"), ("ROUGEL", "24.6375*0.99"),
                         ("ROUGELSUM", "36.124*0.99"), ("GEN_LEN", "3051113*0.9")),
    "mixtral-8x7b": _MIXTRAL_50,
    "llama3.1-405b": _L405,
    "rgat": (("acc", "0.7286*0.99"),),
    "pointpainting": (("mAP", "0.5425*0.999"),),
    "deepseek-r1": (("exact_match", "0.99*81.3582"), ("TOKENS_PER_SAMPLE", "0.9*3886.2274")),
    "whisper": (("ACCURACY", "(100.0-2.0671)*0.99"),),
}
TARGETS = {
    "v4.1": {**_BASE, **_GPTJ, "mixtral-8x7b": (
        ("ROUGE1", "45.4911*0.99"), ("ROUGE2", "23.2829*0.99"), ("ROUGEL", "30.3615*0.99"),
        ("TOKENS_PER_SAMPLE", "145.9*0.9"), ("gsm8k_accuracy", "73.78*0.99"), ("mbxp_accuracy", "60.12*0.99"))},
    "v5.0": {**_BASE, **_GPTJ, "mixtral-8x7b": _MIXTRAL_50, "llama3.1-405b": _L405, "rgat": (("acc", "0.7286*0.99"),),
             # OC 3.2: v5.0.1 adds llama2-70b-interactive, identical to llama2-70b
             "llama2-70b-interactive-99": _LLAMA2_99, "llama2-70b-interactive-99.9": _LLAMA2_999},
    "v5.1": {**_BASE, **_V51_NEW},
    "v6.0": {**{k: v for k, v in _BASE.items() if not k.startswith("dlrm-v2")}, **_V51_NEW,  # R6 3.2
             # mlpc: rgat's accuracy.txt prints a percentage; AC013 compares percent with percent
             "rgat": (("acc", "72.86*0.99"), ("acc", "0.7286*0.99")),
             "gpt-oss-120b": (("exact_match", "83.13*0.99"),),
             "wan-2.2-t2v-a14b": (("vbench_score", "70.48*0.99"),),
             "qwen3-vl-235b-a22b": (("F1_HIERARCHICAL", "0.7903*0.99"),),
             "dlrm-v3": (("DLRM_NE", "0.86687*0.999"), ("DLRM_ACC", "0.69651*0.999"), ("DLRM_AUC", "0.78663*0.999")),
             "yolo-95": (("mAP", "53.4*0.95"),), "yolo-99": (("mAP", "53.4*0.99"),)},
}
TARGETS["v6.1"] = {  # R6 3.2, rows for 6.1
    **{k: v for k, v in TARGETS["v6.0"].items() if k in (
        "resnet", "bert-99", "bert-99.9", "3d-unet-99", "3d-unet-99.9", "llama3.1-8b", "llama3.1-8b-edge",
        "llama2-70b-99.9", "stable-diffusion-xl", "rgat", "deepseek-r1", "whisper", "gpt-oss-120b",
        "wan-2.2-t2v-a14b", "dlrm-v3", "yolo-95", "yolo-99")},
    # per folder scenario: Offline and Server 0.7903*0.99, Interactive 0.7878*0.99
    "qwen3-vl-235b-a22b": (("F1_HIERARCHICAL", "0.7903*0.99"), ("F1_HIERARCHICAL", "0.7878*0.99")),
    "qwen3.6-27b": (("mAP", "86.23*0.99"),),
    "e2e-rag-qna": (("E2E_ACCURACY", "33.95"),), "e2e-rag-db": (("E2E_ACCURACY", "98"),),
}

# ---- upper limits (<=) ------------------------------------------------------------------------------------
_UP_BASE = {"llama2-70b-99": (("TOKENS_PER_SAMPLE", "294.45*1.1"),),
            "llama2-70b-99.9": (("TOKENS_PER_SAMPLE", "294.45*1.1"),),
            "stable-diffusion-xl": (("CLIP_SCORE", "31.81331801"), ("FID_SCORE", "23.95007626")),
            "mixtral-8x7b": (("TOKENS_PER_SAMPLE", "145.9*1.1"),)}  # OC 3.2 (the 145.9 upper stays in v5.0)
_UP_NEW = {"llama3.1-405b": (("TOKENS_PER_SAMPLE", "684.68*1.1"),),
           "llama3.1-8b": (("GEN_LEN", "8167644*1.1"),), "llama3.1-8b-edge": (("GEN_LEN", "3051113*1.1"),),
           "deepseek-r1": (("TOKENS_PER_SAMPLE", "1.1*3886.2274"),)}  # R6 3.2 (v5.1.1)
UPPER = {
    "v4.1": _UP_BASE,
    "v5.0": {**_UP_BASE, "llama3.1-405b": (("TOKENS_PER_SAMPLE", "684.68*1.1"),),
             "llama2-70b-interactive-99": (("TOKENS_PER_SAMPLE", "294.45*1.1"),),
             "llama2-70b-interactive-99.9": (("TOKENS_PER_SAMPLE", "294.45*1.1"),)},
    "v5.1": {**_UP_BASE, **_UP_NEW},
    # mlpc: DLRM_NE is an entropy (lower is better); bounded from above, AC013
    "v6.0": {**_UP_BASE, **_UP_NEW, "dlrm-v3": (("DLRM_NE", "0.86687/0.999"),)},
}
UPPER["v6.1"] = {k: v for k, v in UPPER["v6.0"].items() if k in TARGETS["v6.1"]}

# ---- counts: (performance_sample_count, Offline min samples per query, dataset size) -----------------------
# OC 3.4 (dataset size: its "v5.1 tag" column, also used for v4.1 / v5.0); R6 3.4 for v5.1.1 and v6.0
_COUNTS = {
    "resnet": (1024, 24576, 50000), "retinanet": (64, 24576, 24781), "bert-99": (10833, 10833, 10833),
    "bert-99.9": (10833, 10833, 10833), "dlrm-v2-99": (204800, 24576, 204800), "dlrm-v2-99.9": (204800, 24576, 204800),
    "3d-unet-99": (43, 43, 43), "3d-unet-99.9": (43, 43, 43), "gptj-99": (13368, 13368, 13368),
    "gptj-99.9": (13368, 13368, 13368), "llama2-70b-99": (24576, 24576, 24576), "llama2-70b-99.9": (24576, 24576, 24576),
    "stable-diffusion-xl": (5000, 5000, 5000), "mixtral-8x7b": (15000, 15000, 15000),
    "llama3.1-405b": (8313, 8313, 8313), "rgat": (788379, 788379, 788379),
    "llama2-70b-interactive-99": (24576, 24576, 24576), "llama2-70b-interactive-99.9": (24576, 24576, 24576),
    "llama3.1-8b": (13368, 13368, 13368), "llama3.1-8b-edge": (5000, 5000, 5000),
    "pointpainting": (1024, 6636, 39987), "deepseek-r1": (4388, 4388, 4388), "whisper": (1633, 1633, 1633),
    "gpt-oss-120b": (6396, 6396, 6396), "wan-2.2-t2v-a14b": (50, 50, 248), "qwen3-vl-235b-a22b": (48289, 48289, 48289),
    "dlrm-v3": (349823, 349823, 349823), "yolo-95": (64, 1525, 1525), "yolo-99": (64, 1525, 1525),
    # R6 3.4, v6.1 only: qwen3.6-27b has no Offline SPQ entry; e2e-rag's is HEAD's
    "qwen3.6-27b": (995, None, 995), "e2e-rag-qna": (824, 824, 824), "e2e-rag-db": (2515, 2515, 2515),
}
# R6 3.4: the v5.1.1 monolith has dlrm-v2's dataset size 330067 (the older v5.1 tag: 204800)
COUNT_OVERRIDES = {("v5.1", "dlrm-v2-99"): (204800, 24576, 330067), ("v5.1", "dlrm-v2-99.9"): (204800, 24576, 330067)}
ACCURACY_SAMPLE_COUNT = {("v6.0", "gpt-oss-120b"): 4395, ("v6.0", "wan-2.2-t2v-a14b"): 248,  # R6 3.4
                         ("v6.1", "gpt-oss-120b"): 4395, ("v6.1", "wan-2.2-t2v-a14b"): 248}

# ---- Server target-latency bound, ns (OC 3.5 for v4.1 / v5.0, R6 3.5 for v5.1.1 and v6.0 at 6d0cf9dc) ----
_MS, _S = 1_000_000, 1_000_000_000
SERVER_LATENCY = {
    "v4.1": {"resnet": 15 * _MS, "retinanet": 100 * _MS, "bert-99": 130 * _MS, "bert-99.9": 130 * _MS,
             "dlrm-v2-99": 60 * _MS, "dlrm-v2-99.9": 60 * _MS, "gptj-99": 20 * _S, "gptj-99.9": 20 * _S,
             "llama2-70b-99": 20 * _S, "llama2-70b-99.9": 20 * _S, "stable-diffusion-xl": 20 * _S},
    "v5.0": {"resnet": 15 * _MS, "retinanet": 100 * _MS, "dlrm-v2-99": 60 * _MS, "dlrm-v2-99.9": 60 * _MS,
             "gptj-99": 20 * _S, "gptj-99.9": 20 * _S, "llama2-70b-99": 20 * _S, "llama2-70b-99.9": 20 * _S,
             "stable-diffusion-xl": 20 * _S, "mixtral-8x7b": 20 * _S, "llama3.1-405b": 60 * _S,
             "llama2-70b-interactive-99": 20 * _S, "llama2-70b-interactive-99.9": 20 * _S},
    "v5.1": {"resnet": 15 * _MS, "retinanet": 100 * _MS, "dlrm-v2-99": 60 * _MS, "dlrm-v2-99.9": 60 * _MS,
             "llama3.1-8b": 20 * _S, "stable-diffusion-xl": 20 * _S, "llama2-70b-99": 20 * _S,
             "llama2-70b-99.9": 20 * _S, "mixtral-8x7b": 20 * _S, "llama3.1-405b": 60 * _S, "deepseek-r1": 60 * _S},
    "v6.0": {"resnet": 15 * _MS, "retinanet": 100 * _MS, "llama3.1-8b": 20 * _S, "stable-diffusion-xl": 20 * _S,
             "llama2-70b-99": 20 * _S, "llama2-70b-99.9": 20 * _S, "mixtral-8x7b": 20 * _S, "llama3.1-405b": 60 * _S,
             "deepseek-r1": 60 * _S, "gpt-oss-120b": 60 * _S, "qwen3-vl-235b-a22b": 60 * _S, "dlrm-v3": 60 * _S},
    # R6 3.5 v6.1 (qwen3-vl's 1.5 s Interactive bound is reachable only by endpoint results)
    "v6.1": {"resnet": 15 * _MS, "llama3.1-8b": 20 * _S, "stable-diffusion-xl": 20 * _S, "llama2-70b-99.9": 20 * _S,
             "deepseek-r1": 60 * _S, "gpt-oss-120b": 60 * _S, "qwen3-vl-235b-a22b": 12 * _S, "dlrm-v3": 60 * _S},
}

# ---- LLM TTFT / TPOT p99 limits, ms: model -> {scenario: (ttft, tpot)} --------------------------------------
_ALL = ("Server", "SingleStream", "MultiStream")  # v4.1 / v5.0 limits are not keyed by scenario (OC 3.5)
_flat = lambda ttft, tpot: {s: (ttft, tpot) for s in _ALL}  # noqa: E731
TOKEN_LIMITS = {
    "v4.1": {"llama2-70b-99": _flat(2000, 200), "llama2-70b-99.9": _flat(2000, 200), "mixtral-8x7b": _flat(2000, 200)},
    "v5.0": {"llama2-70b-99": _flat(2000, 200), "llama2-70b-99.9": _flat(2000, 200), "mixtral-8x7b": _flat(2000, 200),
             "llama3.1-405b": _flat(6000, 175), "llama2-70b-interactive-99": _flat(450, 40),
             "llama2-70b-interactive-99.9": _flat(450, 40)},
    "v5.1": {"llama2-70b-99": {"Server": (2000, 200), "Interactive": (450, 40)},
             "llama2-70b-99.9": {"Server": (2000, 200), "Interactive": (450, 40)},
             "mixtral-8x7b": {"Server": (2000, 200)},
             "llama3.1-405b": {"Server": (6000, 175), "Interactive": (4500, 80)},
             "llama3.1-8b": {"Server": (2000, 100), "Interactive": (500, 30)},
             "deepseek-r1": {"Server": (2000, 80)}},  # R6 3.5: deepseek-r1's Interactive row is new after v5.1.1
}
TOKEN_LIMITS["v6.0"] = {**TOKEN_LIMITS["v5.1"], "deepseek-r1": {"Server": (2000, 80), "Interactive": (1500, 15)},
                        "gpt-oss-120b": {"Server": (3000, 80), "Interactive": (2000, 15)}}
TOKEN_LIMITS["v6.1"] = {k: v for k, v in TOKEN_LIMITS["v6.0"].items() if k in TARGETS["v6.1"]}  # global (R6 3.5)

# ---- round-wide numbers: seeds (OC 3.7 / R6 3.7), minimum duration and accuracy-log size (OC 3.8 / R6 3.8) ---
SEEDS = {
    "v4.1": (3066443479025735752, 10688027786191513374, 14962580496156340209),
    "v5.0": (6023615788873153749, 15036839855038426416, 9933818062894767841),
    "v5.1": (1780908523862526354, 14771362308971278857, 18209322760996052031),
    "v6.0": (2465351861681999779, 14276810075590677512, 3936089224930324775),
    "v6.1": (2085463073848966840, 2747215439041700203, 16159082839903944936),
}
TEST05_SEEDS = {"v4.1": (16799458546791641818, 5453809927556429288, 5435552105434836064)}
MIN_DURATION_MS, MAX_ACCURACY_LOG_BYTES = 600000, 10240


def _value(expression: str) -> float:
    assert set(expression) <= set("0123456789.*/()- "), expression
    return round(eval(expression, {"__builtins__": {}}), 6)  # noqa: S307 - digits and operators only


ROUNDS = [r for r in sorted(TARGETS)]


def test_every_round_file_is_pinned():
    assert set(available_rounds()) <= set(ROUNDS), "a new round file needs its numbers pinned here"


@pytest.fixture(params=ROUNDS)
def round_rules(request):
    if request.param not in available_rounds():
        pytest.skip(f"no rules/{request.param}.yaml yet")
    return request.param, load_rules(request.param)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def test_accuracy_targets_and_limits(round_rules):
    name, rules = round_rules
    wrong = []
    for table, attr, field in ((TARGETS, "accuracy", "target"), (UPPER, "upper_limits", "limit")):
        pinned = {m: sorted((metric, _value(e)) for metric, e in rows) for m, rows in table[name].items()}
        found = {m: sorted((b.metric, getattr(b, field)) for b in getattr(spec, attr))
                 for m, spec in rules.models.items() if getattr(spec, attr)}
        if set(pinned) != set(found):
            wrong.append((attr, "models", sorted(set(pinned) ^ set(found))))
            continue
        for model, rows in pinned.items():
            got = found[model]
            if [r[0] for r in rows] != [g[0] for g in got] or not all(_close(g[1], r[1]) for r, g in zip(rows, got)):
                wrong.append((attr, model, rows, got))
        for model, spec in rules.models.items():  # a round file's own expression must give its own number
            for bound in getattr(spec, attr):
                if bound.expression and not _close(_value(bound.expression), getattr(bound, field)):
                    wrong.append((attr, model, bound.expression, getattr(bound, field)))
    assert wrong == []


def test_sample_counts(round_rules):
    name, rules = round_rules
    wrong = []
    for model, spec in rules.models.items():
        want = COUNT_OVERRIDES.get((name, model), _COUNTS.get(model))
        got = (spec.performance_sample_count, spec.offline_min_samples_per_query, spec.dataset_size)
        if got != want:
            wrong.append((model, want, got))
        if getattr(spec, "accuracy_sample_count", None) != ACCURACY_SAMPLE_COUNT.get((name, model)):
            wrong.append((model, "accuracy_sample_count", spec.accuracy_sample_count))
    assert wrong == []


def test_latency_bounds(round_rules):
    name, rules = round_rules
    server = {m: s.server_latency_ns for m, s in rules.models.items() if s.server_latency_ns is not None}
    assert server == SERVER_LATENCY[name]
    tokens = {m: {sc: (lim.ttft_ns // _MS, lim.tpot_ns // _MS) for sc, lim in s.token_latency.items()}
              for m, s in rules.models.items() if s.token_latency}
    assert tokens == TOKEN_LIMITS[name]
    for spec in rules.models.values():
        for lim in spec.token_latency.values():
            assert lim.ttft_ns % _MS == 0 and lim.tpot_ns % _MS == 0


def test_round_wide_numbers(round_rules):
    name, rules = round_rules
    seeds = rules.seeds
    assert (seeds.qsl_rng_seed, seeds.sample_index_rng_seed, seeds.schedule_rng_seed) == SEEDS[name]
    extra = rules.test05_seeds
    assert (None if extra is None else (extra.qsl_rng_seed, extra.sample_index_rng_seed,
                                        extra.schedule_rng_seed)) == TEST05_SEEDS.get(name)
    assert rules.min_duration_ms == MIN_DURATION_MS
    exempt = {m: spec.min_duration_ms for m, spec in rules.models.items() if spec.min_duration_ms is not None}
    assert exempt == ({"e2e-rag-qna": 0, "e2e-rag-db": 0} if name == "v6.1" else {})  # R6 3.8 (HEAD)
    assert rules.max_accuracy_log_bytes == MAX_ACCURACY_LOG_BYTES


def test_deepseek_r1_v51_is_the_v511_table():
    """The issue's case: v5.1 was judged with v5.1.1, whose deepseek-r1 references are 81.3582 and 3886.2274."""
    spec = load_rules("v5.1").models["deepseek-r1"]
    assert {b.metric: b.target for b in spec.accuracy} == pytest.approx(
        {"exact_match": 0.99 * 81.3582, "TOKENS_PER_SAMPLE": 0.9 * 3886.2274})
    assert {b.metric: b.limit for b in spec.upper_limits} == pytest.approx({"TOKENS_PER_SAMPLE": 1.1 * 3886.2274})
