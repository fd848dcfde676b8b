"""Recompute early stopping for every real performance log and compare with
what LoadGen wrote (v4.1 and v5.1 trees under ../shared/real_submissions)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from checker.metrics.early_stopping import (
    expected_early_stopping,
    max_overlatency_allowed,
    min_queries_for_percentile,
    server_min_queries,
)
from tests.conftest import REAL

SHARED = Path(REAL)  # the shared real data (tests/conftest.py; MLPC_SHARED moves it)
ROUNDS = ("v4.1", "v5.1")

WANTED = {
    "effective_scenario",
    "effective_target_latency_percentile",
    "result_query_count",
    "result_overlatency_query_count",
    "early_stopping_met",
    "early_stopping_result",
    "early_stopping_ttft_result",
    "early_stopping_tpot_result",
    "early_stopping_latency_ss",
    "early_stopping_latency_ms",
    "requested_use_token_latencies",
}


def _read_log(path: Path) -> dict:
    """First value of each wanted key in a LoadGen ``:::MLLOG`` detail log."""
    values: dict = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(":::MLLOG"):
                entry = json.loads(line[len(":::MLLOG") :])
                if entry["key"] in WANTED and entry["key"] not in values:
                    values[entry["key"]] = entry["value"]
    return values


def _perf_logs() -> list[Path]:
    logs: list[Path] = []
    for rnd in ROUNDS:
        root = SHARED / rnd
        if root.is_dir():
            logs += [p for p in root.rglob("mlperf_log_detail.txt") if p.parent.parts[-2:] == ("performance", "run_1")]
    return sorted(logs)


def _int(pattern: str, text: str) -> int | None:
    m = re.search(pattern, text)
    return int(m.group(1)) if m else None


CHECKED: dict[str, int] = {}


def _count(what: str) -> None:
    CHECKED[what] = CHECKED.get(what, 0) + 1


def _compare(path: Path, log: dict) -> list[str]:
    """Disagreements between our recomputation and the log, as messages."""
    problems: list[str] = []
    scenario = log["effective_scenario"]
    n = log["result_query_count"]
    p = log["effective_target_latency_percentile"]
    met = log.get("early_stopping_met")
    token = bool(log.get("requested_use_token_latencies"))
    texts = [log[k] for k in ("early_stopping_result", "early_stopping_ttft_result", "early_stopping_tpot_result") if log.get(k)]

    def bad(msg: str) -> None:
        problems.append(f"{path}: {msg}")

    if scenario == "Offline":
        if met is False:
            bad("Offline run with early_stopping_met false")
    elif scenario == "Server" and not token:
        exp = expected_early_stopping("Server", n, log["result_overlatency_query_count"], p)
        _count("server met")
        if exp.met != met:
            bad(f"met: expected {exp.met}, log {met}")
        more = _int(r"at least (\d+) more queries", " ".join(texts))
        if more is not None and more != exp.additional_queries:
            bad(f"queries still needed: expected {exp.additional_queries}, log {more}")
        if met and "Run successful" not in " ".join(texts):
            bad("met but no 'Run successful' text")
    elif scenario == "Server":
        # token runs: TTFT/TPOT over-latency counts are not logged; check what we can
        if met and n < server_min_queries(0, p):
            bad(f"met with {n} queries < {server_min_queries(0, p)}")
        for text in texts:
            more = _int(r"at least (\d+) more queries", text)
            if more is not None:
                _count("token server queries needed")
                total = n + more  # = h(t) + t for some t
                t = max_overlatency_allowed(total, p)
                if t is None or server_min_queries(t, p) != total:
                    bad(f"'{more} more queries' is not h(t)+t-N for any t")
    else:  # SingleStream / MultiStream
        exp = expected_early_stopping(scenario, n, None, p)
        _count("ss/ms met")
        if exp.met != met:
            bad(f"met: expected {exp.met}, log {met}")
        if n < exp.min_queries and met:
            bad(f"{n} queries < minimum {exp.min_queries}")
        for text in texts:
            at_least = _int(r"Processed at least (\d+) queries", text)
            if at_least is not None and at_least != min_queries_for_percentile(p):
                bad(f"'at least {at_least}': expected {min_queries_for_percentile(p)}")
            discard = _int(r"Would discard (\d+) highest", text)
            if discard is not None:
                _count("ss/ms discarded")
            if discard is not None and discard != exp.discarded:
                bad(f"discarded: expected {exp.discarded}, log {discard}")
        if scenario == "SingleStream":
            p99 = expected_early_stopping("SingleStream", n, None, 0.99)
            has_p99 = bool(log.get("early_stopping_latency_ms"))
            if p99.met != has_p99:
                bad(f"p99 estimate present={has_p99}, expected {p99.met}")
    return problems


def test_early_stopping_agrees_with_every_real_log(capsys: pytest.CaptureFixture[str]) -> None:
    logs = _perf_logs()
    if not logs:
        pytest.skip(f"real submissions not found under {SHARED} (shared data absent in this checkout)")
    CHECKED.clear()
    problems: list[str] = []
    by_scenario: dict[str, int] = {}
    for path in logs:
        log = _read_log(path)
        scenario = log.get("effective_scenario")
        if scenario is None or "result_query_count" not in log:
            problems.append(f"{path}: no effective_scenario/result_query_count")
            continue
        by_scenario[scenario] = by_scenario.get(scenario, 0) + 1
        problems += _compare(path, log)
    with capsys.disabled():
        print(f"\nearly stopping recomputed for {len(logs)} real logs {dict(sorted(by_scenario.items()))}")
        print(f"comparisons: {dict(sorted(CHECKED.items()))}")
    assert not problems, "\n".join(problems)
    assert CHECKED.get("server met", 0) > 0 and CHECKED.get("ss/ms discarded", 0) > 0
