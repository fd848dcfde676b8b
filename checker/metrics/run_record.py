"""A LoadGen detail log against itself: the reported figure recomputed from the other keys of the run.

LoadGen writes the result of a run together with the counts, durations and latency statistics it was
computed from (loadgen/results.cc; official-checker.md section 4). A figure edited alike in the summary and
the detail log (which PF022 cannot see) no longer follows from them. The relations used here, per scenario:

- every run: the logged order statistics are ordered (min <= p50 <= p90 <= ... <= p99.9 <= max, the mean
  within min..max), for the sample latencies, the MultiStream per-query latencies and the first-token
  latencies; LoadGen takes each percentile as ``sorted[floor(N * p)]``;
- Offline: ``result_samples_per_second`` = samples issued / ``result_max_latency_ns`` (one query issued at
  once, so the largest latency is the time the last sample completed);
- Server: ``result_scheduled_samples_per_sec`` = (samples - 1) / ``generated_query_duration`` (the time the
  last query was scheduled); ``result_completed_samples_per_sec`` = (samples - 1) / the time the last one
  completed, which lies between the last scheduled time plus the smallest and plus the largest latency;
  the completed token rate over the completed sample rate (tokens per sample) equals
  ``result_token_throughput_with_loadgen_overhead`` over the scheduled rate;
- inferred token rates (v4.1-v5.0 gptj): the sample rate times the model's scaling factor (69);
- SingleStream: ``early_stopping_latency_ss`` is an order statistic at a rank at least that of the 90th
  percentile, so it is at least ``result_90.00_percentile_latency_ns`` (token runs: the first-token one)
  and at most the largest latency; the p99 estimate (``early_stopping_latency_ms``, when written) is at
  least the 99th percentile; ``result_qps_without_loadgen_overhead`` = 1 / mean latency;
- MultiStream: ``early_stopping_latency_ms`` lies between the 99th percentile and the largest per-query
  latency;
- Offline, Server, SingleStream: the duration the result implies (the last completion; samples over the
  completed rate; queries over the issue rate) lies within the window LoadGen stamps around every run
  (``power_begin`` / ``power_end``), so a rate edited together with the latencies it follows from is seen
  unless the stamps are edited too.

Pure: no IO. ``log`` is anything with ``get(key)`` and ``in`` (a parsed DetailLog).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import le

from checker.metrics.power import PowerError, parse_stamp

FIRST_ARRIVAL_GAPS = 10
PERCENTILES = ("50.00", "90.00", "95.00", "97.00", "99.00", "99.90")
# (label, key of min, key template of a percentile, key of max, key of mean)
_LATENCY_FAMILIES = (
    ("latency", "result_min_latency_ns", "result_{}_percentile_latency_ns", "result_max_latency_ns",
     "result_mean_latency_ns"),
    ("per-query latency", "result_min_query_latency_ns", "result_{}_percentile_per_query_latency_ns",
     "result_max_query_latency_ns", "result_mean_query_latency_ns"),
    ("first-token latency", "result_first_token_min_latency_ns", "result_first_token_{}_percentile_latency_ns",
     "result_first_token_max_latency_ns", "result_first_token_mean_latency_ns"),
)


@dataclass(frozen=True)
class Contradiction:
    """A logged figure that does not follow from the rest of the log."""

    key: str  # the key whose value is contradicted (the reported figure where it is involved)
    message: str
    expected: str
    actual: str


@dataclass(frozen=True)
class Bounds:
    """The round's tolerances (rules: ``offline_rate_duration_band``, ``server_completed_over_scheduled_max``,
    ``run_record_tolerance``, ``power_window_band``, ``power_window_slack_s``) and the model's inferred-token
    factor, if any."""

    offline_band: tuple[float, float] | None = None
    server_completed_max: float | None = None
    tolerance: float | None = None  # relative slack for LoadGen's 6 significant digits
    inferred_tokens_per_sample: float | None = None
    power_window_band: tuple[float, float] | None = None  # the run's duration over its power window
    power_window_slack_s: float = 0.0  # the power stamps' resolution, allowed on each side of the window


def _num(log, key: str) -> float | None:
    value = log.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _positive(log, *keys: str) -> list[float] | None:
    many = getattr(log, "get_many", None)  # (a DetailLog reads every key in one call)
    values = [float(v) if v is not None and v.__class__ is not bool and isinstance(v, (int, float)) else None
              for v in (many(keys) if many is not None else [log.get(k) for k in keys])]
    return values if all(v is not None and v > 0 for v in values) else None


def _g(value: float) -> str:
    return f"{value:.6g}"


# (label, the keys of the chain from min through each percentile to max, key of the mean) of each family
_CHAINS = tuple((label, (low, *(template.format(p) for p in PERCENTILES), high), mean)
                for label, low, template, high, mean in _LATENCY_FAMILIES)


#: every key _order reads, in the order it reads them: each chain's keys, then its mean
_ORDER_KEYS = tuple(key for _, keys, mean in _CHAINS for key in (*keys, mean))


def _number(value) -> float | None:
    """``_num`` of a value already read."""
    if value is None or value.__class__ is bool or not isinstance(value, (int, float)):
        return None
    return float(value)


#: (label, keys of the chain, key of the mean, where the chain's values start and end in _ORDER_KEYS' values)
_SPANS = tuple((label, keys, mean, start, start + len(keys))
               for (label, keys, mean), start in zip(_CHAINS, range(0, len(_ORDER_KEYS), len(_CHAINS[0][1]) + 1)))
_NUMBER_TYPES = frozenset({int, float})


def _order(log) -> list[Contradiction]:
    out = []
    many = getattr(log, "get_many", None)  # (a DetailLog reads every key in one call)
    values = many(_ORDER_KEYS) if many is not None else [log.get(key) for key in _ORDER_KEYS]
    for label, keys, mean_key, start, stop in _SPANS:
        found = values[start:stop]
        kinds = set(map(type, found))
        if kinds.isdisjoint(_NUMBER_TYPES):
            continue  # no number in the chain (a family the run does not log): nothing is ordered
        if kinds <= _NUMBER_TYPES:  # every key of the chain is a number: one test of the whole chain
            numbers = list(map(float, found))
            if all(map(le, numbers, numbers[1:])):
                mean = _number(values[stop])
                low, high = numbers[0], numbers[-1]
                if mean is not None and not low <= mean <= high:
                    out.append(Contradiction(mean_key, f"mean {label} {_g(mean)} lies outside {_g(low)}-{_g(high)}",
                                             f"{_g(low)}-{_g(high)}", _g(mean)))
                continue
        chain = []  # (key, value) of the chain's numbers, in order (as _num reads them)
        for key, value in zip(keys, found):
            if value is not None and not isinstance(value, bool) and isinstance(value, (int, float)):
                chain.append((key, float(value)))
        for (k1, v1), (k2, v2) in zip(chain, chain[1:]):
            if v2 < v1:
                out.append(Contradiction(k2, f"{label}s out of order: {k2} {_g(v2)} is below {k1} {_g(v1)}",
                                         f">= {_g(v1)} ({k1})", _g(v2)))
        mean = _number(values[stop])
        if mean is None or len(chain) < 2 or chain[0][0] != keys[0] or chain[-1][0] != keys[-1]:
            continue  # the mean, min or max is not a number
        low, high = chain[0][1], chain[-1][1]
        if not low <= mean <= high:
            out.append(Contradiction(mean_key, f"mean {label} {_g(mean)} lies outside {_g(low)}-{_g(high)}",
                                     f"{_g(low)}-{_g(high)}", _g(mean)))
    return out


def _offline(log, bounds: Bounds, samples: float | None) -> list[Contradiction]:
    band = bounds.offline_band
    values = _positive(log, "result_samples_per_second", "result_max_latency_ns")
    if not band or values is None or not samples:
        return []
    rate, last = values
    ratio = rate * last / 1e9 / samples
    if band[0] <= ratio <= band[1]:
        return []
    return [Contradiction("result_samples_per_second",
                          f"result_samples_per_second {_g(rate)} over {_g(last / 1e9)} s is {_g(rate * last / 1e9)} "
                          f"samples, {ratio:.3f} times the {_g(samples)} issued",
                          f"{band[0]:g}-{band[1]:g} times the samples issued", f"{ratio:.3f}")]


def _server(log, bounds: Bounds, samples_per_query: float | None) -> list[Contradiction]:
    out = []
    tol = bounds.tolerance
    done = _num(log, "result_completed_samples_per_sec")
    planned = _num(log, "result_scheduled_samples_per_sec")
    limit = bounds.server_completed_max
    if limit and done and planned and planned > 0 and done > planned * limit:
        out.append(Contradiction("result_completed_samples_per_sec",
                                 f"the run completed {_g(done)} samples/s but scheduled only {_g(planned)}",
                                 f"<= {limit:g} x result_scheduled_samples_per_sec", f"{done / planned:.3f} x"))
    if tol is None or not samples_per_query:
        return out
    queries = _num(log, "generated_query_count")
    # LoadGen may count the schedule from the first query's arrival: a Poisson schedule's first gap
    # exceeds ten mean gaps with probability e^-10, which matters only for short (compliance-sized) runs
    head = 1 / (1 - min(FIRST_ARRIVAL_GAPS / queries, 0.5)) if queries and queries > 0 else 1.0
    span = _positive(log, "generated_query_duration", "generated_query_count")
    if span is not None and planned is not None:
        seconds, queries = span[0] / 1e9, span[1] * samples_per_query
        low, high = (queries - 1) / seconds * (1 - tol), queries / seconds * (1 + tol) * head
        if not low <= planned <= high:
            out.append(Contradiction("result_scheduled_samples_per_sec",
                                     f"result_scheduled_samples_per_sec {_g(planned)}: {_g(queries)} samples were "
                                     f"scheduled over {_g(seconds)} s", f"{_g(low)}-{_g(high)}", _g(planned)))
    stats = _positive(log, "generated_query_duration", "result_query_count", "result_max_latency_ns")
    shortest = _num(log, "result_min_latency_ns")
    if stats is not None and shortest is not None and shortest >= 0 and done is not None:
        seconds, queries, longest = stats[0] / 1e9, stats[1] * samples_per_query, stats[2] / 1e9
        # the last sample completed after the last scheduled time plus the shortest latency, and no later
        # than it plus the longest
        low = (queries - 1) / (seconds + longest) * (1 - tol)
        high = queries / (seconds + shortest / 1e9) * (1 + tol) * head
        if not low <= done <= high:
            out.append(Contradiction("result_completed_samples_per_sec",
                                     f"result_completed_samples_per_sec {_g(done)}: {_g(queries)} samples scheduled "
                                     f"over {_g(seconds)} s complete between {_g(seconds + shortest / 1e9)} and "
                                     f"{_g(seconds + longest)} s", f"{_g(low)}-{_g(high)}", _g(done)))
    tokens = _positive(log, "result_completed_tokens_per_second", "result_completed_samples_per_sec",
                       "result_token_throughput_with_loadgen_overhead", "result_scheduled_samples_per_sec")
    if tokens is not None:
        per_done, per_planned = tokens[0] / tokens[1], tokens[2] / tokens[3]
        if abs(per_done / per_planned - 1) > tol:
            out.append(Contradiction("result_completed_tokens_per_second",
                                     f"result_completed_tokens_per_second {_g(tokens[0])} is {_g(per_done)} tokens "
                                     f"per completed sample, but result_token_throughput_with_loadgen_overhead "
                                     f"{_g(tokens[2])} is {_g(per_planned)} per scheduled sample",
                                     f"{_g(per_planned)} tokens per sample", _g(per_done)))
    return out


def _inferred(log, bounds: Bounds) -> list[Contradiction]:
    factor, tol = bounds.inferred_tokens_per_sample, bounds.tolerance
    if not factor or tol is None:
        return []
    out = []
    for key, rate_key in (("result_inferred_tokens_per_second", "result_samples_per_second"),
                          ("result_inferred_completed_tokens_per_second", "result_completed_samples_per_sec")):
        values = _positive(log, key, rate_key)
        if values is not None and abs(values[0] / values[1] / factor - 1) > tol:
            out.append(Contradiction(key, f"{key} {_g(values[0])} is {_g(values[0] / values[1])} times {rate_key} "
                                     f"{_g(values[1])}; LoadGen scales the sample rate by {factor:g}",
                                     _g(values[1] * factor), _g(values[0])))
    return out


def _streams(log, scenario: str, bounds: Bounds) -> list[Contradiction]:
    out = []
    token = "early_stopping_ttft_result" in log and "early_stopping_result" not in log
    if scenario == "SingleStream":
        stem = "result_first_token_{}_percentile_latency_ns" if token else "result_{}_percentile_latency_ns"
        largest = "result_first_token_max_latency_ns" if token else "result_max_latency_ns"
        pairs = [("early_stopping_latency_ss", stem.format("90.00"), largest),
                 ("early_stopping_latency_ms", stem.format("99.00"), None)]
        tol = bounds.tolerance
        qps = _positive(log, "result_qps_without_loadgen_overhead", "result_mean_latency_ns")
        if tol is not None and qps is not None and abs(qps[0] * qps[1] / 1e9 - 1) > tol:
            out.append(Contradiction("result_qps_without_loadgen_overhead",
                                     f"result_qps_without_loadgen_overhead {_g(qps[0])} is not 1 / the mean latency "
                                     f"({_g(qps[1] / 1e9)} s)", _g(1e9 / qps[1]), _g(qps[0])))
    else:
        pairs = [("early_stopping_latency_ms", "result_99.00_percentile_per_query_latency_ns",
                  "result_max_query_latency_ns")]
    for key, floor_key, ceiling_key in pairs:
        value, floor = _num(log, key), _num(log, floor_key)
        if not value:  # 0: LoadGen had too few queries for that estimate
            continue
        if floor is not None and value < floor:
            out.append(Contradiction(key, f"{key} {_g(value)} is below {floor_key} {_g(floor)}, though the estimate "
                                     "is an order statistic of a higher rank", f">= {_g(floor)}", _g(value)))
        ceiling = _num(log, ceiling_key) if ceiling_key else None
        if ceiling is not None and value > ceiling:
            out.append(Contradiction(key, f"{key} {_g(value)} exceeds {ceiling_key} {_g(ceiling)}",
                                     f"<= {_g(ceiling)}", _g(value)))
    return out


def _implied_duration(log, scenario: str, samples_per_query: float | None) -> tuple[str, float] | None:
    """(the figure, the run's duration in s that it implies): Offline the last completion
    (``result_max_latency_ns``), Server (samples - 1) / the completed rate, SingleStream (queries - 1) / the
    issue rate (``result_qps_with_loadgen_overhead``)."""
    if scenario == "Offline":
        values = _positive(log, "result_max_latency_ns")
        return ("result_max_latency_ns", values[0] / 1e9) if values else None
    if scenario == "Server" and samples_per_query:
        values = _positive(log, "result_query_count", "result_completed_samples_per_sec")
        return ("result_completed_samples_per_sec",
                (values[0] * samples_per_query - 1) / values[1]) if values and values[0] > 1 else None
    if scenario == "SingleStream":
        values = _positive(log, "result_query_count", "result_qps_with_loadgen_overhead")
        return ("result_qps_with_loadgen_overhead", (values[0] - 1) / values[1]) if values and values[0] > 1 else None
    return None


def _power_window(log, scenario: str, bounds: Bounds, samples_per_query: float | None) -> list[Contradiction]:
    """The run's duration, as its result implies it, against the window LoadGen stamped around the run
    (``power_begin`` / ``power_end``, written for every run): Offline they agree to the millisecond, a
    Server or SingleStream window also holds the wind-down (shared subsets: 1.000-1.031 times; a Server
    run's implied duration is at least the window less its longest latency)."""
    band = bounds.power_window_band
    begin, end = log.get("power_begin"), log.get("power_end")
    implied = _implied_duration(log, scenario, samples_per_query)
    if not band or begin is None or end is None or implied is None:
        return []
    try:
        window = (parse_stamp(end) - parse_stamp(begin)).total_seconds()
    except PowerError:
        return []  # PW checks report unreadable stamps
    key, seconds = implied
    low = band[0] * window
    longest = _num(log, "result_max_latency_ns")
    if scenario == "Server" and longest is not None:
        # a token run's completed rate may end well before its window does (TEST07/TEST09 runs of gpt-oss:
        # 10 s of a 60 s window), but not earlier than the longest latency before the window's end
        low = min(low, window - longest / 1e9)
    slack = bounds.power_window_slack_s
    if window <= 0 or low - slack <= seconds <= band[1] * window + slack:
        return []
    return [Contradiction(key, f"{key} implies a {seconds:.6g} s run, but LoadGen stamped {window:.6g} s around it "
                          f"(power_begin {begin}, power_end {end})",
                          f"{band[0]:g}-{band[1]:g} x {window:.6g} s", f"{seconds:.6g} s")]


def contradictions(log, bounds: Bounds) -> list[Contradiction]:
    """Every figure of ``log`` that does not follow from the rest of it (empty for an untouched log)."""
    scenario = log.get("effective_scenario")
    spq = _num(log, "generated_samples_per_query") or _num(log, "effective_samples_per_query")
    out = _order(log)
    if scenario == "Offline":
        out += _offline(log, bounds, spq)
    elif scenario == "Server":
        out += _server(log, bounds, spq)
    elif scenario in ("SingleStream", "MultiStream"):
        out += _streams(log, scenario, bounds)
    out += _inferred(log, bounds)
    out += _power_window(log, scenario, bounds, spq)
    return out


# (token rate, sample rate) of the rate a token run reports: Offline, and Server / Interactive (PF026)
REPORTED_TOKEN_RATES = (("result_tokens_per_second", "result_samples_per_second"),
                        ("result_completed_tokens_per_second", "result_completed_samples_per_sec"))
# (token rate, sample rate) pairs a performance run logs, in the order its output length is read from them:
# Server / Interactive and single-stream runs log a token throughput with LoadGen's overhead beside the rate
# they report (PF025 ties the two together), Offline runs only the reported rate; Server runs of older
# LoadGen releases only the completed rates
TOKEN_RATE_PAIRS = (("result_token_throughput_with_loadgen_overhead", "result_scheduled_samples_per_sec"),
                    ("result_token_throughput_with_loadgen_overhead", "result_qps_with_loadgen_overhead"),
                    *REPORTED_TOKEN_RATES)


def tokens_per_sample(log) -> float | None:
    """Mean output tokens per sample of a token-logging performance run: a token rate over its sample rate (the
    first pair of TOKEN_RATE_PAIRS it logs); None for a run that logs no token rate."""
    for tokens, samples in TOKEN_RATE_PAIRS:
        pair = _positive(log, tokens, samples)
        if pair is not None:
            return pair[0] / pair[1]
    return None
