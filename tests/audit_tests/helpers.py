"""Shared helpers of the audit tests."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from tests.conftest import REAL

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(REAL)  # honours MLPC_SHARED, like real_tree()

needs_loadgen = pytest.mark.skipif(
    importlib.util.find_spec("mlperf_loadgen") is None,
    reason="mlcommons-loadgen is not installed (pip install 'mlpc[audit]'): live audit runs skipped",
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def summary(scenario: str = "Offline", valid: bool = True, score: float = 1000.0) -> str:
    key = {
        "Offline": "Samples per second",
        "Server": "Completed samples per second",
        "SingleStream": " * Early stopping 90th percentile estimate",
        "MultiStream": " * Early stopping 99th percentile estimate",
    }[scenario]
    return (
        "================================================\nMLPerf Results Summary\n"
        f"Scenario : {scenario}\nMode     : PerformanceOnly\n{key}: {score}\n"
        f"Result is : {'VALID' if valid else 'INVALID'}\n"
    )


def detail(seeds: tuple[int, int, int], extra: dict | None = None) -> str:
    import json

    values = {
        "effective_qsl_rng_seed": seeds[0],
        "effective_sample_index_rng_seed": seeds[1],
        "effective_schedule_rng_seed": seeds[2],
        **(extra or {}),
    }
    return "".join(
        f':::MLLOG {json.dumps({"key": k, "value": v, "time_ms": 0, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {}})}\n'
        for k, v in values.items()
    )


def codes(findings) -> list[str]:
    return sorted({f.code for f in findings})


def exists(path: str) -> bool:
    return os.path.exists(path)
