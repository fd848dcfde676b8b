"""The summary stage: one ``ResultSummary`` per result (the row of summary.csv and of the JSON report)
from the result's loaded context and the findings whose scope contains it.

It reads the records the load stage produced (``ResultCtx``: parsed logs, the power samples, the text of
accuracy.txt) and the readings the checks already made of them (``accuracy_reading``, remembered per
context); it opens no file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from checker.checks.accuracy import accuracy_reading
from checker.checks.performance import reported_value
from checker.context import ResultCtx
from checker.diagnostics import Finding, Severity
from checker.metrics.accuracy_metrics import read_accuracy
from checker.metrics.power import PowerError, average_power, power_metric
from checker.report import RUN_ONLY_SCOPES, ResultSummary, compliance_status, findings_in_scope

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.rules import RoundRules


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


_MODEL_FACTS: dict[tuple[int, str, str | None], tuple] = {}  # (id(rules), model, scenario) -> (rules, facts)


def _model_facts(rules: RoundRules, mlperf_model: str, scenario: str | None) -> tuple:
    """(the model rules or None, its accuracy metrics in order, its compliance tests, the accuracy bounds the
    rules set for the scenario as (metric, target, upper limit)): the same for every result of a model and
    scenario, so made once per round, model and scenario."""
    key = (id(rules), mlperf_model, scenario)
    known = _MODEL_FACTS.get(key)
    if known is not None and known[0] is rules:
        return known[1]
    model = rules.models.get(mlperf_model)
    if model is None:
        facts = (None, (), (), ())
    else:
        metrics = tuple(dict.fromkeys(t.metric for t in model.accuracy))  # a metric may have a rules and an official bound
        # the bounds the rules set (an official-only bound, AC012, is not the target a reader should see)
        targets = {t.metric: [t.target, None] for t in model.targets_for(scenario) if t.source != "official"}
        for lim in model.upper_limits:
            if lim.source != "official":
                targets.setdefault(lim.metric, [None, None])[1] = lim.limit
        facts = (model, metrics, tuple(model.compliance_tests), tuple((m, t, u) for m, (t, u) in targets.items()))
    if len(_MODEL_FACTS) > 1024:
        _MODEL_FACTS.clear()
    _MODEL_FACTS[key] = (rules, facts)
    return facts


_ERROR, _WARNING = Severity.ERROR, Severity.WARNING


def summarise(result: ResultCtx, rules: RoundRules, mine: list[Finding]) -> ResultSummary:
    """The summary of one result; ``mine`` are the findings whose scope contains it
    (``findings_by_result``)."""
    errors = warnings = 0
    for f in mine:  # (counts_as of each finding, inline: a result holds dozens of findings of its scopes)
        if f.waived or f.scope in RUN_ONLY_SCOPES:
            continue
        severity = f.severity
        if severity == _ERROR:
            if f.invalidates:
                errors += 1
        elif severity == _WARNING:
            warnings += 1
    value = reported_value(result, rules) if result.scenario else None
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
    model, metrics, compliance_tests, accuracy_targets = _model_facts(rules, result.mlperf_model, result.scenario)
    if model and result.accuracy.accuracy_txt:
        # the accuracy checks' reading of this result (same values: upper limits add none), read again
        # only for a folder that is not a scenario, which the checks skip
        reading = accuracy_reading(result, rules)[0] if result.scenario else read_accuracy(
            result.accuracy.accuracy_txt, rules.accuracy_patterns, [(t.metric, t.target) for t in model.accuracy], [])
        values = reading.values
        accuracy = tuple((m, values[m]) for m in metrics if m in values)
    elif result.endpoint is not None and result.endpoint.accuracy is not None:
        # the published table's convention: the first accuracy score, bare, on its scorer's own scale
        scores = [e.score for e in result.endpoint.accuracy.scored if isinstance(e.score, (int, float))]
        if scores:
            name = model.endpoint.accuracy.metric if model and model.endpoint and model.endpoint.accuracy else "score"
            accuracy = ((name, float(scores[0])),)
    data = result.system.data or {}
    impl = result.measurements.impl_json if isinstance(result.measurements.impl_json, dict) else {}
    weight_types = impl.get("weight_data_types")
    comp, comp_tests = compliance_status(result.division, compliance_tests, mine)
    return ResultSummary(
        id=result.rel, division=result.division, submitter=result.submitter, system=result.system.system,
        model=result.model_dir, mlperf_model=result.mlperf_model, scenario=result.scenario or result.scenario_dir,
        scenario_dir=result.scenario_dir, valid=errors == 0 and value is not None and bool(value.value),
        value=value.value if value else None, unit=value.unit if value else None,
        inferred=bool(value and value.inferred), has_power=result.power is not None,
        power_value=power_value, power_unit=rules.power_units.get(result.scenario or "") if result.power else None,
        power_efficiency=power_eff, accuracy=accuracy, errors=errors, warnings=warnings, compliance=comp,
        system_fields=_system_fields(data),
        weight_data_types=str(weight_types) if weight_types is not None else None,
        compliance_tests=comp_tests, accuracy_targets=accuracy_targets,
        log_scenario=result.log_scenario, endpoint=result.endpoint is not None,
        layout=result.endpoint.layout if result.endpoint is not None else None,
    )
