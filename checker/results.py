"""What a result reports: its metric value, whether it is inferred, and its unit.

Pure functions over a parsed result (no IO). The formulas for inferred results
follow rules 4.1.1 and the official checker's section H.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from checker.context import ResultCtx
from checker.metrics.endpoint import endpoint_value

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.rules import RoundRules

NS_PER_MS = 1e6


@dataclass(frozen=True)
class ResultValue:
    """A result's reported value, the log key it was read from, and whether it was inferred."""

    value: float | None
    key: str | None
    inferred: bool
    unit: str | None
    problem: str | None = None
    formula: str | None = None


def _num(value) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def result_key(rules: RoundRules, mlperf_model: str, scenario: str) -> str | None:
    model = rules.models.get(mlperf_model)
    if model and scenario in model.result_field:
        return model.result_field[scenario]
    return rules.result_fields.get(scenario)


def unit_for(rules: RoundRules, mlperf_model: str, scenario: str) -> str | None:
    model = rules.models.get(mlperf_model)
    if model and scenario in model.units:
        return model.units[scenario]
    return rules.units.get(scenario)


def result_value(ctx: ResultCtx, rules: RoundRules) -> ResultValue:
    """The value reported for the directory scenario (official G2 + H)."""
    dir_scenario = ctx.scenario
    if ctx.endpoint is not None:
        return _endpoint_value(ctx, rules)
    log = ctx.perf.log if ctx.perf else None
    if log is None or dir_scenario is None:
        return ResultValue(None, None, False, None, "no parsed performance log")
    log_scenario = log.scenario
    unit = unit_for(rules, ctx.mlperf_model, dir_scenario)
    if log_scenario is None:
        return ResultValue(None, None, False, unit, "effective_scenario missing from the log")
    if [dir_scenario, log_scenario] in rules.inferable and dir_scenario != log_scenario:
        return _inferred(log, dir_scenario, log_scenario, unit)
    scenario = log_scenario if log_scenario in rules.result_fields else dir_scenario
    key = result_key(rules, ctx.mlperf_model, scenario)
    if key is None:
        return ResultValue(None, None, False, unit, f"no result field for scenario {scenario}")
    raw = _num(log.get(key))
    if raw is None:
        return ResultValue(None, key, False, unit, f"{key} missing or not a number")
    if scenario in ("SingleStream", "MultiStream"):
        model = rules.models.get(ctx.mlperf_model)
        if model is not None and scenario in model.result_in_seconds:  # ns -> ms -> s, as the official tool divides
            return ResultValue(raw / NS_PER_MS / 1e3, key, False, unit, formula=f"{key} / 1e6 / 1e3")
        return ResultValue(raw / NS_PER_MS, key, False, unit, formula=f"{key} / 1e6")
    return ResultValue(raw, key, False, unit, formula=key)


def _inferred(log, dir_scenario: str, log_scenario: str, unit) -> ResultValue:
    if dir_scenario == "Offline" and log_scenario == "SingleStream":
        key = "result_qps_without_loadgen_overhead"
        value = _num(log.get(key))
        if value is None:
            return ResultValue(None, key, True, unit, f"{key} missing")
        return ResultValue(value, key, True, unit, formula="1000 / mean latency (ms) = result_qps_without_loadgen_overhead")
    if dir_scenario == "Offline" and log_scenario == "MultiStream":
        spq = _num(log.get("effective_samples_per_query"))
        mean = _num(log.get("result_mean_query_latency_ns"))
        if spq is None or not mean:
            return ResultValue(None, "result_mean_query_latency_ns", True, unit, "mean query latency missing or zero")
        return ResultValue(spq * 1000 / (mean / NS_PER_MS), "result_mean_query_latency_ns", True, unit,
                           formula="samples_per_query * 1000 / mean query latency (ms)")
    if dir_scenario == "MultiStream" and log_scenario == "SingleStream":
        p99 = _num(log.get("early_stopping_latency_ms"))
        if p99 is None:
            return ResultValue(None, "early_stopping_latency_ms", True, unit, "early_stopping_latency_ms missing")
        return ResultValue(p99 * 8 / NS_PER_MS, "early_stopping_latency_ms", True, unit,
                           formula="8 * SingleStream p99 early-stopping latency (ms)")
    return ResultValue(None, None, True, unit, f"{dir_scenario} cannot be inferred from {log_scenario}")


def _endpoint_value(ctx: ResultCtx, rules: RoundRules) -> ResultValue:
    """An endpoint result's value as the published v6.1 table has it: tokens/s for LLMs, qps otherwise,
    the mean latency for SingleStream (``models.*.endpoint.result_metric``, else ``endpoint.result_metric``)."""
    scenario = ctx.scenario
    if scenario is None:
        return ResultValue(None, None, False, None, "not a scenario folder")
    model = rules.models.get(ctx.mlperf_model)
    own = model.endpoint.result_metric if model and model.endpoint else {}
    metric = own.get(scenario) or (rules.endpoint.result_metric.get(scenario) if rules.endpoint else None)
    unit = unit_for(rules, ctx.mlperf_model, scenario)
    if metric is None:
        return ResultValue(None, None, False, unit, f"no endpoint result metric for {scenario}")
    value, formula = endpoint_value(ctx.endpoint.summary, metric, unit)
    if value is None:
        return ResultValue(None, metric, False, unit, f"{formula} missing from result_summary.json")
    return ResultValue(float(value), metric, False, unit, formula=f"result_summary.json {formula}")
