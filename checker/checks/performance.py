"""Performance checks (PF) on `performance/run_1/mlperf_log_detail.txt`.

Official references: docs/official-checker.md section G; rules sections 3 and 4.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from operator import methodcaller

from checker.checks.base import check, finding, strict_log_problems
from checker.checks.memo import per_context
from checker.checks.structure import allowed_scenarios
from checker.loaders.loadgen_log import EQUAL_ISSUE_KEY
from checker.metrics.early_stopping import (
    EarlyStoppingExpectation, expected_early_stopping, max_overlatency_allowed, min_passing_queries,
    min_queries_for_percentile, normalize_scenario, server_early_stopping, server_min_queries,
)
from checker.metrics.inferred import multistream_from_singlestream, offline_from_multistream, offline_from_singlestream
from checker.results import NS_PER_MS, _num, result_value

#: ``result_value`` of a result, read once per result (PF017, PF020, the BW checks and the summary ask it)
reported_value = per_context(result_value)


def _log(ctx):
    perf = ctx.perf  # (asked by twenty checks of every result: each attribute read once)
    return None if perf is None or ctx.scenario is None else perf.log


def _rel(ctx):
    return ctx.perf.rel if ctx.perf else f"{ctx.rel}/performance/run_1/mlperf_log_detail.txt"


def _model(ctx, rules):
    return rules.models.get(ctx.mlperf_model)


def _scenario_mismatch(ctx, rules, log) -> bool:
    """True when the log's scenario may not stand for the folder's (PF015 reports it)."""
    source = rules.log_scenario_sources.get(ctx.scenario)
    if source is not None:
        return log.scenario != source
    return log.scenario != ctx.scenario and [ctx.scenario, log.scenario] not in rules.inferable


@check("PF001", "result-invalid", "result")
def result_invalid(ctx, rules):
    """LoadGen marked the performance run INVALID.

    What it checks: `result_validity` is `VALID`.
    Why: official checker G1; LoadGen folds min duration, min queries, latency constraints and
    early stopping into it. The official v4.1/v5.0 checkers let an INVALID LLM run through when its
    TTFT/TPOT limits hold (a bug fixed in v5.0.1); mlpc always requires VALID (stricter). The official
    v6.0 checker does not read `result_validity` at all (rounds-v6.md 4-L defect 1): stricter than official
    there; `--profile official` turns it off for v6.0.
    Failing example: `result_validity: INVALID` because the run was shorter than 600 s.
    How to fix: read `result_invalid_reason` in the summary log and rerun.
    Data used: none.
    """
    log = _log(ctx)
    if log is None:
        return
    validity = log.get("result_validity")
    if validity != "VALID":
        reason = log.get("result_invalid_reason")
        yield finding(_rel(ctx), "LoadGen result is not VALID", expected="VALID", actual=repr(validity),
                      hint=f"LoadGen says: {reason}" if reason else "see mlperf_log_summary.txt")


@check("PF002", "loadgen-errors", "result")
def loadgen_errors(ctx, rules):
    """The performance log contains LoadGen errors.

    What it checks: no log entry has `metadata.is_error` true.
    Why: official checker G4. The official v6.0 checker only looks with `--submission-exceptions` (an
    inverted flag, rounds-v6.md 4-L defect 2): stricter than official there; `--profile official` turns it
    off for v6.0.
    Failing example: `error_invalid_config: Multiple conf files are used`.
    How to fix: fix the cause named in the error and rerun.
    Data used: none.
    """
    log = _log(ctx)
    if log is None:
        return
    for key, value, line in log.errors:
        yield finding(_rel(ctx), f"LoadGen error {key}: {value}", expected="no errors", actual=str(value)[:200],
                      line=line, hint="rerun without the error")


@check("PF003", "performance-log-unreadable", "result")
def performance_log_unreadable(ctx, rules):
    """The performance detail log is missing, unreadable or has malformed lines.

    What it checks: `performance/run_1/mlperf_log_detail.txt` exists and every `:::MLLOG` line is JSON;
    in rounds with `detail_log_strict` (v6.0) also that it is UTF-8 and holds no line without the marker.
    Why: official checker G0c (any parse exception invalidates the scenario); the v6.0 parser aborts the whole
    run on a first line without the marker, a marker line that is not JSON, or non-UTF-8 bytes (4-L L8-L10).
    Failing example: a log cut in the middle of a line, or a binary file.
    How to fix: copy the complete log written by LoadGen.
    Data used: `detail_log_strict`.
    """
    if ctx.scenario is None or not ctx.perf_listing.exists:
        return
    if ctx.perf is None:
        return  # ST019 reports the missing file
    if ctx.perf.error:
        yield finding(ctx.perf.rel, ctx.perf.error, expected="a LoadGen detail log", actual="unreadable")
        return
    for problem in ctx.perf.log.problems[:5]:
        yield finding(ctx.perf.rel, problem.message, line=problem.line or None, expected="valid :::MLLOG JSON",
                      actual="malformed", hint="copy the log exactly as LoadGen wrote it")
    if rules.detail_log_strict:
        yield from strict_log_problems(ctx.perf.rel, ctx.perf.log)



@check("PF004", "performance-sample-count-low", "result")
def performance_sample_count_low(ctx, rules):
    """The performance sample count is below the benchmark's minimum.

    What it checks: `effective_performance_sample_count` >= the model's performance sample count.
    Why: official checker G6; rules section 3 table.
    Failing example: resnet with 512 samples loaded (needs 1024).
    How to fix: remove `performance_sample_count_override` from user.conf.
    Data used: `models.*.performance_sample_count`.
    """
    log, model = _log(ctx), _model(ctx, rules)
    if log is None or model is None:
        return
    found = _num(log.get("effective_performance_sample_count"))
    if found is None or found < model.performance_sample_count:
        yield finding(_rel(ctx), "performance sample count too low", expected=f">= {model.performance_sample_count}",
                      actual=log.get("effective_performance_sample_count"),
                      hint="do not override performance_sample_count")


_SEEDS: dict[int, tuple] = {}  # id(rules) -> (rules, ((seed name, its detail log key, the round's value), ...))


def _seeds(rules) -> tuple[tuple[str, str, object], ...]:
    """The round's seeds as PF005 compares them (read out of the rules once per round, not per result)."""
    known = _SEEDS.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    # (the fields by name: a round's rules are unpickled without building their validators or serializers,
    # checker.loaders.data_cache.cached_object, and model_dump would build them in every worker)
    seeds = tuple((name, f"effective_{name}", getattr(rules.seeds, name)) for name in type(rules.seeds).model_fields)
    if len(_SEEDS) > 16:
        _SEEDS.clear()
    _SEEDS[id(rules)] = (rules, seeds)
    return seeds


@check("PF005", "wrong-seeds", "result")
def wrong_seeds(ctx, rules):
    """The run did not use the round's official random seeds.

    What it checks: `effective_qsl_rng_seed`, `effective_sample_index_rng_seed` and
    `effective_schedule_rng_seed` equal the round's seeds.
    Why: official checker G7. A mismatch usually means the LoadGen of another round was used.
    Failing example: v4.1 seeds in a v5.0 submission.
    How to fix: build LoadGen from the round's release and rerun.
    Data used: `seeds`.
    """
    log = _log(ctx)
    if log is None:
        return
    for name, key, expected in _seeds(rules):
        actual = log.get(key)
        if actual != expected:
            yield finding(_rel(ctx), f"{name} is wrong", expected=expected, actual=actual,
                          hint=f"use the LoadGen release of round {rules.round}")


@check("PF006", "early-stopping-not-met", "result")
def early_stopping_not_met(ctx, rules):
    """LoadGen reports that the early-stopping condition was not met.

    What it checks: `early_stopping_met` is true for SingleStream, MultiStream and Server runs.
    Why: official checker G8 (log-only there, because G1 also catches it).
    Failing example: a SingleStream run with 50 queries (64 needed for p90).
    How to fix: run more queries.
    Data used: `early_stopping_scenarios`.
    """
    log = _log(ctx)
    if log is None or log.scenario not in rules.early_stopping_scenarios:
        return
    if log.get("early_stopping_met") is False:
        msg = log.get("early_stopping_result") or log.get("early_stopping_ttft_result") or ""
        yield finding(_rel(ctx), "early stopping condition was not met", expected="true", actual="false",
                      hint=str(msg).strip()[:300] or None)


@check("PF007", "target-latency-too-high", "result")
def target_latency_too_high(ctx, rules):
    """The Server run was configured with a target latency above the benchmark's bound.

    What it checks: `effective_target_latency_ns` <= the model's Server latency constraint.
    Why: official checker G9; rules section 3 latency table.
    Failing example: resnet Server with a 20 ms target (bound 15 ms).
    How to fix: set `target_latency` to at most the bound.
    Data used: `models.*.server_latency_ns`.
    """
    log, model = _log(ctx), _model(ctx, rules)
    if log is None or model is None or log.scenario != "Server" or model.server_latency_ns is None:
        return
    found = _num(log.get("effective_target_latency_ns"))
    if found is None or found > model.server_latency_ns:
        yield finding(_rel(ctx), "target latency above the benchmark's bound", expected=f"<= {model.server_latency_ns} ns",
                      actual=log.get("effective_target_latency_ns"), hint="lower target_latency in user.conf")


@check("PF008", "offline-samples-per-query-low", "result")
def offline_samples_per_query_low(ctx, rules):
    """An Offline run issued fewer samples per query than the minimum.

    What it checks: `effective_samples_per_query` >= the model's Offline minimum.
    Why: official checker G12.
    Failing example: resnet Offline with 1000 samples in the query (needs 24576).
    How to fix: raise `target_qps` / min query count so the query is large enough.
    Data used: `models.*.offline_min_samples_per_query`.
    """
    log, model = _log(ctx), _model(ctx, rules)
    if log is None or model is None or log.scenario != "Offline" or model.offline_min_samples_per_query is None:
        return
    found = _num(log.get("effective_samples_per_query"))
    if found is None or found < model.offline_min_samples_per_query:
        yield finding(_rel(ctx), "Offline samples per query below the minimum",
                      expected=f">= {model.offline_min_samples_per_query}", actual=log.get("effective_samples_per_query"),
                      hint="raise offline target_qps")


@check("PF009", "min-duration-too-short", "result")
def min_duration_too_short(ctx, rules):
    """The run was configured with a minimum duration under the round's minimum.

    What it checks: `effective_min_duration_ms` >= `min_duration_ms` (600 s; a model may be exempt,
    v6.1 e2e-rag).
    Why: official checker G13; rules section 3.
    Failing example: `min_duration = 60000` in user.conf.
    How to fix: remove the min_duration override.
    Data used: `min_duration_ms`, `models.*.min_duration_ms`.
    """
    log = _log(ctx)
    if log is None:
        return
    found = _num(log.get("effective_min_duration_ms"))
    floor = rules.min_duration_for(ctx.mlperf_model)
    if found is None or found < floor:
        yield finding(_rel(ctx), "test duration below the minimum", expected=f">= {floor} ms",
                      actual=log.get("effective_min_duration_ms"), hint="do not lower min_duration")


@check("PF010", "min-query-count-not-met", "result")
def min_query_count_not_met(ctx, rules):
    """An Offline run was configured with no minimum query count.

    What it checks: Offline `effective_min_query_count` >= 1.
    Why: official checker G11 (the only minimum query count the official checker applies; the
    other scenarios are covered by early stopping).
    Failing example: `min_query_count = 0` for Offline.
    How to fix: remove the override.
    Data used: none.
    """
    log = _log(ctx)
    if log is None or log.scenario != "Offline":
        return
    found = _num(log.get("effective_min_query_count"))
    if found is None or found < 1:
        yield finding(_rel(ctx), "minimum query count not met", expected=">= 1", actual=log.get("effective_min_query_count"))


_NO_SPACES = methodcaller("replace", " ", "")
_NAMES_EQUAL_ISSUE = methodcaller("__contains__", "sample_concatenate_permutation")


def _conf_equal_issue(ctx, rules) -> bool | None:
    """Equal-issue mode from mlperf.conf / user.conf lines (official E7): user.conf wins."""
    model = _model(ctx, rules)
    name = (model.loadgen_name if model else None) or ctx.model_dir.replace("-99.9", "").replace("-99", "")
    found = None
    for conf in ("mlperf.conf", "user.conf"):
        # the lines naming the setting, spaces removed (found in C: a conf file holds a hundred lines)
        lines = map(_NO_SPACES, ctx.measurements.conf_texts.get(conf, "").splitlines())
        for line in filter(_NAMES_EQUAL_ISSUE, lines):
            line = line.strip()
            if not line or line.startswith("#") or line.count("=") != 1:
                continue
            key, value = line.split("=")
            parts = key.split(".")
            if len(parts) != 3 or parts[2] != "sample_concatenate_permutation":
                continue
            if parts[0] in (name, ctx.model_dir, "*") and parts[1] in (ctx.scenario_dir, ctx.scenario, "*"):
                try:
                    found = int(value) == 1
                except ValueError:
                    continue
                break
    return found


@check("PF011", "equal-issue-not-used", "result")
def equal_issue_not_used(ctx, rules):
    """A benchmark that requires equal-issue mode was run without it.

    What it checks: for the round's equal-issue models, `effective_sample_concatenate_permutation`
    is true, or (older LoadGen logs without that key) mlperf.conf/user.conf set it to 1.
    Why: official checker G5/E7.
    Failing example: 3d-unet-99 Offline with sample_concatenate_permutation = 0.
    How to fix: keep the mlperf.conf default (1) for this benchmark.
    Data used: `models.*.equal_issue`, `models.*.equal_issue_divisions`.
    """
    log = _log(ctx)
    if log is None or not rules.equal_issue_required(ctx.mlperf_model, ctx.division):
        return
    value = log.get(EQUAL_ISSUE_KEY)
    if value is True:
        return
    if value is None and _conf_equal_issue(ctx, rules):
        return
    yield finding(_rel(ctx), "equal-issue mode (sample_concatenate_permutation) not used", expected="true",
                  actual=repr(value), hint="keep sample_concatenate_permutation = 1")


@check("PF012", "token-latencies-not-enabled", "result")
def token_latencies_not_enabled(ctx, rules):
    """An LLM benchmark was run without token latency measurement.

    What it checks: `requested_use_token_latencies` is true for the round's token-latency models.
    Why: official checker G3.
    Failing example: llama2-70b Server without `use_token_latencies = 1`.
    How to fix: enable use_token_latencies.
    Data used: `models.*.requires_token_latencies`.
    """
    log, model = _log(ctx), _model(ctx, rules)
    if log is None or model is None or not model.requires_token_latencies:
        return
    if not log.get("requested_use_token_latencies"):
        yield finding(_rel(ctx), "use_token_latencies is not enabled", expected="true",
                      actual=repr(log.get("requested_use_token_latencies")), hint="set use_token_latencies = 1")


@check("PF013", "token-latency-limit-exceeded", "result")
def token_latency_limit_exceeded(ctx, rules):
    """An LLM run's p99 TTFT or TPOT is not below the round's limit.

    What it checks: `result_first_token_99.00_percentile_latency_ns` < TTFT limit and
    `result_time_per_output_token_99.00_percentile_ns` < TPOT limit (strict), for non-Offline runs. The
    limits are those of the folder's scenario, or (rounds with `token_limits_by_log_scenario`, v6.0) those
    the official checker picks by the log's scenario: Server for an Interactive folder (PF021 then checks the
    Interactive limits).
    Why: official checker G3; rules LLM latency table.
    Failing example: llama2-70b Server with TPOT p99 of 210 ms (limit 200 ms).
    How to fix: lower the load (target_qps) and rerun.
    Data used: `models.*.token_latency`, `token_limits_by_log_scenario`.
    """
    scenario = _official_token_scenario(ctx, rules)
    yield from _token_limits(ctx, rules, scenario)


def _official_token_scenario(ctx, rules) -> str | None:
    log = _log(ctx)
    if rules.token_limits_by_log_scenario and log is not None and log.scenario:
        return log.scenario
    return ctx.scenario


def _token_limits(ctx, rules, scenario):
    log, model = _log(ctx), _model(ctx, rules)
    if log is None or model is None or not model.requires_token_latencies or ctx.scenario == "Offline":
        return
    limits = model.token_latency.get(scenario)
    if limits is None:
        return
    ttft = _num(log.get("result_first_token_99.00_percentile_latency_ns"))
    tpot = _num(log.get("result_time_per_output_token_99.00_percentile_ns"))
    if ttft is None or tpot is None or not (ttft < limits.ttft_ns and tpot < limits.tpot_ns):
        shown = f" of {scenario}" if scenario != ctx.scenario else ""
        yield finding(_rel(ctx), f"TTFT/TPOT p99 not below the limits{shown}",
                      expected=f"TTFT < {limits.ttft_ns} ns, TPOT < {limits.tpot_ns} ns",
                      actual=f"TTFT {ttft}, TPOT {tpot}", hint="lower the offered load")


@check("PF021", "interactive-token-latency-exceeded", "result", stricter=True)
def interactive_token_latency_exceeded(ctx, rules):
    """An Interactive result's p99 TTFT or TPOT is not below the Interactive limits (stricter than official).

    What it checks: for rounds whose official checker picks the TTFT/TPOT limits by the log's scenario
    (`token_limits_by_log_scenario`, v6.0), an Interactive folder (a LoadGen Server run) is also held to the
    Interactive limits of its model: `result_first_token_99.00_percentile_latency_ns` < TTFT limit and
    `result_time_per_output_token_99.00_percentile_ns` < TPOT limit.
    Why: rules LLM latency table (Interactive category); rounds-v6.md 3.5 and 4-L defect 3: the official v6.0
    checker checks Interactive results against the Server limits, so an Interactive folder holding a copy of
    the Server run passes. `--profile official` turns this check off.
    Failing example: llama2-70b-99 Interactive with TTFT p99 of 1 s (Interactive limit 450 ms, Server 2 s).
    How to fix: run the Interactive scenario at a load that meets its limits.
    Data used: `models.*.token_latency`, `token_limits_by_log_scenario`.
    """
    official = _official_token_scenario(ctx, rules)
    if official == ctx.scenario:
        return  # PF013 already applies the folder's limits
    for item in _token_limits(ctx, rules, ctx.scenario):
        yield replace(item, message=f"{item.message} of {ctx.scenario} (stricter than official: the "
                                  f"official checker applies the {official} limits)")


@check("PF014", "network-sut-name", "result")
def network_sut_name(ctx, rules):
    """A network-mode run does not identify a network SUT.

    What it checks: when the system is in network mode, `sut_name` contains "Network SUT".
    Why: official checker G15.
    Failing example: `sut_name: "PySUT"` in a network submission.
    How to fix: use the network LoadGen harness.
    Data used: `network_sut_substring`.
    """
    log = _log(ctx)
    if log is None or not ctx.system.is_network():
        return
    name = log.get("sut_name")
    if not isinstance(name, str) or rules.network_sut_substring not in name:
        yield finding(_rel(ctx), "SUT name does not identify a network SUT",
                      expected=f"contains '{rules.network_sut_substring}'", actual=repr(name))


@check("PF015", "scenario-mismatch", "result", stricter=True)
def scenario_mismatch(ctx, rules):
    """The log's scenario differs from the folder's and the pair cannot be inferred.

    What it checks: `effective_scenario` equals the folder scenario, or the pair is one the rules
    allow to infer (MultiStream and Offline from SingleStream, Offline from MultiStream). A folder
    scenario listed in `log_scenario_sources` (v5.1: Interactive) must come from exactly that log
    scenario (Server) instead.
    Why: rules 4.1.1; official checker G16 (v5.1+: an Interactive folder must hold a Server run).
    The v4.1/v5.0 official checkers silently accept any other mismatch (stricter here).
    Failing example: a `Server/` folder holding an Offline log; an `Interactive/` folder holding an
    Offline log.
    How to fix: put each run in its own scenario folder.
    Data used: `inferable`, `log_scenario_sources`.
    """
    log = _log(ctx)
    if log is None or log.scenario is None:
        return
    source = rules.log_scenario_sources.get(ctx.scenario)
    if source is not None:
        if log.scenario != source:
            yield finding(_rel(ctx), f"{ctx.scenario} result must come from a {source} run, found {log.scenario}",
                          expected=source, actual=log.scenario, hint=f"copy the {source} run made with the "
                          f"{ctx.scenario} latency limits")
        return
    if log.scenario == ctx.scenario:
        return
    if [ctx.scenario, log.scenario] not in rules.inferable:
        yield finding(_rel(ctx), f"{ctx.scenario} result cannot come from a {log.scenario} run",
                      expected=ctx.scenario, actual=log.scenario, hint="copy the run of the right scenario")


@check("PF016", "inferred-on-non-edge", "result", stricter=True)
def inferred_on_non_edge(ctx, rules):
    """A result is inferred from another scenario on a system that is not an edge system.

    What it checks: inferred results (section H) come from systems whose `system_type` includes edge.
    Why: rules 4.1.1 allow inference for edge systems only; the v4.1/v5.0 official checkers allow
    it everywhere.
    Failing example: an Offline result inferred from SingleStream on a datacenter system.
    How to fix: run the scenario.
    Data used: `inferable`.
    """
    log = _log(ctx)
    if log is None or log.scenario == ctx.scenario or [ctx.scenario, log.scenario] not in rules.inferable:
        return
    system_type = ctx.system.system_type or ""
    if "edge" not in system_type:
        yield finding(_rel(ctx), f"{ctx.scenario} inferred from {log.scenario} on a {system_type or 'unknown'} system",
                      expected="an edge system", actual=system_type or "unknown")


@check("PF017", "result-value-missing", "result")
def result_value_missing(ctx, rules):
    """The metric of the result cannot be read or is zero.

    What it checks: the round's result key for the scenario (or the inferred-result formula) gives a
    non-zero number.
    Why: official checker G2/H; a zero result counts as no result.
    Failing example: a MultiStream result inferred from a SingleStream run too short for a p99 estimate.
    How to fix: rerun with enough queries.
    Data used: `result_fields`, `models.*.result_field`.
    """
    log = _log(ctx)
    if log is None or log.scenario is None:
        return
    if _scenario_mismatch(ctx, rules, log):
        return  # PF015
    value = reported_value(ctx, rules)
    if value.value is None or value.value == 0:
        yield finding(_rel(ctx), value.problem or "result is zero", expected="a positive result",
                      actual=value.value if value.value is not None else "missing")


@check("PF018", "performance-test-mode", "result", stricter=True)
def performance_test_mode(ctx, rules):
    """The performance run was not run in PerformanceOnly mode.

    What it checks: `effective_test_mode` is `PerformanceOnly`.
    Why: a performance result must come from a performance run; the official checker does not look.
    Failing example: the accuracy run's log copied into `performance/run_1/`.
    How to fix: copy the performance run.
    Data used: none.
    """
    log = _log(ctx)
    if log is None:
        return
    mode = log.get("effective_test_mode")
    if mode is not None and mode != "PerformanceOnly":
        yield finding(_rel(ctx), "performance run not in PerformanceOnly mode", expected="PerformanceOnly", actual=mode)


# ------------------------------------------------------------------------- PF019 early stopping

#: LoadGen's SingleStream p99 estimate (the one MultiStream is inferred from) uses a hard-coded 0.99
#: ("multi_stream_percentile" in loadgen/results.cc), not a test setting.
LOADGEN_SS_P99 = 0.99
#: Over-latency budgets t up to which LoadGen's cached walk is known to find the true minima, so that
#: its "Would discard t-1" equals the bisection used here (checker/metrics/early_stopping.py, measured).
WALK_VERIFIED_T = {0.9: 600_000, 0.95: 50_000, 0.99: 80_000, 0.999: 5_000}

_AT_LEAST = re.compile(r"Processed at least (\d+) queries \((\d+)\)")
_ONLY = re.compile(r"Only processed (\d+) queries\.?\s*\*?\s*Need to process at least (\d+) queries")
_DISCARD = re.compile(r"Would discard (\d+) highest")
_MORE = re.compile(r"Would need to run at least (\d+) more queries")
_PROCESSED = re.compile(r"Processed (\d+) queries")
_NOT_ENOUGH_99 = re.compile(r"Not enough queries processed for 99")
_TEXT_KEYS = ("early_stopping_result", "early_stopping_ttft_result", "early_stopping_tpot_result")


@dataclass(frozen=True)
class _P99:
    """What the p99 estimate of a SingleStream run needs: ``expected_early_stopping(..., 0.99)``'s met and
    min_queries."""

    met: bool
    min_queries: int


@dataclass
class EarlyStoppingReview:
    """What PF019 recomputed for one log: ``compared`` is False when nothing could be compared."""

    scenario: str | None = None
    compared: bool = False
    problems: list[tuple[str, object, object]] = field(default_factory=list)  # (message, expected, actual)
    not_recomputable: list[str] = field(default_factory=list)
    facts: dict = field(default_factory=dict)


def _count(log, key: str) -> tuple[int | None, str | None]:
    """A logged count as a non-negative integer, or why it is not one (None, None: absent)."""
    if key not in log:
        return None, None
    value = log.get(key)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return None, f"{key} is not an integer: {value!r}"
    if value < 0:
        return None, f"{key} is negative: {value}"
    return value, None


def _percentile(log) -> tuple[float | None, str | None]:
    if "effective_target_latency_percentile" not in log:
        return None, None
    value = log.get("effective_target_latency_percentile")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (0 < value < 1):
        return None, f"effective_target_latency_percentile is not a fraction between 0 and 1: {value!r}"
    return float(value), None


def review_early_stopping(log) -> EarlyStoppingReview:
    """Recompute LoadGen's early-stopping verdict from the counts it logged and list every
    disagreement with what it wrote (pure; ``log`` is a parsed DetailLog)."""
    review = EarlyStoppingReview(scenario=log.scenario)
    scenario = log.scenario
    if scenario not in ("SingleStream", "MultiStream", "Server", "Offline"):
        return review
    met = log.get("early_stopping_met")
    if "early_stopping_met" in log and not isinstance(met, bool):
        review.problems.append(("early_stopping_met is not a boolean", "true or false", repr(met)))
        return review
    if scenario == "Offline":
        review.compared = "early_stopping_met" in log
        if met is False:
            review.problems.append(("LoadGen reports early stopping not met for an Offline run (Offline always "
                                    "meets it)", "true", "false"))
        return review
    p, p_problem = _percentile(log)
    n, n_problem = _count(log, "result_query_count")
    problems = [x for x in (p_problem, n_problem) if x]
    if n is None and n_problem is None:
        problems.append("result_query_count is missing")
    if p is None and p_problem is None:
        review.not_recomputable.append("effective_target_latency_percentile is missing (not a LoadGen log)")
        return review
    token = bool(log.get("requested_use_token_latencies")) or (
        "early_stopping_result" not in log and any(k in log for k in _TEXT_KEYS[1:]))
    t = None
    if scenario == "Server" and not token:
        t, t_problem = _count(log, "result_overlatency_query_count")
        if t_problem or t is None:
            problems.append(t_problem or "result_overlatency_query_count is missing")
        elif n is not None and t > n:
            problems.append(f"result_overlatency_query_count ({t}) exceeds result_query_count ({n})")
    if problems:
        for problem in problems:
            review.problems.append((f"early stopping cannot be recomputed: {problem}", "LoadGen counts", problem))
        return review
    review.compared = True
    texts = [(k, str(log.get(k) or "")) for k in _TEXT_KEYS if k in log]
    review.facts.update(n_queries=n, percentile=p, token_latencies=token)
    if scenario == "Server":
        _review_server(review, n, t, p, met, texts, token)
    else:
        _review_stream(review, scenario, n, p, met, texts, log)
    return review


def _disagree(review, what: str, expected, actual) -> None:
    review.problems.append((what, expected, actual))


def _stream_expectation(scenario: str, n: int, p: float, texts) -> EarlyStoppingExpectation:
    """``expected_early_stopping(scenario, n, None, p)`` of a SingleStream / MultiStream run. LoadGen's ``t`` (the
    largest ``i`` with ``n >= h(i) + i``, which grows with ``i``) is searched over ``i`` with an ``h`` for every
    probe; where the log says it discarded ``D`` latencies, ``t = D + 1`` is taken when ``h(t) + t <= n <
    h(t + 1) + t + 1`` holds (two ``h`` instead of a search: the same ``t``, the only one that holds it), and
    searched when not."""
    for _, text in texts:
        m = _DISCARD.search(text)
        if m is None:
            continue
        t = int(m.group(1)) + 1
        if not 1 <= t < n:
            break
        needed = min_queries_for_percentile(p)
        if n < needed or min_passing_queries(t, p) + t > n or min_passing_queries(t + 1, p) + t + 1 <= n:
            break
        return EarlyStoppingExpectation(normalize_scenario(scenario), float(p), n, None, True, needed,
                                        max(0, needed - n), t, t - 1)
    return expected_early_stopping(scenario, n, None, p)


def _review_stream(review, scenario, n, p, met, texts, log) -> None:
    exp = _stream_expectation(scenario, n, p, texts)
    review.facts.update(expected_met=exp.met, min_queries=exp.min_queries, discarded=exp.discarded)
    if met is None:
        review.not_recomputable.append("early_stopping_met is missing")
        if not exp.met:
            _disagree(review, f"{n} queries do not meet early stopping at p={p:g} and LoadGen wrote no "
                      f"early_stopping_met", f">= {exp.min_queries} queries", n)
    elif met != exp.met:
        _disagree(review, f"early_stopping_met disagrees with {n} queries at p={p:g} (minimum "
                  f"{exp.min_queries})", str(exp.met).lower(), str(met).lower())
    verified = exp.max_overlatency is not None and exp.max_overlatency <= WALK_VERIFIED_T.get(round(p, 6), -1)
    for key, text in texts:
        if m := _AT_LEAST.search(text):
            if int(m.group(1)) != exp.min_queries:
                _disagree(review, f"{key}: minimum query count", exp.min_queries, int(m.group(1)))
            if int(m.group(2)) != n:
                _disagree(review, f"{key}: processed queries differ from result_query_count", n, int(m.group(2)))
        if m := _ONLY.search(text):
            if int(m.group(1)) != n:
                _disagree(review, f"{key}: processed queries differ from result_query_count", n, int(m.group(1)))
            if int(m.group(2)) != exp.min_queries:
                _disagree(review, f"{key}: minimum query count", exp.min_queries, int(m.group(2)))
            if exp.met:
                _disagree(review, f"{key}: says too few queries, but {n} meet the minimum", exp.min_queries, n)
        if (m := _DISCARD.search(text)) and exp.discarded is not None:
            if verified and int(m.group(1)) != exp.discarded:
                _disagree(review, f"{key}: number of discarded highest latencies", exp.discarded, int(m.group(1)))
            elif not verified:
                review.not_recomputable.append(f"{key}: the discarded count for t={exp.max_overlatency} lies beyond "
                                               "the range where LoadGen's walk is verified; not compared")
    if scenario == "SingleStream":
        # (only whether the run has the queries for a p99 estimate, and how many it needs: no t is searched)
        needed99 = min_queries_for_percentile(LOADGEN_SS_P99)
        exp99 = _P99(n >= needed99, needed99)
        review.facts.update(p99_estimate_expected=exp99.met)
        raw = log.get("early_stopping_latency_ms")
        if "early_stopping_latency_ms" in log and isinstance(raw, (int, float)) and not isinstance(raw, bool):
            if bool(raw) != exp99.met:
                _disagree(review, f"p99 estimate (early_stopping_latency_ms) with {n} queries: LoadGen makes one "
                          f"only from {exp99.min_queries} queries", "an estimate" if exp99.met else "0",
                          raw)
        if exp99.met and any(_NOT_ENOUGH_99.search(text) for _, text in texts):
            _disagree(review, f"says too few queries for the p99 estimate, but {n} >= {exp99.min_queries}",
                      exp99.min_queries, n)


def _review_server(review, n, t, p, met, texts, token) -> None:
    if not token:
        exp_met, needed = server_early_stopping(n, t, p)
        review.facts.update(expected_met=exp_met, min_queries=needed, overlatency=t)
    else:
        needed = server_min_queries(0, p)  # h(0): no run with fewer queries can pass, whatever t is
        exp_met = None if n >= needed else False
        review.facts.update(min_queries_any_t=needed)
        review.not_recomputable.append("token-latency Server run: LoadGen does not log the TTFT/TPOT over-latency "
                                       f"counts, so only the bound N >= h(0) = {needed} and the queries still "
                                       "needed that it printed can be checked")
    if met is None:
        review.not_recomputable.append("early_stopping_met is missing")
        if exp_met is False:
            _disagree(review, f"{n} queries do not meet early stopping and LoadGen wrote no early_stopping_met",
                      f">= {needed} queries", n)
    elif exp_met is not None and met != exp_met:
        what = f"{t} over the target latency" if not token else "any over-latency count"
        _disagree(review, f"early_stopping_met disagrees with {n} queries, {what}, at p={p:g} (needs {needed})",
                  str(exp_met).lower(), str(met).lower())
    successful = [k for k, text in texts if "Run successful" in text]
    failed = [k for k, text in texts if "Run unsuccessful" in text]
    if met is True and failed:
        _disagree(review, f"early_stopping_met is true but {', '.join(failed)} says the run was unsuccessful",
                  "Run successful", "Run unsuccessful")
    if met is False and successful and not failed:
        _disagree(review, "early_stopping_met is false but every early-stopping text says the run was successful",
                  "Run unsuccessful", "Run successful")
    for key, text in texts:
        if (m := _PROCESSED.search(text)) and int(m.group(1)) != n:
            _disagree(review, f"{key}: processed queries differ from result_query_count", n, int(m.group(1)))
        m = _MORE.search(text)
        if m is None:
            continue
        more = int(m.group(1))
        if not token:
            if more != needed - n:
                _disagree(review, f"{key}: queries still needed", needed - n, more)
            continue
        total = n + more  # = h(t) + t for the unlogged t of this array
        t_fit = max_overlatency_allowed(total, p)
        if t_fit is None or server_min_queries(t_fit, p) != total:
            _disagree(review, f"{key}: '{more} more queries' is h(t) + t - N for no over-latency count t",
                      "h(t) + t - N for some t", more)


@check("PF019", "early-stopping-mismatch", "result", stricter=True)
def early_stopping_mismatch(ctx, rules):
    """The early-stopping verdict LoadGen wrote disagrees with the one recomputed from its own counts.

    What it checks: from `result_query_count`, `effective_target_latency_percentile` and (Server)
    `result_overlatency_query_count`, mlpc recomputes rules Appendix A as LoadGen does (c = 0.99, d = 0)
    and compares: `early_stopping_met`; SingleStream/MultiStream: the minimum query count h(1)+1
    (64 at p90, 662 at p99), "Processed at least M queries (N)", "Would discard t-1", and (SingleStream)
    whether a p99 estimate (`early_stopping_latency_ms`, used to infer MultiStream) can exist; Server:
    h(t)+t and "Would need to run at least X more queries"; Offline: met is always true. Token-latency
    (LLM) runs: SingleStream/MultiStream are recomputed in full (the counts do not depend on the
    latencies); for Server, LoadGen does not log the TTFT/TPOT over-latency counts, so only N >= h(0)
    (459 at p99) for a met run and the consistency of "X more queries" (N + X = h(t) + t for some t) are
    checked; the finding says what could not be recomputed. Unreadable, negative or non-integer counts
    are findings. Logs without `effective_target_latency_percentile` (not written by LoadGen) are skipped.
    An unmet condition that LoadGen itself reports is PF006 (and PF001 through `result_validity`).
    Why: rules Appendix A; official-checker.md section 4 and G8 (the official checker only reads the
    flag). A disagreement means the log was edited or LoadGen was modified (rules: LoadGen must be an
    approved, unaltered build) (stricter than official).
    Failing example: a SingleStream log with 50 queries and `early_stopping_met: true`.
    How to fix: submit the logs LoadGen wrote, from an unmodified LoadGen of the round.
    Data used: `early_stopping_scenarios` (percentiles, counts and messages come from the log).
    """
    log = _log(ctx)
    if log is None or log.scenario is None:
        return
    if log.scenario not in rules.early_stopping_scenarios and log.scenario != "Offline":
        return
    review = review_early_stopping(log)
    note = "; ".join(dict.fromkeys(review.not_recomputable))
    for message, expected, actual in review.problems:
        yield finding(_rel(ctx), f"early stopping: {message}", expected=expected, actual=actual,
                      hint=(f"not recomputable: {note}" if note else "LoadGen's log contradicts its own counts; "
                            "submit the unmodified log"),
                      **{k: v for k, v in review.facts.items() if v is not None})


# -------------------------------------------------------------------------- PF020 inferred results


def _rules_form(log, dir_scenario: str, log_scenario: str) -> float | None:
    """The inferred value with the rules' own wording (4.1.1), for the report: SingleStream mean and
    p99 latencies instead of the official checker's log keys."""
    try:
        if dir_scenario == "Offline" and log_scenario == "SingleStream":
            return offline_from_singlestream(float(log.get("result_mean_latency_ns")) / NS_PER_MS)
        if dir_scenario == "Offline" and log_scenario == "MultiStream":
            return offline_from_multistream(float(log.get("result_mean_query_latency_ns")) / NS_PER_MS,
                                            log.get("effective_samples_per_query"))
        if dir_scenario == "MultiStream" and log_scenario == "SingleStream":
            return multistream_from_singlestream(float(log.get("result_99.00_percentile_latency_ns")) / NS_PER_MS)
    except (TypeError, ValueError):
        return None
    return None


@check("PF020", "inferred-result-unsupported", "result", stricter=True)
def inferred_result_unsupported(ctx, rules):
    """An inferred result stands on a scenario the rules do not allow, or is not a copy of its source folder.

    What it checks: for a result whose log scenario differs from its folder and the pair is inferable
    (MultiStream and Offline from SingleStream, Offline from MultiStream), on an edge system: (1) the
    source scenario is required or optional for the model on that system type (an Offline result cannot
    stand on a MultiStream run of a benchmark without MultiStream); (2) when the source scenario's
    folder exists next to it (any case: `SingleStream/`, `singlestream/`), every file of the inferred
    folder is byte-identical to the source folder's, as preprocess_submission.py copies it; the finding
    lists the files that differ, are missing or are extra. The recomputed inferred value (official
    formula), the value in the rules' own words and the source scenario are in the finding data; the
    result summary carries the inferred value. Non-edge systems are PF016's.
    Why: rules 4.1.1 (edge submitters may infer MultiStream from SingleStream and Offline from
    SingleStream or a measured MultiStream result; "create copies of the directories");
    official-checker.md section H. The official checker reads whatever log the folder holds (stricter
    than official).
    Failing example: `offline/performance/run_1/mlperf_log_detail.txt` edited after copying
    `singlestream/`; an Offline result of bert-99 (edge: SingleStream, Offline) inferred from a
    MultiStream run.
    How to fix: recreate the inferred folders with `mlpc infer` (or preprocess_submission.py) from the
    measured result.
    Data used: `inferable`, `log_scenario_sources`, `models.*.required_scenarios`, `optional_scenarios`.
    """
    log = _log(ctx)
    if log is None or log.scenario is None or log.scenario == ctx.scenario:
        return
    if ctx.scenario in rules.log_scenario_sources or [ctx.scenario, log.scenario] not in rules.inferable:
        return
    system_type = ctx.system.system_type or ""
    if "edge" not in system_type:
        return  # PF016
    value = reported_value(ctx, rules)
    data = {"source_scenario": log.scenario, "inferred_value": value.value, "unit": value.unit,
            "formula": value.formula, "rules_form_value": _rules_form(log, ctx.scenario, log.scenario)}
    data = {k: v for k, v in data.items() if v is not None}
    shown = f"{value.value:g} {value.unit or ''}".strip() if value.value is not None else "no value"
    required, optional = allowed_scenarios(rules, ctx.mlperf_model, system_type)
    if (required or optional) and log.scenario not in required + optional:
        yield finding(_rel(ctx), f"{ctx.scenario} inferred from {log.scenario}, which is not a scenario of "
                      f"{ctx.mlperf_model} on a {system_type} system (inferred value {shown})",
                      expected=" or ".join(s for s in required + optional if [ctx.scenario, s] in rules.inferable)
                      or "a measured result", actual=log.scenario,
                      hint="infer only from a scenario the benchmark has", **data)
    copy = ctx.inferred_copy  # the load stage compared the folders
    if copy is None or copy.comparison.identical:
        return
    diff, source, source_rel = copy.comparison, copy.source, copy.source_rel
    parts = []
    if diff.error:
        parts.append(f"cannot compare: {diff.error}")
    for label, names in (("differ", diff.differ), ("missing", diff.missing), ("extra", diff.extra)):
        if names:
            parts.append(f"{label}: {', '.join(names[:6])}" + (f" (+{len(names) - 6} more)" if len(names) > 6 else ""))
    yield finding(ctx.rel, f"inferred {ctx.scenario} folder is not a copy of its source folder {source} "
                  f"(inferred value {shown})", expected=f"byte-identical copy of {source_rel}",
                  actual="; ".join(parts), hint=f"copy {source}/ again (`mlpc infer`) instead of editing the copy",
                  source_folder=source_rel, differ=len(diff.differ), missing=len(diff.missing),
                  extra=len(diff.extra), **data)


CHECKS = (
    result_invalid, loadgen_errors, performance_log_unreadable, performance_sample_count_low, wrong_seeds,
    early_stopping_not_met, target_latency_too_high, offline_samples_per_query_low, min_duration_too_short,
    min_query_count_not_met, equal_issue_not_used, token_latencies_not_enabled, token_latency_limit_exceeded,
    network_sut_name, scenario_mismatch, inferred_on_non_edge, result_value_missing, performance_test_mode,
    early_stopping_mismatch, inferred_result_unsupported, interactive_token_latency_exceeded,
)
