"""Early stopping: known values, LoadGen search semantics, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import betainc, gammaln

from checker.metrics.binomial_tail import regularized_beta
from checker.metrics.early_stopping import (
    MinPassingQueriesFinder,
    expected_early_stopping,
    loadgen_walk_t,
    max_overlatency_allowed,
    min_passing_queries,
    min_queries_for_percentile,
    normalize_scenario,
    overlatency_budget,
    percentile_estimate,
    server_early_stopping,
    server_min_queries,
    single_stream_estimate,
)

# official-checker.md 4.1 reference values: (p, t, h(t))
KNOWN_H = [
    (0.90, 2, 79),
    (0.90, 5, 122),
    (0.90, 10, 187),
    (0.90, 100, 1146),
    (0.99, 2, 836),
    (0.99, 5, 1302),
    (0.99, 10, 2000),
    (0.99, 100, 12471),
]


@pytest.mark.parametrize(("p", "t", "h"), KNOWN_H)
def test_known_h_values(p: float, t: int, h: int) -> None:
    assert min_passing_queries(t, p) == h


@pytest.mark.parametrize(("p", "expected"), [(0.90, 64), (0.99, 662)])
def test_min_queries_for_percentile(p: float, expected: int) -> None:
    assert min_queries_for_percentile(p) == expected
    assert min_passing_queries(1, p) + 1 == expected


@pytest.mark.parametrize(("p", "bound"), [(0.90, 44), (0.99, 459)])
def test_search_anchor_bound(p: float, bound: int) -> None:
    # LoadGen's empty-cache anchor ceil(ln(1-c)/ln(p)); it is also h(0)
    assert math.ceil(math.log(0.01) / math.log(p)) == bound
    assert min_passing_queries(0, p) == bound


def test_server_459_means_queries_needed_with_no_overlatency() -> None:
    # "459": a Server run with zero over-latency queries needs h(0)+0 = 459 queries
    assert server_min_queries(0) == 459
    assert server_early_stopping(459, 0, 0.99) == (True, 459)
    assert server_early_stopping(458, 0, 0.99) == (False, 459)
    # the v5.1 Krai TEST06 log: 100 queries, "would need to run at least 359 more"
    exp = expected_early_stopping("Server", 100, 0, 0.99)
    assert (exp.met, exp.additional_queries) == (False, 359)


def test_server_needs_h_plus_t() -> None:
    assert server_min_queries(10, 0.99) == 2010
    assert server_early_stopping(2010, 10, 0.99) == (True, 2010)
    assert server_early_stopping(2009, 10, 0.99) == (False, 2010)


def test_max_overlatency_allowed() -> None:
    assert max_overlatency_allowed(458, 0.99) is None
    assert max_overlatency_allowed(459, 0.99) == 0
    for t in (1, 5, 100):
        n = server_min_queries(t, 0.99)
        assert max_overlatency_allowed(n, 0.99) == t
        assert max_overlatency_allowed(n - 1, 0.99) == t - 1


# --------------------------------------------------------- LoadGen semantics


def _loadgen_series_odds(h: int, t: int, x: float) -> float:
    """I_x(h, t+1) the way LoadGen sums it (2F1 series with a = 1)."""
    a, b = h, t + 1
    z = x / (x - 1)
    term = result = 1.0
    i = 0
    while abs(term) > 1.0 / (1 << 33):
        term *= ((1 - b) + i) * z / ((1 + a) + i)
        result += term
        i += 1
    lbeta = gammaln(a) + gammaln(b) - gammaln(a + b)
    return math.exp(a * math.log(x) + (b - 1) * math.log(1 - x) - lbeta) / a * result


@pytest.mark.parametrize("p", [0.90, 0.99])
def test_scipy_betainc_matches_loadgen_series(p: float) -> None:
    for t in range(0, 12):
        h = min_passing_queries(t, p)
        for cand in (h - 1, h):
            ours = float(betainc(cand, t + 1, p))
            theirs = _loadgen_series_odds(cand, t, p)
            assert ours == pytest.approx(theirs, rel=1e-9)
            assert (ours < 0.01) == (theirs < 0.01)


def test_search_returns_upper_end_untested_when_range_misses() -> None:
    # a cache that makes LoadGen's range too narrow: the answer is max_h,
    # returned without being tested (lower-bound search semantics)
    finder = MinPassingQueriesFinder()
    cache, keys = finder._caches.setdefault((0.9, 0.0, 0.99), ({}, []))
    cache.update({0: 10, 1: 11})  # fake anchors: slope 1 -> max_h = 11 + 1 + 1 = 13
    keys.extend([0, 1])
    assert finder(2, 0.9) == 20  # min_h = 11 + 9 = 20 >= max_h: returned as is
    assert min_passing_queries(2, 0.9) == 79


@pytest.mark.parametrize(("p", "t_max"), [(0.90, 20_000), (0.99, 3_000)])
def test_cached_walk_finds_true_minima(p: float, t_max: int) -> None:
    finder = MinPassingQueriesFinder()
    hs = np.array([finder(i, p) for i in range(1, t_max + 1)], dtype=float)
    ts = np.arange(1, t_max + 1, dtype=float)
    assert np.all(betainc(hs, ts + 1, p) < 0.01)
    assert np.all(betainc(hs - 1, ts + 1, p) >= 0.01)
    for i in (1, 2, 17, 250, t_max):  # fresh searches agree with the cached walk
        assert min_passing_queries(i, p) == hs[i - 1]


@pytest.mark.parametrize(
    ("n", "p"),
    [(63, 0.9), (64, 0.9), (100, 0.9), (2121, 0.9), (57903, 0.9), (661, 0.99), (662, 0.99), (14660, 0.99)],
)
def test_fast_t_equals_loadgen_walk(n: int, p: float) -> None:
    assert overlatency_budget(n, p) == loadgen_walk_t(n, p)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(min_value=0, max_value=6000), p=st.sampled_from([0.9, 0.95, 0.99]))
def test_fast_t_equals_loadgen_walk_property(n: int, p: float) -> None:
    assert overlatency_budget(n, p) == loadgen_walk_t(n, p)


@pytest.mark.parametrize(
    # (N, p, discarded) read from real v4.1 / v5.1 logs ("Would discard X highest latency queries")
    ("n", "p", "discarded"),
    [(100, 0.9, 2), (2121, 0.9, 179), (57903, 0.9, 5621), (4742678, 0.9, 472747), (14660, 0.99, 117), (2966621, 0.99, 29266)],
)
def test_discard_counts_from_real_logs(n: int, p: float, discarded: int) -> None:
    assert overlatency_budget(n, p) == discarded + 1


# ------------------------------------------- plain-Python odds and the guided search


def _crossings(p: float, ts) -> list[tuple[int, int]]:
    """(h, t) pairs around the answer of each t's search: where the decision odds < 0.01 is closest."""
    pairs = []
    for t in ts:
        h = min_passing_queries(t, p)
        pairs += [(cand, t) for cand in (h - 2, h - 1, h, h + 1) if cand >= 1]
    return pairs


_LARGE_T = [137, 999, 4_321, 57_903, 472_747, 2_966_621]


@pytest.mark.parametrize("p", [0.5, 0.9, 0.95, 0.99, 0.999])
def test_regularized_beta_matches_scipy(p: float) -> None:
    """The plain-Python I_x(h, t+1) agrees with scipy's betainc to 1e-9 (Loader's binomial term: a
    log-gamma difference would lose 1e-7 at these counts) and decides odds < 0.01 the same way."""
    pairs = _crossings(p, list(range(0, 40)) + _LARGE_T)
    pairs += [(h, t) for h, t in ((1, 0), (44, 0), (459, 0), (10**6, 1), (50, 10**5), (10**8, 10**4))]
    for h, t in pairs:
        ours = regularized_beta(h, t + 1, p)
        theirs = float(betainc(h, t + 1, p))
        assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-300), (h, t)
        assert (ours < 0.01) == (theirs < 0.01), (h, t)


def _literal_scipy_search(t: int, p: float) -> int:
    """LoadGen's search with an empty cache over [min_h, max_h), with scipy's betainc: the reference."""
    y1 = math.ceil(math.log(0.01) / math.log(p))
    lo, hi = int(t * (p / (1.0 - p)) + y1), int(t * float(y1) + y1 + 1)
    count = hi - lo
    while count > 0:
        half = count // 2
        if float(betainc(lo + half, t + 1, p)) < 0.01:
            count = half
        else:
            lo, count = lo + half + 1, count - half - 1
    return lo


@pytest.mark.parametrize("p", [0.9, 0.95, 0.99, 0.999])
def test_guided_search_equals_loadgen_search(p: float) -> None:
    """min_passing_queries starts from a normal-approximation guess: same answer as LoadGen's bisection of
    the whole [min_h, max_h) range, and as the literal finder."""
    for t in list(range(0, 60)) + _LARGE_T:
        assert min_passing_queries(t, p) == _literal_scipy_search(t, p), t
    for t in range(0, 60, 7):
        assert min_passing_queries(t, p) == MinPassingQueriesFinder()(t, p), t


@pytest.mark.parametrize("p", [0.9, 0.99])
def test_guided_overlatency_equals_bisection(p: float) -> None:
    """max_overlatency_allowed searches from a guess: the same t as bisecting all of [0, n)."""
    for n in list(range(0, 1500, 37)) + [57_903, 2_121, 14_660, 4_742_678, 2_966_621]:
        if n < min_passing_queries(0, p):
            assert max_overlatency_allowed(n, p) is None
            continue
        lo, hi = 0, n
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if min_passing_queries(mid, p) + mid <= n else (lo, mid)
        assert max_overlatency_allowed(n, p) == lo, n


# ----------------------------------------------------------------- estimate


def test_single_stream_estimate() -> None:
    assert single_stream_estimate(list(range(63)), 0.9) == (None, 0)
    assert single_stream_estimate(list(range(64)), 0.9) == (63, 0)  # t=1: the maximum
    lat = list(range(1000, 1100))  # N=100 discards 2 -> sorted[100 - 3]
    assert single_stream_estimate(lat, 0.9) == (1097, 2)
    assert single_stream_estimate(list(reversed(lat)), 0.9) == (1097, 2)  # order does not matter
    est, disc = percentile_estimate(list(range(20_000)), 0.99)
    t = overlatency_budget(20_000, 0.99)
    assert (est, disc) == (20_000 - t, t - 1)


@pytest.mark.parametrize("bad", [[-1] * 70, [float("nan")] * 70, ["1"] * 70])
def test_estimate_rejects_bad_latencies(bad: list) -> None:
    with pytest.raises((ValueError, TypeError)):
        single_stream_estimate(bad, 0.9)


# --------------------------------------------------------------- expectation


def test_expected_early_stopping_per_scenario() -> None:
    ss = expected_early_stopping("singlestream", 100, None, 0.9)
    assert (ss.scenario, ss.met, ss.min_queries, ss.max_overlatency, ss.discarded) == ("SingleStream", True, 64, 3, 2)
    ms = expected_early_stopping("MultiStream", 661, None, 0.99)
    assert (ms.met, ms.min_queries, ms.additional_queries, ms.discarded) == (False, 662, 1, None)
    sv = expected_early_stopping("Server", 186037377, 106547, 0.99)
    assert sv.met and sv.min_queries == server_min_queries(106547, 0.99)
    off = expected_early_stopping("Offline", 1, None, 0.99)
    assert off.met and off.min_queries == 0
    with pytest.raises(ValueError, match="over-latency"):
        expected_early_stopping("Server", 100, None, 0.99)


@pytest.mark.parametrize(
    "call",
    [
        lambda: min_passing_queries(-1, 0.9),
        lambda: min_passing_queries(1.5, 0.9),  # type: ignore[arg-type]
        lambda: min_passing_queries(1, 90),
        lambda: min_passing_queries(1, 0.0),
        lambda: min_passing_queries(1, float("nan")),
        lambda: min_passing_queries(1, 0.9, confidence=1.0),
        lambda: server_early_stopping(10, 11, 0.99),
        lambda: normalize_scenario("Interactive"),
    ],
)
def test_bad_input_raises_value_error(call) -> None:
    with pytest.raises(ValueError):
        call()


# ----------------------------------------------------------------- properties

percentiles = st.floats(min_value=0.5, max_value=0.995, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(t=st.integers(min_value=0, max_value=3000), k=st.integers(min_value=1, max_value=500), p=percentiles)
def test_monotone_in_overlatency(t: int, k: int, p: float) -> None:
    assert min_passing_queries(t, p) <= min_passing_queries(t + k, p)
    assert server_min_queries(t, p) < server_min_queries(t + k, p)


@settings(max_examples=60, deadline=None)
@given(t=st.integers(min_value=0, max_value=3000), p1=percentiles, p2=percentiles)
def test_monotone_in_percentile(t: int, p1: float, p2: float) -> None:
    lo, hi = sorted((p1, p2))
    assert min_passing_queries(t, lo) <= min_passing_queries(t, hi)
    assert min_queries_for_percentile(lo) <= min_queries_for_percentile(hi)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(min_value=0, max_value=10**7), p=st.sampled_from([0.9, 0.99]))
def test_max_overlatency_is_the_boundary(n: int, p: float) -> None:
    t = max_overlatency_allowed(n, p)
    if t is None:
        assert server_min_queries(0, p) > n
    else:
        assert server_min_queries(t, p) <= n < server_min_queries(t + 1, p)
