"""The summary stage: one ``ResultSummary`` per result (the row of summary.csv and of the JSON report)
from the result's loaded context and the findings whose scope contains it.

It reads the records the load stage produced (``ResultCtx``: parsed logs, the power samples, the text of
accuracy.txt) and the readings the checks already made of them (``accuracy_reading``, remembered per
context); it opens no file.
"""

from __future__ import annotations

from checker.checks.accuracy import accuracy_reading
from checker.context import ResultCtx
from checker.diagnostics import Finding
from checker.metrics.accuracy_metrics import read_accuracy
from checker.metrics.power import PowerError, average_power, power_metric
from checker.models.rules import RoundRules
from checker.report import ResultSummary, compliance_status, counts_as, findings_in_scope
from checker.results import result_value


def findings_by_result(results: list[ResultCtx], findings: list[Finding]) -> dict[str, list[Finding]]:
    """For each result, the findings whose scope contains it, in the order of ``findings`` (one pass over
    the findings instead of one per result)."""
    return findings_in_scope([r.rel for r in results], findings)


_LAST_SYSTEM: list = [None, ()]  # the system description last summarised, and its fields


def _system_fields(data: dict) -> tuple:
    """The scalar fields of a system description, sorted; one tuple shared by the results of a system
    (they come one system after the other), which a round of 10,000 results otherwise holds 10,000
    copies of (about 2 KB each, in the process that assembles the report)."""
    if _LAST_SYSTEM[0] is not data:
        _LAST_SYSTEM[:] = [data, tuple(sorted((k, v) for k, v in data.items()
                                              if isinstance(v, (str, int, float, bool))))]
    return _LAST_SYSTEM[1]


def summarise(result: ResultCtx, rules: RoundRules, mine: list[Finding]) -> ResultSummary:
    """The summary of one result; ``mine`` are the findings whose scope contains it
    (``findings_by_result``)."""
    errors = sum(1 for f in mine if counts_as(f) == "error")
    warnings = sum(1 for f in mine if counts_as(f) == "warning")
    value = result_value(result, rules) if result.scenario else None
    power_value = power_eff = None
    if (result.power is not None and result.power.run_samples is not None and value is not None and value.value
            and result.perf and result.perf.log):
        log = result.perf.log
        try:
            window = average_power(result.power.run_samples, log.get("power_begin"), log.get("power_end"))
            spq = 8 if result.scenario == "MultiStream" else 1
            mult = 8 if (result.scenario == "MultiStream" and log.scenario == "SingleStream") else 1
            power_value, power_eff = power_metric(result.scenario, window, log.get("result_query_count"), spq,
                                                  value.value, multiplier=mult)
        except PowerError:
            pass
    accuracy: tuple = ()
    model = rules.models.get(result.mlperf_model)
    if model and result.accuracy.accuracy_txt:
        # the accuracy checks' reading of this result (same values: upper limits add none), read again
        # only for a folder that is not a scenario, which the checks skip
        reading = accuracy_reading(result, rules)[0] if result.scenario else read_accuracy(
            result.accuracy.accuracy_txt, rules.accuracy_patterns, [(t.metric, t.target) for t in model.accuracy], [])
        metrics = dict.fromkeys(t.metric for t in model.accuracy)  # a metric may have a rules and an official bound
        accuracy = tuple((m, reading.values[m]) for m in metrics if m in reading.values)
    elif result.endpoint is not None and result.endpoint.accuracy is not None:
        # the published table's convention: the first accuracy score, bare, on its scorer's own scale
        scores = [e.score for e in result.endpoint.accuracy.scored if isinstance(e.score, (int, float))]
        if scores:
            name = model.endpoint.accuracy.metric if model and model.endpoint and model.endpoint.accuracy else "score"
            accuracy = ((name, float(scores[0])),)
    data = result.system.data or {}
    impl = result.measurements.impl_json if isinstance(result.measurements.impl_json, dict) else {}
    comp, comp_tests = compliance_status(result.division, tuple(model.compliance_tests) if model else (), mine)
    # the bounds the rules set (an official-only bound, AC012, is not the target a reader should see)
    targets = {t.metric: [t.target, None] for t in model.targets_for(result.scenario)
               if t.source != "official"} if model else {}
    for lim in (model.upper_limits if model else ()):
        if lim.source != "official":
            targets.setdefault(lim.metric, [None, None])[1] = lim.limit
    return ResultSummary(
        id=result.rel, division=result.division, submitter=result.submitter, system=result.system.system,
        model=result.model_dir, mlperf_model=result.mlperf_model, scenario=result.scenario or result.scenario_dir,
        scenario_dir=result.scenario_dir, valid=errors == 0 and value is not None and bool(value.value),
        value=value.value if value else None, unit=value.unit if value else None,
        inferred=bool(value and value.inferred), has_power=result.power is not None,
        power_value=power_value, power_unit=rules.power_units.get(result.scenario or "") if result.power else None,
        power_efficiency=power_eff, accuracy=accuracy, errors=errors, warnings=warnings, compliance=comp,
        system_fields=_system_fields(data),
        weight_data_types=str(impl.get("weight_data_types")) if impl.get("weight_data_types") is not None else None,
        compliance_tests=comp_tests, accuracy_targets=tuple((m, t, u) for m, (t, u) in targets.items()),
        log_scenario=result.log_scenario, endpoint=result.endpoint is not None,
        layout=result.endpoint.layout if result.endpoint is not None else None,
    )
