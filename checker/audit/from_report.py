"""Audit inputs from the engine: :class:`Submission` rows built from a checked tree's result summaries.

The audit commands (``mlpc audit eligible|select|nominate``) and the plausibility checks (``PL``) must
see exactly what ``mlpc check`` sees. This module turns the engine's
:class:`~checker.report.ResultSummary` rows (the ``results`` of a :class:`~checker.report.Report`, or
the ``results`` of a :class:`~checker.context.RoundCtx`) into the
:class:`~checker.models.audit_inputs.Submission` rows that eligibility, the draw and the plausibility
maths consume. Pure: no IO, no parsing; the engine has already read every file.

Mapping, field by field
-----------------------

* One Submission per ``(division, submitter folder, system)`` — one line of the results table.
  System fields (``status``, ``system_type``, ``accelerator_model_name``, ``accelerators_per_node``,
  ``number_of_nodes``, ``host_processor_model_name``, ``host_processors_per_node``,
  ``host_networking``, ``host_network_card_count``, ``is_network`` and, for network systems, every
  ``network_*`` / ``nic*`` field) come from the system JSON as the engine read it
  (``ResultSummary.system_fields``). The division is the folder's; the submitter is the folder name
  (SY008 reports a mismatch with the JSON's ``submitter``).
* One :class:`ScenarioResult` per result that has a positive value. ``model`` is the round's
  canonical model name (``mlperf_model``: ``resnet`` for a ``resnet50`` folder, ``llama3.1-8b`` for a
  ``llama3_1-8b`` alias folder), so names compare across submitters and rounds; in the open division
  it is the folder name (several open models may map to one benchmark). ``scenario`` is the
  canonical scenario.
* ``value`` is the reported result (``ResultSummary.value``). ``units`` follow the LoadGen key the
  value was read from, not the unit label of the round file (v4.1 labels LLM token rates
  "Samples/s"): latency scenarios are ``ms``; a key containing ``token`` is ``tokens/s``; any other
  throughput is ``samples/s``. Inferred results follow their formula: an Offline value inferred from
  SingleStream or MultiStream is ``samples/s``, a MultiStream one inferred from SingleStream ``ms``.
* ``inferred`` is the engine's flag; ``has_power`` and ``power_metric`` are the engine's power
  result (``power_value``: Watts for Offline/Server/Interactive, energy per query for the latency
  scenarios).
* ``samples_per_second`` (used only to get the mean output length ``L_out`` of an LLM result): the
  report does not carry the performance run's samples/s, so for a tokens/s result it is derived as
  ``value / TOKENS_PER_SAMPLE`` when the accuracy run reports ``TOKENS_PER_SAMPLE`` (Llama2,
  Mixtral); otherwise it stays unset and the plausibility maths uses the reference output length
  from ``rules/work_per_sample.yaml``.
* Validity: with ``valid_only`` (the default) an invalid result is left out — it will not be
  published, so it is neither a result to audit nor a "new model" for the guidance test — and a
  system left with no valid result is left out entirely. Each omission is recorded in ``notes``.

Ids: :attr:`FromReport.result_ids` maps ``(submission id, model, scenario)`` (the two last in the
comparison form of :func:`~checker.models.audit_inputs.normalise_text`) to the engine's result id
(``closed/X/results/S/M/Sc``), which round-scope checks need for their findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from checker.models.core_module import ValidationError

from checker.models.audit_methods import SCENARIO_RESULT, SUBMISSION, normalise_text
from checker.results import result_key

if TYPE_CHECKING:  # (built as records, checker.models.audit_methods: the models validate what the shapes leave them)
    from checker.models.audit_inputs import ScenarioResult, Submission

LATENCY_SCENARIOS = ("SingleStream", "MultiStream")
_SYSTEM_KEYS = ("status", "system_type", "accelerator_model_name", "accelerators_per_node",
                "number_of_nodes", "host_processor_model_name", "host_processors_per_node",
                "host_networking", "host_network_card_count")


@dataclass(frozen=True)
class FromReport:
    """Submissions built from result summaries, with the engine id of every kept result and a note
    for every result or system left out."""

    submissions: tuple[Submission, ...]
    result_ids: dict[tuple[str, str, str], str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def result_id(self, submission: Submission, result: ScenarioResult) -> str | None:
        return self.result_ids.get((submission.id, *result.key))


def units_of(summary, rules) -> str | None:
    """The plausibility/eligibility unit of a summary's value (see the module docstring)."""
    scenario = summary.scenario
    if summary.inferred:
        if scenario == "Offline":
            return "samples/s"
        if scenario == "MultiStream":
            return "ms"
        return None
    if scenario in LATENCY_SCENARIOS:
        return "ms"
    key = result_key(rules, summary.mlperf_model, scenario) if rules is not None else None
    if key is None and scenario == "Interactive":  # read from the Server run (rules 3.6, v5.1)
        key = result_key(rules, summary.mlperf_model, "Server") if rules is not None else None
    if key is None:
        unit = (summary.unit or "").casefold()
        return "tokens/s" if "token" in unit else "samples/s" if unit else None
    return "tokens/s" if "token" in key.casefold() else "samples/s"


def tokens_per_sample(summary) -> float | None:
    """``TOKENS_PER_SAMPLE`` of the result's accuracy run, when reported and positive."""
    for metric, value in summary.accuracy:
        if metric.casefold() == "tokens_per_sample":
            try:
                number = float(value)
            except (TypeError, ValueError):
                return None
            return number if number > 0 and number != float("inf") else None
    return None


def model_name(summary, folder: bool = False) -> str:
    """The round's canonical model name; in the open division (or with ``folder``) the folder name
    (open folders name different models that map to one benchmark, each a line of the results table)."""
    if folder or normalise_text(summary.division) == "open" or not summary.mlperf_model:
        return summary.model
    return summary.mlperf_model


def scenario_result(summary, rules, folder_models: bool = False) -> tuple[ScenarioResult | None, str]:
    """The ScenarioResult of one summary, or None and the reason it cannot be built."""
    if summary.value is None or not summary.value > 0:
        return None, "no positive result value"
    units = units_of(summary, rules)
    if units is None:
        return None, f"no unit for a {summary.scenario} result" + (" (inferred)" if summary.inferred else "")
    sps = None
    if units == "tokens/s":
        tps = tokens_per_sample(summary)
        sps = summary.value / tps if tps else None
    power = summary.power_value if summary.power_value and summary.power_value > 0 else None
    try:
        return SCENARIO_RESULT.make(model=model_name(summary, folder_models), scenario=summary.scenario,
                                    value=summary.value, units=units, inferred=summary.inferred,
                                    power_metric=power, has_power=summary.has_power,
                                    samples_per_second=sps), ""
    except ValidationError as exc:
        return None, f"not usable ({exc.errors(include_url=False)[0]['msg']})"


def _text(value) -> str | None:
    return None if value is None else str(value)


def _is_true(value) -> bool:
    return str(value).strip().casefold() in ("true", "1", "yes")


def _submission(division: str, submitter: str, system: str, fields: dict, results, round_label):
    is_network = _is_true(fields.get("is_network"))
    network = {k: str(v) for k, v in sorted(fields.items())
               if (k.startswith("network_") or k.startswith("nic")) and v not in (None, "")}
    values = {k: fields.get(k) for k in _SYSTEM_KEYS}
    return SUBMISSION.make(
        division=division, submitter=submitter, system_id=system,
        status=str(values["status"] or ""), system_type=str(values["system_type"] or ""),
        accelerator_model_name=_text(values["accelerator_model_name"]),
        accelerators_per_node=values["accelerators_per_node"],
        number_of_nodes=values["number_of_nodes"] if values["number_of_nodes"] is not None else 1,
        host_processor_model_name=_text(values["host_processor_model_name"]),
        host_processors_per_node=values["host_processors_per_node"],
        host_networking=_text(values["host_networking"]),
        host_network_card_count=_text(values["host_network_card_count"]),
        is_network=is_network, network_config=network if is_network else {},
        round=round_label, results=tuple(results))


def _ignore(text: str) -> None:
    pass


def iter_submissions(summaries: Iterable, rules, notes: list[str] | None = None, *, valid_only: bool = True,
                     divisions: Iterable[str] | None = None, round_label: str | None = None,
                     folder_models: bool = False) -> Iterator[tuple[Submission, dict[tuple[str, str], str]]]:
    """The Submissions of :func:`submissions_from_summaries` one at a time, in its order, each with the
    engine id of its results by result key; what is left out is appended to ``notes`` (when given). A
    caller that needs one Submission at a time holds no more than that one."""
    note = notes.append if notes is not None else _ignore
    label = round_label if round_label is not None else getattr(rules, "round", None)
    keep = None if divisions is None else {normalise_text(d) for d in divisions}
    groups: dict[tuple[str, str, str], list] = {}
    for s in sorted(summaries, key=lambda x: x.id):
        if keep is not None and normalise_text(s.division) not in keep:
            continue
        groups.setdefault((s.division, s.submitter, s.system), []).append(s)
    for (division, submitter, system), rows in sorted(groups.items()):
        results: list[ScenarioResult] = []
        mine: dict[tuple[str, str], str] = {}
        for s in rows:
            if valid_only and not s.valid:
                note(f"{s.id}: left out, the result is invalid ({s.errors} error(s))")
                continue
            built, why = scenario_result(s, rules, folder_models)
            if built is None:
                note(f"{s.id}: left out, {why}")
                continue
            if built.key in mine:
                note(f"{s.id}: left out, {built.model} {built.scenario} is already given by "
                             f"{mine[built.key]}")
                continue
            mine[built.key] = s.id
            results.append(built)
        if not results and valid_only:
            note(f"{division}/{submitter}/{system}: left out, no valid result")
            continue
        fields = dict(rows[0].system_fields)
        try:
            sub = _submission(division, submitter, system, fields, results, label)
        except ValidationError as exc:
            note(f"{division}/{submitter}/systems/{system}.json: left out, unusable system "
                         f"description ({exc.errors(include_url=False)[0]['msg']})")
            continue
        yield sub, mine


def submissions_from_summaries(summaries: Iterable, rules, *, valid_only: bool = True,
                               divisions: Iterable[str] | None = None,
                               round_label: str | None = None, folder_models: bool = False) -> FromReport:
    """Group result summaries into Submissions (see the module docstring). ``divisions`` keeps only
    those division folders; ``round_label`` defaults to ``rules.round``; ``folder_models`` names
    every result by its model folder instead of the canonical model."""
    subs: list[Submission] = []
    ids: dict[tuple[str, str, str], str] = {}
    notes: list[str] = []
    for sub, mine in iter_submissions(summaries, rules, notes, valid_only=valid_only, divisions=divisions,
                                      round_label=round_label, folder_models=folder_models):
        subs.append(sub)
        ids.update({(sub.id, *key): rid for key, rid in mine.items()})
    return FromReport(submissions=tuple(subs), result_ids=ids, notes=tuple(notes))


def submissions_from_report(report, rules, *, valid_only: bool = True, folder_models: bool = False) -> FromReport:
    """:func:`submissions_from_summaries` over a checked tree's :class:`~checker.report.Report`."""
    return submissions_from_summaries(report.results, rules, valid_only=valid_only, folder_models=folder_models,
                                      round_label=getattr(rules, "round", None) or report.round)


__all__ = ["FromReport", "iter_submissions", "model_name", "scenario_result", "submissions_from_report",
           "submissions_from_summaries", "tokens_per_sample", "units_of"]
