"""LoadGen early stopping, recomputed independently (pure maths, no IO).

Background (rules Appendix A; official-checker.md section 4): for a target
percentile ``p`` (a fraction such as 0.90 or 0.99), tolerance ``d`` and
confidence ``c``, ``h(t)`` is the smallest number of *under*-latency queries
such that a system that only just fails (in-latency probability ``p - d``)
would show ``t`` or fewer over-latency queries among ``h + t`` with
probability below ``1 - c``::

    odds(h, t) = I_{p-d}(h, t + 1)    (regularized incomplete beta = binomial CDF)
    h(t)       = min { h : odds(h, t) < 1 - c }

LoadGen fixes ``c = 0.99`` and ``d = 0``.

How LoadGen searches (reproduced here because its search bounds decide the
answer when the true minimum lies outside them):

* an integer binary search of "lower bound" style over the half-open range
  ``[min_h, max_h)``; when no candidate in the range passes, ``max_h`` itself is
  returned without being tested;
* bounds come from a per-call cache of earlier answers.  With an empty cache
  the anchor is ``(x1, y1) = (0, ceil(ln(1-c) / ln(p-d)))`` and
  ``(x0, y0) = (-1, 0)``; otherwise ``(x1, y1)`` and ``(x0, y0)`` are the nearest
  cached entries below ``t`` (``x0`` stays ``-1`` when only one exists);
* ``min_h = trunc((t - x1) * (p-d)/(1-p+d) + y1)`` and
  ``max_h = trunc((t - x1) * (y1-y0)*(x1-x0) + y1 + 1)`` (LoadGen multiplies the
  two differences; the product only widens the range).

The anchor ``y1`` for ``t = 0`` is 44 at p=0.90 and 459 at p=0.99.  459 is also
``h(0)``: a Server run with no over-latency query passes with 459 queries.

Per scenario (``PerformanceSummary::EarlyStopping``):

* Server: ``t`` = queries strictly over the target latency; pass iff
  ``N >= h(t) + t`` with a fresh cache.
* SingleStream / MultiStream: fail iff ``N < h(1) + 1`` (64 at p=0.90, 662 at
  p=0.99).  Otherwise ``t`` = the largest ``i >= 1`` with ``N >= h(i) + i``
  (LoadGen walks i = 2, 3, ... sharing one cache); the estimate is
  ``sorted_latencies[N - t]`` and ``t - 1`` highest latencies are discarded.

``odds`` is computed in plain Python (:mod:`checker.metrics.binomial_tail`, which agrees with scipy's
``betainc`` to about 1e-11 and no longer needs scipy's 0.4 s import), and a fresh search starts from a
normal-approximation guess of ``h(t)``, doubling its step away from it and then bisecting: a few ``odds``
evaluations instead of LoadGen's ``log2(max_h - min_h)``, the same answer because ``odds`` falls as ``h``
grows (``max_overlatency_allowed`` searches ``t`` the same way).

Speed: LoadGen's walk costs one search per over-latency query (hundreds of
thousands for long SingleStream runs).  :func:`overlatency_budget` instead
bisects on ``t`` with fresh searches, which gives the same ``t`` whenever the
cached walk finds the true minima.  :func:`loadgen_walk_t` keeps the literal
walk.  Measured: every answer of the cached walk is the true minimum for
t <= 600,000 at p=0.90 (about 6 million queries), t <= 80,000 at p=0.99
(about 8 million), t <= 50,000 at p=0.95 and t <= 5,000 at p=0.999, so both
give the same ``t`` there; the tests re-check shorter ranges.
"""

from __future__ import annotations

from functools import lru_cache

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from checker.metrics.binomial_tail import regularized_beta


#: LoadGen hard-codes these for every scenario.
LOADGEN_CONFIDENCE = 0.99
LOADGEN_TOLERANCE = 0.0

Scenario = Literal["SingleStream", "MultiStream", "Server", "Offline"]
_SCENARIOS: dict[str, Scenario] = {
    "singlestream": "SingleStream",
    "multistream": "MultiStream",
    "server": "Server",
    "offline": "Offline",
}


# --------------------------------------------------------------------------- core


def _check_percentile(percentile: float) -> float:
    try:
        p = float(percentile)
    except (TypeError, ValueError):
        raise ValueError(f"percentile must be a number, got {percentile!r}") from None
    if not (0.0 < p < 1.0) or math.isnan(p):
        raise ValueError(
            f"percentile must be a fraction strictly between 0 and 1 (e.g. 0.90), got {percentile!r}"
        )
    return p


def _check_count(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


def _check_params(percentile: float, tolerance: float, confidence: float) -> tuple[float, float, float]:
    p = _check_percentile(percentile)
    d = float(tolerance)
    c = float(confidence)
    if not (0.0 <= d < p):
        raise ValueError(f"tolerance must satisfy 0 <= tolerance < percentile, got {tolerance!r}")
    if not (0.0 < c < 1.0):
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    return p, d, c


def odds(h: int, t: int, percentile: float, tolerance: float = 0.0) -> float:
    """P(at most ``t`` over-latency queries among ``h + t``) for a system whose
    in-latency probability is ``percentile - tolerance``: ``I_{p-d}(h, t+1)``."""
    return regularized_beta(h, t + 1, percentile - tolerance)


def _search(lo: int, hi: int, t: int, p: float, d: float, c: float) -> int:
    """Smallest h in [lo, hi) with odds < 1 - c; ``hi`` when none passes (untested)."""
    threshold = 1.0 - c
    count = hi - lo
    while count > 0:
        half = count // 2
        mid = lo + half
        if odds(mid, t, p, d) < threshold:
            count = half
        else:
            lo = mid + 1
            count -= half + 1
    return lo


class MinPassingQueriesFinder:
    """``h(t)`` with LoadGen's per-instance cache (one instance = one
    ``EarlyStopping`` call in LoadGen).  Cached answers narrow later searches."""

    def __init__(self) -> None:
        # per (p, d, c): answers by t, plus the cached t values in ascending order
        self._caches: dict[tuple[float, float, float], tuple[dict[int, int], list[int]]] = {}

    def __call__(
        self,
        overlatency: int,
        percentile: float,
        tolerance: float = LOADGEN_TOLERANCE,
        confidence: float = LOADGEN_CONFIDENCE,
    ) -> int:
        t = _check_count("overlatency", overlatency)
        p, d, c = _check_params(percentile, tolerance, confidence)
        cache, keys = self._caches.setdefault((p, d, c), ({}, []))
        if t in cache:
            return cache[t]
        pos = bisect.bisect_left(keys, t)  # keys[:pos] are the cached t below this one
        x0, y0 = -1, 0
        x1, y1 = 0, math.ceil(math.log(1.0 - c) / math.log(p - d))
        if pos >= 1:
            x1 = keys[pos - 1]
            y1 = cache[x1]
        if pos >= 2:
            x0 = keys[pos - 2]
            y0 = cache[x0]
        min_slope = (p - d) / (1.0 - p + d)
        max_slope = float((y1 - y0) * (x1 - x0))
        lo = int((t - x1) * min_slope + y1)  # C++ double -> int64 truncates
        hi = int((t - x1) * max_slope + y1 + 1)
        h = _search(lo, hi, t, p, d, c)
        cache[t] = h
        keys.insert(pos, t)
        return h


def _first_true(lo: int, hi: int, start: int, test) -> int:
    """The smallest ``i`` in ``[lo, hi)`` with ``test(i)`` true, ``hi`` when there is none (``lo`` when the
    range is empty), for a ``test`` that is false then true along the range: what the bisection of
    :func:`_search` returns, found from a guess ``start`` by doubling steps and then bisecting, so that a
    close guess costs a few tests instead of ``log2(hi - lo)``."""
    if hi <= lo:
        return lo
    probe = min(max(start, lo), hi - 1)
    step = 1
    if test(probe):
        below, above = lo - 1, probe  # test(below) false (or below the range), test(above) true
        while probe > lo:
            probe = max(above - step, lo)
            if not test(probe):
                below = probe
                break
            above = probe
            step *= 2
    else:
        below, above = probe, hi
        while True:
            probe = below + step
            if probe >= hi:
                break
            if test(probe):
                above = probe
                break
            below = probe
            step *= 2
    while above - below > 1:
        mid = (below + above) // 2
        if test(mid):
            above = mid
        else:
            below = mid
    return above


@lru_cache(maxsize=16)
def _normal_quantile(fraction: float) -> float:
    """The standard normal quantile, to about 1e-9 (bisection on erfc): only a starting guess uses it."""
    lo, hi = -40.0, 40.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if 0.5 * math.erfc(-mid / math.sqrt(2.0)) < fraction:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _guess_h(t: int, p: float, c: float) -> int:
    """About the smallest h with odds(h, t) < 1 - c: the total n = h + t at which t over-latency
    queries are the (1 - c) quantile of Binomial(n, 1 - p), by the normal approximation with a
    continuity and a skewness (Cornish-Fisher) correction."""
    q = 1.0 - p
    z = _normal_quantile(1.0 - c)
    spread = math.sqrt(q * p)
    shift = z
    n = 0.0
    for _ in range(3):
        root = (-shift * spread + math.sqrt(shift * shift * spread * spread + 4.0 * q * (t + 0.5))) / (2.0 * q)
        n = root * root
        skew = (p - q) / math.sqrt(max(n * q * p, 1e-12))
        shift = z + (z * z - 1.0) * skew / 6.0
    return int(n - t)


@lru_cache(maxsize=65536)
def min_passing_queries(
    overlatency: int,
    percentile: float,
    tolerance: float = LOADGEN_TOLERANCE,
    confidence: float = LOADGEN_CONFIDENCE,
) -> int:
    """``h(t)``: the minimum number of under-latency queries needed when
    ``overlatency`` queries were over latency, as a fresh LoadGen finder
    computes it (the Server case).  p=0.90: h(1)=63, h(2)=79, h(100)=1146.

    The answer of LoadGen's search over ``[min_h, max_h)`` (the bounds of an empty cache), found from
    a close guess (:func:`_first_true`): the same answer, since ``odds`` falls as ``h`` grows."""
    t = _check_count("overlatency", overlatency)
    p, d, c = _check_params(percentile, tolerance, confidence)
    anchor = math.ceil(math.log(1.0 - c) / math.log(p - d))
    lo = int(t * ((p - d) / (1.0 - p + d)) + anchor)  # as MinPassingQueriesFinder with x1 = 0, x0 = -1
    hi = int(t * float(anchor) + anchor + 1)
    threshold = 1.0 - c
    return _first_true(lo, hi, _guess_h(t, p - d, c), lambda h: odds(h, t, p, d) < threshold)


def min_queries_for_percentile(percentile: float) -> int:
    """Minimum query count for SingleStream/MultiStream early stopping:
    ``h(1) + 1`` (64 at p=0.90, 662 at p=0.99)."""
    return min_passing_queries(1, percentile) + 1


def server_min_queries(overlatency: int, percentile: float = 0.99) -> int:
    """Total queries a Server run needs with ``overlatency`` queries over the
    target latency: ``h(t) + t`` (459 with none at p=0.99)."""
    return min_passing_queries(overlatency, percentile) + overlatency


def server_early_stopping(n_queries: int, n_overlatency: int, percentile: float) -> tuple[bool, int]:
    """LoadGen's Server verdict: ``(met, queries_needed)`` with
    ``queries_needed = h(t) + t`` and ``met = n_queries >= queries_needed``."""
    n = _check_count("n_queries", n_queries)
    t = _check_count("n_overlatency", n_overlatency)
    if t > n:
        raise ValueError(f"n_overlatency ({t}) cannot exceed n_queries ({n})")
    needed = server_min_queries(t, percentile)
    return n >= needed, needed


def max_overlatency_allowed(n_queries: int, percentile: float) -> int | None:
    """Largest ``t`` with ``h(t) + t <= n_queries`` (fresh searches), i.e. how many
    over-latency queries ``n_queries`` can absorb.  ``None`` when even ``t = 0``
    needs more queries.  For SingleStream/MultiStream this is LoadGen's ``t``
    (see :func:`overlatency_budget`)."""
    n = _check_count("n_queries", n_queries)
    p = _check_percentile(percentile)
    if n < min_passing_queries(0, p):
        return None
    # h(t) + t grows with t: the last t within n is one before the first t beyond it (h >= 1, so t = n is
    # beyond); the guess is the (1 - c) quantile of the over-latency count among n queries
    q = 1.0 - p
    guess = int(n * q + _normal_quantile(1.0 - LOADGEN_CONFIDENCE) * math.sqrt(n * q * p))
    return _first_true(1, n, guess, lambda t: min_passing_queries(t, p) + t > n) - 1


# ----------------------------------------------------- SingleStream / MultiStream


def overlatency_budget(n_queries: int, percentile: float) -> int | None:
    """LoadGen's ``t`` for SingleStream/MultiStream: ``None`` when
    ``n_queries < h(1) + 1`` (early stopping not met), else the largest
    ``i >= 1`` with ``n_queries >= h(i) + i``.  Fast (bisection)."""
    n = _check_count("n_queries", n_queries)
    p = _check_percentile(percentile)
    if n < min_queries_for_percentile(p):
        return None
    t = max_overlatency_allowed(n, p)
    assert t is not None and t >= 1  # n >= h(1)+1 guarantees it
    return t


def loadgen_walk_t(n_queries: int, percentile: float) -> int | None:
    """The literal LoadGen walk (i = 2, 3, ... with one shared cache).  Same
    contract as :func:`overlatency_budget`; linear in ``t``, kept as reference."""
    n = _check_count("n_queries", n_queries)
    p = _check_percentile(percentile)
    finder = MinPassingQueriesFinder()
    if n < finder(1, p) + 1:
        return None
    t = 1
    for i in range(2, n + 1):
        if n < finder(i, p) + i:
            t = i - 1
            break
    return t


def percentile_estimate(latencies: Sequence[int], percentile: float) -> tuple[int | None, int]:
    """Early-stopping percentile estimate as LoadGen makes it for SingleStream
    (sample latencies) and MultiStream (per-query latencies).

    ``latencies`` holds one latency (ns) per query, in any order; it is sorted
    here.  Returns ``(estimate, discarded)``: ``estimate`` is
    ``sorted[N - t]`` and ``discarded = t - 1`` highest latencies are ignored.
    With fewer than ``h(1) + 1`` queries returns ``(None, 0)``.
    """
    values = sorted(latencies)
    for v in values[:1] + values[-1:]:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise ValueError(f"latencies must be finite non-negative numbers, got {v!r}")
    t = overlatency_budget(len(values), percentile)
    if t is None:
        return None, 0
    return values[len(values) - t], t - 1


def single_stream_estimate(sorted_latencies: Sequence[int], percentile: float) -> tuple[int | None, int]:
    """SingleStream estimate (``early_stopping_latency_ss`` at p=0.90,
    ``early_stopping_latency_ms`` at p=0.99); see :func:`percentile_estimate`."""
    return percentile_estimate(sorted_latencies, percentile)


# ------------------------------------------------------- expectation for a log


@dataclass(frozen=True)
class EarlyStoppingExpectation:
    """What LoadGen should have written for a run, derived from its counts.

    ``min_queries`` is the total query count the run needed (Server:
    ``h(t) + t``; SingleStream/MultiStream: ``h(1) + 1``; Offline: 0);
    ``additional_queries`` is ``max(0, min_queries - n_queries)`` (the "would
    need to run at least X more queries" of a failing Server run);
    ``max_overlatency`` is the largest over-latency count ``n_queries`` can
    absorb (``None`` if none; SingleStream/MultiStream: LoadGen's ``t``);
    ``discarded`` is ``t - 1`` for SingleStream/MultiStream, else ``None``.
    """

    scenario: Scenario
    percentile: float
    n_queries: int
    n_overlatency: int | None
    met: bool
    min_queries: int
    additional_queries: int
    max_overlatency: int | None
    discarded: int | None


def normalize_scenario(scenario: str) -> Scenario:
    """Canonical LoadGen scenario name, case-insensitive (``singlestream`` -> ``SingleStream``)."""
    try:
        return _SCENARIOS[str(scenario).strip().lower()]
    except KeyError:
        raise ValueError(
            f"unknown scenario {scenario!r}; expected one of SingleStream, MultiStream, Server, Offline"
        ) from None


def expected_early_stopping(
    scenario: str,
    n_queries: int,
    n_overlatency: int | None,
    percentile: float,
) -> EarlyStoppingExpectation:
    """Recompute early stopping from the counts of a LoadGen detail log
    (``effective_scenario``, ``result_query_count``,
    ``result_overlatency_query_count``, ``effective_target_latency_percentile``).

    Server needs ``n_overlatency``; the other scenarios ignore it.  Token-latency
    (LLM) Server runs check TTFT/TPOT separately and LoadGen does not log those
    over-latency counts, so they cannot be recomputed from the counts alone.
    """
    sc = normalize_scenario(scenario)
    n = _check_count("n_queries", n_queries)
    p = _check_percentile(percentile)
    if sc == "Offline":
        return EarlyStoppingExpectation(sc, p, n, n_overlatency, True, 0, 0, None, None)
    if sc == "Server":
        if n_overlatency is None:
            raise ValueError("Server early stopping needs the over-latency query count")
        met, needed = server_early_stopping(n, n_overlatency, p)
        return EarlyStoppingExpectation(
            sc, p, n, n_overlatency, met, needed, max(0, needed - n), max_overlatency_allowed(n, p), None
        )
    needed = min_queries_for_percentile(p)
    t = overlatency_budget(n, p)
    return EarlyStoppingExpectation(
        sc,
        p,
        n,
        n_overlatency,
        t is not None,
        needed,
        max(0, needed - n),
        t,
        None if t is None else t - 1,
    )
