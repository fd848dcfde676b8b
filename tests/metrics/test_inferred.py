"""Inferred edge results (rules 4.1.1) and the official checker's forms."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from checker.metrics.inferred import (
    multistream_from_singlestream,
    official_multistream_from_singlestream,
    official_offline_from_multistream,
    official_offline_from_singlestream,
    offline_from_multistream,
    offline_from_singlestream,
)
from tests.conftest import REAL

SHARED = Path(REAL)  # the shared real data (tests/conftest.py; MLPC_SHARED moves it)


def test_rules_examples() -> None:
    # "if the single stream 99%th percentile latency is 25ms, the inferred multistream result is 200ms"
    assert multistream_from_singlestream(25) == 200.0
    # "if the multistream result is 200ms, the inferred offline result is 40 img/s"
    assert offline_from_multistream(200) == 40.0
    # "if the single stream result is 25ms, the inferred offline result is 40 img/s"
    assert offline_from_singlestream(25) == 40.0


def test_accepts_numeric_types() -> None:
    assert multistream_from_singlestream("25") == 200.0
    assert multistream_from_singlestream(Decimal("2.5")) == 20.0
    assert offline_from_multistream(100, samples_per_query=4) == 40.0


def test_official_forms() -> None:
    # v5.1 GATEOverflow mobilenet SingleStream log -> the checker's 42.193952 ms and 220.502 /s
    assert official_multistream_from_singlestream(5274244) == pytest.approx(42.193952, abs=1e-9)
    assert official_offline_from_singlestream(220.502) == 220.502
    assert official_offline_from_multistream(8, 200_000_000) == pytest.approx(40.0)


def test_official_zero_estimate_is_an_error() -> None:
    with pytest.raises(ValueError, match="not enough samples"):
        official_multistream_from_singlestream(0)


ALL = [
    multistream_from_singlestream,
    offline_from_singlestream,
    offline_from_multistream,
    official_offline_from_singlestream,
    official_multistream_from_singlestream,
]


@pytest.mark.parametrize("fn", ALL)
@pytest.mark.parametrize("bad", [0, -1, -0.5, "abc", "", float("nan"), float("inf"), True, None])
def test_bad_input(fn, bad) -> None:
    with pytest.raises(ValueError):
        fn(bad)


@pytest.mark.parametrize("bad", [(0, 1e6), (8, 0), (8, -5), ("x", 1e6)])
def test_bad_input_two_args(bad) -> None:
    with pytest.raises(ValueError):
        official_offline_from_multistream(*bad)


def _log_values(path: Path) -> dict:
    out: dict = {}
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith(":::MLLOG"):
            e = json.loads(line[8:])
            out.setdefault(e["key"], e["value"])
    return out


def test_real_inferred_results_match_official_verdicts() -> None:
    base = SHARED / "v5.1/open/GATEOverflow/results"
    dirs = sorted(base.glob("*/mobilenet-v1-precision_float-1.0-128")) if base.is_dir() else []
    if not dirs:
        pytest.skip(f"real v5.1 submissions not found under {SHARED}")
    d = dirs[0]
    ms = _log_values(d / "multistream/performance/run_1/mlperf_log_detail.txt")
    off = _log_values(d / "offline/performance/run_1/mlperf_log_detail.txt")
    assert ms["effective_scenario"] == off["effective_scenario"] == "SingleStream"
    # official v5.1.1 verdicts.csv: multistream 42.193952, offline 220.502000
    assert f"{official_multistream_from_singlestream(ms['early_stopping_latency_ms']):.6f}" == "42.193952"
    assert f"{official_offline_from_singlestream(off['result_qps_without_loadgen_overhead']):.6f}" == "220.502000"
