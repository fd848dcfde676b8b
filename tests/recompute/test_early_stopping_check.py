"""PF019: early stopping recomputed from the counts LoadGen logged, compared with what it wrote."""

from __future__ import annotations

import re

import pytest

from checker.checks.performance import review_early_stopping
from checker.metrics.early_stopping import expected_early_stopping, server_min_queries
from tests.recompute.helpers import RES, base_tree, check, detail, findings, mllog


def ss(n=1000, p=0.9, **over):
    exp = expected_early_stopping("SingleStream", n, None, p)
    values = {"effective_scenario": "SingleStream", "effective_target_latency_percentile": p,
              "result_query_count": n, "early_stopping_met": exp.met,
              "early_stopping_result": (f" * Processed at least {exp.min_queries} queries ({n}). "
                                        f" * Would discard {exp.discarded} highest latency queries."
                                        " * Early stopping 90.0th percentile estimate: 1500"
                                        if exp.met else f" * Only processed {n} queries. * Need to process at "
                                        f"least {exp.min_queries} queries for early stopping."),
              "early_stopping_latency_ss": 1500 if exp.met else 0, "early_stopping_latency_ms": 1600 if n >= 662 else 0}
    values.update(over)
    return {k: v for k, v in values.items() if v is not None}


def server(n=100_000, t=100, p=0.99, **over):
    needed = server_min_queries(max(t, 0), p)
    met = n >= needed
    values = {"effective_scenario": "Server", "effective_target_latency_percentile": p, "result_query_count": n,
              "result_overlatency_query_count": t, "early_stopping_met": met,
              "early_stopping_result": " * Run successful." if met else (
                  f" * Run unsuccessful. * Processed {n} queries. * Would need to run at least {needed - n} more "
                  "queries, with the run being successful if every additional query were under latency.")}
    values.update(over)
    return {k: v for k, v in values.items() if v is not None}


def problems(values):
    return [m for m, _, _ in review_early_stopping(detail(values)).problems]


@pytest.mark.parametrize("n", [64, 100, 1000, 1167425])
def test_consistent_singlestream_logs_pass(n):
    review = review_early_stopping(detail(ss(n)))
    assert review.compared and review.problems == []


def test_too_few_queries_reported_as_met():
    found = problems(ss(50, early_stopping_met=True))
    assert any("early_stopping_met disagrees" in m for m in found)


def test_agreed_unmet_condition_is_left_to_pf006():
    assert problems(ss(50)) == []


def test_wrong_discard_count():
    values = ss(1000)
    values["early_stopping_result"] = re.sub(r"discard (\d+)", lambda m: f"discard {int(m.group(1)) + 1}",
                                             values["early_stopping_result"])
    assert any("discarded" in m for m in problems(values))


def test_wrong_minimum_in_text():
    values = ss(1000)
    values["early_stopping_result"] = values["early_stopping_result"].replace("at least 64", "at least 60")
    assert any("minimum query count" in m for m in problems(values))


def test_p99_estimate_needs_662_queries():
    assert any("p99 estimate" in m for m in problems(ss(500, early_stopping_latency_ms=1234)))
    assert any("p99 estimate" in m for m in problems(ss(700, early_stopping_latency_ms=0)))
    assert problems(ss(700)) == [] and problems(ss(500)) == []


def test_multistream_minimum_662():
    values = {"effective_scenario": "MultiStream", "effective_target_latency_percentile": 0.99,
              "result_query_count": 661, "early_stopping_met": True}
    assert any("minimum 662" in m for m in problems(values))
    values.update(result_query_count=662)
    assert problems(values) == []


def test_consistent_server_logs_pass():
    assert problems(server()) == []
    assert problems(server(n=500, t=10)) == []  # unmet, and LoadGen says so: PF006 / PF001 report it


def test_server_met_with_too_many_overlatency_queries():
    values = server(n=500, t=10, early_stopping_met=True, early_stopping_result=" * Run successful.")
    assert any("early_stopping_met disagrees" in m for m in problems(values))


def test_server_queries_still_needed_must_match():
    values = server(n=500, t=10)
    values["early_stopping_result"] = re.sub(r"at least (\d+)", lambda m: f"at least {int(m.group(1)) + 1}",
                                             values["early_stopping_result"])
    assert any("queries still needed" in m for m in problems(values))


def test_token_server_runs_check_what_the_counts_allow():
    base = {"effective_scenario": "Server", "effective_target_latency_percentile": 0.99,
            "requested_use_token_latencies": True, "result_query_count": 100, "result_overlatency_query_count": 100,
            "early_stopping_met": False, "early_stopping_ttft_result": "",
            "early_stopping_tpot_result": " * Run unsuccessful.  * Processed 100 queries.  * Would need to run at "
                                          "least 359 more queries,  with the run being successful if every "
                                          "additional  query were under latency."}
    review = review_early_stopping(detail(base))
    assert review.compared and review.problems == []
    assert any("TTFT/TPOT over-latency counts" in n for n in review.not_recomputable)
    # 358 more: 458 = h(t) + t for no t
    bad = dict(base, early_stopping_tpot_result=base["early_stopping_tpot_result"].replace("359", "358"))
    assert any("for no over-latency count" in m for m in problems(bad))
    # met with 100 queries: impossible whatever the TTFT/TPOT counts were
    forged = dict(base, early_stopping_met=True, early_stopping_ttft_result=" * Run successful.",
                  early_stopping_tpot_result=" * Run successful.")
    assert any("disagrees" in m for m in problems(forged))
    real = dict(forged, result_query_count=24576, result_overlatency_query_count=24576)
    assert problems(real) == []


def test_offline_always_meets_early_stopping():
    assert problems({"effective_scenario": "Offline", "early_stopping_met": True}) == []
    assert problems({"effective_scenario": "Offline", "early_stopping_met": False})


@pytest.mark.parametrize("over, fragment", [
    ({"result_query_count": "many"}, "not an integer"),
    ({"result_query_count": -5}, "negative"),
    ({"result_query_count": 12.5}, "not an integer"),
    ({"result_query_count": True}, "not an integer"),
    ({"result_query_count": None}, "missing"),
    ({"effective_target_latency_percentile": 90}, "fraction"),
    ({"effective_target_latency_percentile": "0.9"}, "fraction"),
    ({"early_stopping_met": "yes"}, "not a boolean"),
])
def test_bad_counts_are_findings_not_tracebacks(over, fragment):
    found = problems(ss(1000, **over) if over.get("result_query_count", 0) is not None else
                     {k: v for k, v in ss(1000).items() if k != "result_query_count"})
    assert any(fragment in m for m in found), found


def test_bad_server_overlatency_counts():
    assert any("exceeds" in m for m in problems(server(n=100, t=200)))
    assert any("negative" in m for m in problems(server(t=-1)))
    assert any("missing" in m for m in problems(
        {k: v for k, v in server().items() if k != "result_overlatency_query_count"}))


def test_log_without_percentile_is_not_recomputed():
    review = review_early_stopping(detail({k: v for k, v in ss(50, early_stopping_met=True).items()
                                           if k != "effective_target_latency_percentile"}))
    assert not review.compared and review.problems == [] and review.not_recomputable


def test_pf019_in_a_tree(tmp_path):
    root = base_tree(tmp_path)
    log = root / RES / "SingleStream/performance/run_1/mlperf_log_detail.txt"
    values = ss(1000)
    keys = ("effective_target_latency_percentile", "result_query_count", "early_stopping_met",
            "early_stopping_result", "early_stopping_latency_ms")
    # the fixture log lacks the percentile: replace its early-stopping keys by a consistent block (each key
    # written once: a key written twice in a detail log is PF024)
    text = "".join(line for line in log.read_text().splitlines(keepends=True)
                   if not any(f'"key": "{k}"' in line for k in keys))
    log.write_text(mllog({k: values[k] for k in keys}) + text)
    assert not findings(check(root), "PF019")
    log.write_text(mllog({"effective_target_latency_percentile": 0.9, "result_query_count": "abc",
                          **{k: values[k] for k in keys[2:]}}) + text)
    report = check(root)
    found = findings(report, "PF019")
    assert found and "cannot be recomputed" in found[0].message and found[0].severity.value == "warning"
    assert all(r.valid for r in report.results)  # a warning: verdicts do not change
