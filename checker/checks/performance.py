"""Performance checks (PF) on `performance/run_1/mlperf_log_detail.txt`.

Official references: docs/official-checker.md section G; rules sections 3 and 4.
"""

from __future__ import annotations

from checker.checks.base import check, finding
from checker.results import _num, result_value


def _log(ctx):
    if ctx.scenario is None or ctx.perf is None or ctx.perf.log is None:
        return None
    return ctx.perf.log


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
    TTFT/TPOT limits hold (a bug fixed in v5.0.1); mlpc always requires VALID (stricter).
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
    Why: official checker G4.
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

    What it checks: `performance/run_1/mlperf_log_detail.txt` exists and every `:::MLLOG` line is JSON.
    Why: official checker G0c (any parse exception invalidates the scenario).
    Failing example: a log cut in the middle of a line, or a binary file.
    How to fix: copy the complete log written by LoadGen.
    Data used: none.
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
    for name, expected in rules.seeds.model_dump().items():
        actual = log.get(f"effective_{name}")
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

    What it checks: `effective_min_duration_ms` >= `min_duration_ms` (600 s).
    Why: official checker G13; rules section 3.
    Failing example: `min_duration = 60000` in user.conf.
    How to fix: remove the min_duration override.
    Data used: `min_duration_ms`.
    """
    log = _log(ctx)
    if log is None:
        return
    found = _num(log.get("effective_min_duration_ms"))
    if found is None or found < rules.min_duration_ms:
        yield finding(_rel(ctx), "test duration below the minimum", expected=f">= {rules.min_duration_ms} ms",
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


def _conf_equal_issue(ctx, rules) -> bool | None:
    """Equal-issue mode from mlperf.conf / user.conf lines (official E7): user.conf wins."""
    model = _model(ctx, rules)
    name = (model.loadgen_name if model else None) or ctx.model_dir.replace("-99.9", "").replace("-99", "")
    found = None
    for conf in ("mlperf.conf", "user.conf"):
        for line in ctx.measurements.conf_texts.get(conf, "").splitlines():
            line = line.replace(" ", "").strip()
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
    log, model = _log(ctx), _model(ctx, rules)
    if log is None or model is None or not model.equal_issue or ctx.division not in model.equal_issue_divisions:
        return
    value = log.get("effective_sample_concatenate_permutation")
    if value is True:
        return
    if _conf_equal_issue(ctx, rules):
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
    `result_time_per_output_token_99.00_percentile_ns` < TPOT limit (strict), for non-Offline runs.
    Why: official checker G3; rules LLM latency table.
    Failing example: llama2-70b Server with TPOT p99 of 210 ms (limit 200 ms).
    How to fix: lower the load (target_qps) and rerun.
    Data used: `models.*.token_latency`.
    """
    log, model = _log(ctx), _model(ctx, rules)
    if log is None or model is None or not model.requires_token_latencies or ctx.scenario == "Offline":
        return
    limits = model.token_latency.get(ctx.scenario)
    if limits is None:
        return
    ttft = _num(log.get("result_first_token_99.00_percentile_latency_ns"))
    tpot = _num(log.get("result_time_per_output_token_99.00_percentile_ns"))
    if ttft is None or tpot is None or not (ttft < limits.ttft_ns and tpot < limits.tpot_ns):
        yield finding(_rel(ctx), "TTFT/TPOT p99 not below the limits",
                      expected=f"TTFT < {limits.ttft_ns} ns, TPOT < {limits.tpot_ns} ns",
                      actual=f"TTFT {ttft}, TPOT {tpot}", hint="lower the offered load")


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
    value = result_value(ctx, rules)
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


CHECKS = (
    result_invalid, loadgen_errors, performance_log_unreadable, performance_sample_count_low, wrong_seeds,
    early_stopping_not_met, target_latency_too_high, offline_samples_per_query_low, min_duration_too_short,
    min_query_count_not_met, equal_issue_not_used, token_latencies_not_enabled, token_latency_limit_exceeded,
    network_sut_name, scenario_mismatch, inferred_on_non_edge, result_value_missing, performance_test_mode,
)
