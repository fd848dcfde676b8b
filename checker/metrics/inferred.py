"""Inferred edge results (rules 4.1.1), pure maths.

Edge submitters may infer a MultiStream result from SingleStream and an
Offline result from SingleStream or MultiStream.  The rules state:

* MultiStream from SingleStream = 8 x the SingleStream 99th-percentile latency
  (25 ms -> 200 ms);
* Offline from MultiStream = 8000 / mean latency in ms (200 ms -> 40 /s);
* Offline from SingleStream = 1000 / mean latency in ms (25 ms -> 40 /s).

The official checker (official-checker.md section H) computes the same things
from detail-log values, with these exact forms:

* Offline <- SingleStream: ``result_qps_without_loadgen_overhead`` as is;
* Offline <- MultiStream:
  ``effective_samples_per_query * 1000 / (result_mean_query_latency_ns / 1e6)``;
* MultiStream <- SingleStream: ``early_stopping_latency_ms * 8 / 1e6``.  Despite
  its name the key holds nanoseconds (the SingleStream log's p99 early-stopping
  estimate); 0 means LoadGen processed too few queries to make the estimate.

Every function returns a ``float`` and raises ``ValueError`` for a value that
is not a finite positive number (zero, negative, NaN, infinite, boolean or
non-numeric text).
"""

from __future__ import annotations

import math
from decimal import Decimal

Numeric = int | float | Decimal | str

#: MultiStream queries carry 8 samples (rules, scenario table).
MULTISTREAM_SAMPLES_PER_QUERY = 8


def _finite(name: str, value: Numeric) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if isinstance(value, (int, float, Decimal)):
        x = float(value)
    elif isinstance(value, str):
        try:
            x = float(value.strip())
        except ValueError:
            raise ValueError(f"{name} must be a number, got {value!r}") from None
    else:
        raise ValueError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def _positive(name: str, value: Numeric) -> float:
    x = _finite(name, value)
    if x <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return x


# ------------------------------------------------------------- rules forms (ms)


def multistream_from_singlestream(p99_latency_ms: Numeric) -> float:
    """MultiStream latency (ms) = 8 x SingleStream p99 latency (ms)."""
    return MULTISTREAM_SAMPLES_PER_QUERY * _positive("p99_latency_ms", p99_latency_ms)


def offline_from_singlestream(mean_latency_ms: Numeric) -> float:
    """Offline throughput (samples/s) = 1000 / SingleStream mean latency (ms)."""
    return 1000.0 / _positive("mean_latency_ms", mean_latency_ms)


def offline_from_multistream(mean_query_latency_ms: Numeric, samples_per_query: Numeric = 8) -> float:
    """Offline throughput (samples/s) = samples_per_query x 1000 / MultiStream
    mean query latency (ms); 8000 / latency for the standard 8 samples."""
    spq = _positive("samples_per_query", samples_per_query)
    return spq * 1000.0 / _positive("mean_query_latency_ms", mean_query_latency_ms)


# ------------------------------------------- official checker forms (log values)


def official_offline_from_singlestream(result_qps_without_loadgen_overhead: Numeric) -> float:
    """Offline value the official checker reports for a SingleStream log: the
    log's ``result_qps_without_loadgen_overhead`` (1 / mean latency)."""
    return _positive("result_qps_without_loadgen_overhead", result_qps_without_loadgen_overhead)


def official_offline_from_multistream(
    effective_samples_per_query: Numeric, result_mean_query_latency_ns: Numeric
) -> float:
    """``effective_samples_per_query * 1000 / (result_mean_query_latency_ns / 1e6)``."""
    spq = _positive("effective_samples_per_query", effective_samples_per_query)
    mean_ns = _positive("result_mean_query_latency_ns", result_mean_query_latency_ns)
    return spq * 1000 / (mean_ns / 1e6)


def official_multistream_from_singlestream(early_stopping_latency_ms: Numeric) -> float:
    """``early_stopping_latency_ms * 8 / 1e6`` (the key holds ns; result in ms).

    A 0 estimate raises ``ValueError``: the official checker logs "Not enough
    samples were processed for early stopping to make an estimate" (v4.1/v5.0
    then report no result, v5.1 marks it invalid).
    """
    if _finite("early_stopping_latency_ms", early_stopping_latency_ms) == 0:
        raise ValueError(
            "early_stopping_latency_ms is 0: not enough samples were processed for early "
            "stopping to make a 99th-percentile estimate, so MultiStream cannot be inferred"
        )
    ns = _positive("early_stopping_latency_ms", early_stopping_latency_ms)
    return ns * MULTISTREAM_SAMPLES_PER_QUERY / 1e6
