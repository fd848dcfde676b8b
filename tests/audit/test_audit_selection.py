"""The seeded two-stage draw: reproducible, replayable, uniform at both stages, and re-implementable
from its documentation alone (an independent MT19937 below)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from checker.audit.selection import (
    AmbiguousCandidates,
    Candidate,
    DrawLog,
    EmptyCandidateSet,
    ReplayMismatch,
    SelectionError,
    candidates_from_rows,
    draw,
    replay,
    seed_to_int,
    uniform_index,
)

REPO = Path(__file__).resolve().parents[2]

POOL = [("Acme", "closed/Acme/a1"), ("Acme", "closed/Acme/a2"), ("Acme", "closed/Acme/a3"),
        ("Beta", "closed/Beta/b1"), ("Gamma", "closed/Gamma/g1"), ("Gamma", "closed/Gamma/g2"),
        ("Delta", "closed/Delta/d1"), ("Epsilon", "closed/Epsilon/e1")]


# ------------------------------------------------------------------ independent MT19937


class MT19937:
    """Textbook MT19937 (Matsumoto & Nishimura, mt19937ar.c): init_genrand, init_by_array, genrand."""

    def __init__(self, key: list[int]):
        self.mt = [0] * 624
        self.mti = 625
        self._init_genrand(19650218)
        i, j = 1, 0
        for _ in range(max(624, len(key))):
            self.mt[i] = ((self.mt[i] ^ ((self.mt[i - 1] ^ (self.mt[i - 1] >> 30)) * 1664525))
                          + key[j] + j) & 0xFFFFFFFF
            i += 1
            j += 1
            if i >= 624:
                self.mt[0] = self.mt[623]
                i = 1
            if j >= len(key):
                j = 0
        for _ in range(623):
            self.mt[i] = ((self.mt[i] ^ ((self.mt[i - 1] ^ (self.mt[i - 1] >> 30)) * 1566083941))
                          - i) & 0xFFFFFFFF
            i += 1
            if i >= 624:
                self.mt[0] = self.mt[623]
                i = 1
        self.mt[0] = 0x80000000

    def _init_genrand(self, s: int) -> None:
        self.mt[0] = s
        for i in range(1, 624):
            self.mt[i] = (1812433253 * (self.mt[i - 1] ^ (self.mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
        self.mti = 624

    def next_uint32(self) -> int:
        if self.mti >= 624:
            for k in range(624):
                y = (self.mt[k] & 0x80000000) | (self.mt[(k + 1) % 624] & 0x7FFFFFFF)
                self.mt[k] = self.mt[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.mti = 0
        y = self.mt[self.mti]
        self.mti += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y


def reference_draw(pool, seed):
    """The procedure of checker/audit/selection.py's docstring, written from the text."""
    n = int.from_bytes(hashlib.sha256(seed.encode()).digest(), "big") if isinstance(seed, str) \
        else seed
    words = []
    while n:
        words.append(n & 0xFFFFFFFF)
        n >>= 32
    mt = MT19937(words or [0])

    def below(m):
        k = max(1, (m - 1).bit_length())
        while True:
            r = mt.next_uint32() >> (32 - k)
            if r < m:
                return r

    groups = {}
    for who, sid in pool:
        groups.setdefault(who, []).append(sid)
    names = sorted(groups)
    who = names[below(len(names))]
    ids = sorted(groups[who])
    return who, ids[below(len(ids))]


@pytest.mark.parametrize("seed", [0, 1, 2**32 + 5, 2**200 + 17, "mlperf-inference-v5.1",
                                  "", "Ünïcode seed ✓"])
def test_independent_mt19937_reimplementation_agrees(seed):
    log = draw(POOL, seed)
    assert (log.result.submitter, log.result.submission_id) == reference_draw(POOL, seed)


def test_mt19937_reference_vector():
    # mt19937ar.c's published test vector: init_by_array({0x123, 0x234, 0x345, 0x456})
    mt = MT19937([0x123, 0x234, 0x345, 0x456])
    assert [mt.next_uint32() for _ in range(3)] == [1067595299, 955945823, 477289528]


# ------------------------------------------------------------------ reproducibility and replay


def test_same_seed_same_result_and_order_independent():
    a = draw(POOL, "round-5.1")
    b = draw(list(reversed(POOL)), "round-5.1")
    assert a == b
    assert replay(a) == a.result
    assert replay(json.loads(json.dumps(a.model_dump(mode="json")))) == a.result


def test_same_seed_same_result_across_processes():
    code = ("import json,sys; from checker.audit.selection import draw; "
            f"print(json.dumps(draw({POOL!r}, 'cross-process').model_dump(mode='json'), "
            "sort_keys=True))")
    outs = [subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                           check=True, env={"PYTHONHASHSEED": str(h), "PATH": ""}).stdout
            for h in (0, 12345)]
    assert outs[0] == outs[1]
    here = json.dumps(draw(POOL, "cross-process").model_dump(mode="json"), sort_keys=True)
    assert outs[0].strip() == here


def test_log_contents():
    log = draw(POOL, 7).model_dump(mode="json")
    assert log["format"] == "mlpc-audit-draw/1" and "MT19937" in log["generator"]
    assert log["submitters"] == ["Acme", "Beta", "Delta", "Epsilon", "Gamma"]
    assert log["submissions"]["Acme"] == ["closed/Acme/a1", "closed/Acme/a2", "closed/Acme/a3"]
    assert [d["stage"] for d in log["draws"]] == ["submitter", "submission"]
    assert log["draws"][0]["bits"] == 3 and log["draws"][0]["population"] == 5
    assert log["seed_int"] == "7"
    assert all(r >= 5 for r in log["draws"][0]["raw"][:-1])  # rejected outputs are recorded


def test_string_seed_is_sha256():
    assert seed_to_int("abc") == int(
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", 16)


@pytest.mark.parametrize("field, value", [
    ("seed", 8), ("seed_int", "8"),
    ("result", {"submitter": "Beta", "submission_id": "closed/Beta/b1"}),
])
def test_replay_detects_tampering(field, value):
    log = draw(POOL, 7).model_dump(mode="json")
    if log[field] == value:
        value = {"submitter": "Delta", "submission_id": "closed/Delta/d1"}
    log[field] = value
    with pytest.raises(ReplayMismatch):
        replay(log)


def test_replay_detects_changed_candidates_or_draws():
    log = draw(POOL, 7).model_dump(mode="json")
    log2 = json.loads(json.dumps(log))
    log2["draws"][0]["raw"] = [0]
    with pytest.raises(ReplayMismatch):
        replay(log2)
    log3 = json.loads(json.dumps(log))
    log3["submissions"]["Acme"] = list(reversed(log3["submissions"]["Acme"]))
    with pytest.raises(ReplayMismatch, match="not sorted"):
        replay(log3)
    with pytest.raises(ReplayMismatch):
        replay({"format": "something-else"})


# ------------------------------------------------------------------ refusals


def test_empty_set_refused():
    with pytest.raises(EmptyCandidateSet):
        draw([], 1)


def test_duplicate_ids_refused():
    with pytest.raises(AmbiguousCandidates, match="duplicate"):
        draw([("A", "x"), ("B", "x")], 1)


def test_submitters_differing_only_in_case_refused():
    with pytest.raises(AmbiguousCandidates, match="case or whitespace"):
        draw([("NVIDIA", "x"), ("nvidia ", "y")], 1)


@pytest.mark.parametrize("seed", [-1, True, 1.5, None])
def test_bad_seeds_refused(seed):
    with pytest.raises(SelectionError):
        draw(POOL, seed)


def test_single_candidate():
    log = draw([Candidate(submitter="Solo", submission_id="closed/Solo/s")], "x")
    assert log.result.submission_id == "closed/Solo/s"
    assert log.draws[0].bits == 1


def test_candidates_from_rows_keeps_only_eligible():
    from checker.audit.eligibility import eligible
    from helpers_audit import sub
    rows = eligible([sub("A", "x"), sub("B", "y", division="open")], [])
    assert candidates_from_rows(rows) == [Candidate(submitter="A", submission_id="closed/A/x")]


# ------------------------------------------------------------------ uniformity (deterministic)

ALPHA = 0.001  # fixed significance; the seeds are fixed, so each test has one fixed outcome


def test_uniform_index_chi_square():
    import random
    for m in (2, 3, 5, 7, 13):
        rng = random.Random(20240901 + m)
        counts = Counter(uniform_index(rng, m)[0] for _ in range(20000))
        assert set(counts) == set(range(m))
        assert chisquare([counts[i] for i in range(m)]).pvalue > ALPHA


def test_stage_one_uniform_over_submitters_not_submissions():
    seeds = range(6000)
    counts = Counter(draw(POOL, s).result.submitter for s in seeds)
    names = sorted(counts)
    assert len(names) == 5
    # uniform over the 5 submitters even though Acme holds 3 of 8 submissions
    assert chisquare([counts[n] for n in names]).pvalue > ALPHA
    # and clearly not proportional to submission counts
    sizes = Counter(w for w, _ in POOL)
    expected = [len(seeds) * sizes[n] / len(POOL) for n in names]
    assert chisquare([counts[n] for n in names], expected).pvalue < 1e-6


def test_stage_two_uniform_within_submitter():
    chosen = Counter()
    for s in range(9000):
        r = draw(POOL, f"seed-{s}").result
        if r.submitter == "Acme":
            chosen[r.submission_id] += 1
    obs = [chosen[f"closed/Acme/a{i}"] for i in (1, 2, 3)]
    assert sum(obs) > 1500
    assert chisquare(obs).pvalue > ALPHA


def test_joint_distribution_is_two_stage():
    counts = Counter(draw(POOL, s).result.submission_id for s in range(8000, 16000))
    sizes = Counter(w for w, _ in POOL)
    ids = sorted(i for _, i in POOL)
    owner = {i: w for w, i in POOL}
    expected = [8000 / 5 / sizes[owner[i]] for i in ids]
    assert chisquare([counts[i] for i in ids], expected).pvalue > ALPHA


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["A", "B", "C", "D"]), st.text(min_size=1, max_size=6)),
                min_size=1, max_size=12, unique_by=lambda t: t[1]),
       st.one_of(st.integers(min_value=0, max_value=2**80), st.text(max_size=10)))
def test_property_result_is_a_candidate_and_replays(pool, seed):
    log = draw(pool, seed)
    assert (log.result.submitter, log.result.submission_id) in pool
    assert replay(DrawLog.model_validate(log.model_dump(mode="json"))) == log.result
    assert (log.result.submitter, log.result.submission_id) == reference_draw(pool, seed)
