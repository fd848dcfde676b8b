"""``mlperf_log_summary.txt`` is LoadGen's digest of ``mlperf_log_detail.txt``: the same run, written twice.

The detail log is the record (the official checkers read only it); a summary that tells another story
was edited, or belongs to another run. This module lists where the two disagree. Pure: no IO.

LoadGen prints the detail values with 6 significant digits and the summary's rates with 2 decimals, so
rates are compared within both roundings; counts, latencies, seeds and words must be equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Mapping

from checker.loaders.compiled import compiled

# summary label -> detail key, for the labels LoadGen writes (results, validity, scenario, mode,
# constraints, counts, latencies, seeds). Labels a summary does not carry are skipped.
FIELDS: dict[str, str] = {
    "Scenario": "effective_scenario",
    "Mode": "effective_test_mode",
    "Result is": "result_validity",
    "Samples per second": "result_samples_per_second",
    "Tokens per second": "result_tokens_per_second",
    "Tokens per second (inferred)": "result_inferred_tokens_per_second",
    "Completed tokens per second (inferred)": "result_inferred_completed_tokens_per_second",
    "Completed samples per second": "result_completed_samples_per_sec",
    "Completed tokens per second": "result_completed_tokens_per_second",
    "Scheduled samples per second": "result_scheduled_samples_per_sec",
    "QPS w/ loadgen overhead": "result_qps_with_loadgen_overhead",
    "QPS w/o loadgen overhead": "result_qps_without_loadgen_overhead",
    "90th percentile latency (ns)": "result_90.00_percentile_latency_ns",
    "Min latency (ns)": "result_min_latency_ns",
    "Max latency (ns)": "result_max_latency_ns",
    "Mean latency (ns)": "result_mean_latency_ns",
    "Min duration satisfied": "result_min_duration_met",
    "Min queries satisfied": "result_min_queries_met",
    "Performance constraints satisfied": "result_perf_constraints_met",
    "Early stopping satisfied": "early_stopping_met",
    "samples_per_query": "effective_samples_per_query",
    "target_qps": "effective_target_qps",
    "target_latency (ns)": "effective_target_latency_ns",
    "min_duration (ms)": "effective_min_duration_ms",
    "max_duration (ms)": "effective_max_duration_ms",
    "min_query_count": "effective_min_query_count",
    "max_query_count": "effective_max_query_count",
    "qsl_rng_seed": "effective_qsl_rng_seed",
    "sample_index_rng_seed": "effective_sample_index_rng_seed",
    "schedule_rng_seed": "effective_schedule_rng_seed",
    "accuracy_log_rng_seed": "effective_accuracy_log_rng_seed",
    "accuracy_log_probability": "effective_accuracy_log_probability",
    "accuracy_log_sampling_target": "effective_accuracy_log_sampling_target",
    "performance_sample_count": "effective_performance_sample_count",
}
_PERCENTILE = re.compile(r"^(\d+\.\d+) percentile latency \(ns\)$")
_RESULT_PERCENTILE = re.compile(r"^(\d+(?:\.\d+)?)th percentile latency \(ns\)$")
# early-stopping estimates: the 90th is SingleStream's result (token runs: the first TTFT block's), the 99th
# MultiStream's result and SingleStream's p99 estimate
_ESTIMATE = re.compile(r"^Early stopping (\d+(?:\.\d+)?)th percentile estimate$")
# MultiStream summaries show per-query latencies under the same labels
_PER_QUERY = {"result_min_latency_ns": "result_min_query_latency_ns", "result_max_latency_ns": "result_max_query_latency_ns",
              "result_mean_latency_ns": "result_mean_query_latency_ns"}
# run-length settings of "Test Parameters Used": real published summaries differ from their detail log here
# (v6.0 open NVIDIA Jetson-Thor llama3.1-8b-edge, LoadGen 6.0.9: summary min_duration 0 and min_query_count
# 5000 against the detail's effective 600000 and 1), so a disagreement here is a weaker signal
SETTINGS = frozenset({"min_duration (ms)", "max_duration (ms)", "min_query_count", "max_query_count"})
_NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_NUMBER_MATCH = _NUMBER.match
# a summary rate (2 decimals) against its detail value (6 significant digits): |a - b| <= _ABS + _REL*|a| + _REL*|b|
_ABS, _REL = 0.0051, 5.1e-6


@dataclass(frozen=True)
class Disagreement:
    """A field of the summary log that disagrees with the detail log's value."""

    label: str  # as the summary writes it
    key: str  # the detail log's key
    summary: str
    detail: Any

    @property
    def setting(self) -> bool:
        """A run-length setting of "Test Parameters Used" (see SETTINGS), not part of the record."""
        return self.label in SETTINGS


def detail_key(label: str) -> str | None:
    if label in FIELDS:
        return FIELDS[label]
    if match := _ESTIMATE.match(label):  # "90th" (LoadGen 4.x) or "90.0th" (5.x and later)
        return {90.0: "early_stopping_latency_ss", 99.0: "early_stopping_latency_ms"}.get(float(match.group(1)))
    if match := _RESULT_PERCENTILE.match(label):  # the result line of a SingleStream/MultiStream summary
        return f"result_{float(match.group(1)):.2f}_percentile_latency_ns"
    match = _PERCENTILE.match(label)
    return f"result_{match.group(1)}_percentile_latency_ns" if match else None


def _same(summary: str, detail: Any) -> bool:
    if isinstance(detail, bool):
        return summary.strip().lower() in (("yes", "true") if detail else ("no", "false"))
    text = summary.strip()
    if isinstance(detail, (int, float)):
        if not _NUMBER.match(text):
            return False
        value = float(text)
        if isinstance(detail, int) and "." not in text and "e" not in text.lower():
            return int(text) == detail
        return abs(value - detail) <= _ABS + _REL * abs(detail) + _REL * abs(value)
    return text.replace(" ", "").lower() == str(detail).replace(" ", "").lower()


#: label -> (detail key, MultiStream per-query key or None), or None for a label no detail key holds; filled
#: as labels are met (LoadGen writes a few dozen; a summary with odd labels cannot grow it past _PLAN_LIMIT)
_PLANS: dict[str, tuple[str, str | None] | None] = {}
_PLAN_LIMIT = 4096


def _plan(label: str) -> tuple[str, str | None] | None:
    if label in _PLANS:
        return _PLANS[label]
    key = detail_key(label)
    plan = None
    if key is not None:
        per_query = None
        if key.startswith("result_") and key.endswith("latency_ns"):
            per_query = _PER_QUERY.get(key) or key.replace("_percentile_latency_ns", "_percentile_per_query_latency_ns")
        plan = (key, per_query)
    if len(_PLANS) < _PLAN_LIMIT:
        _PLANS[label] = plan
    return plan


_UNSEEN = object()
_AGREE = compiled("agree")  # the fields that plainly agree, told apart in C (None: every field is compared here)

#: the labels of a summary (in its order) -> for a MultiStream run and for any other: ((index, label, key,
#: per-query key or None), ...) of the labels a detail key holds, the keys to read, in order, and what takes the
#: texts of those labels out of the summary's texts; summaries of one LoadGen release share their labels, so a
#: summary's labels are matched once per release, not per summary
_PROGRAMS: dict[tuple[str, ...], tuple] = {}
_PROGRAM_LIMIT = 256


def _picker(indices: tuple[int, ...]):
    """What gives ``tuple(texts[i] for i in indices)`` of a tuple of texts, in C."""
    if len(indices) >= 2:
        return itemgetter(*indices)
    return lambda texts: tuple(texts[i] for i in indices)


def _program(labels: tuple[str, ...]) -> tuple:
    program = _PROGRAMS.get(labels)
    if program is not None:
        return program
    steps = []
    for index, label in enumerate(labels):
        plan = _PLANS.get(label, _UNSEEN)
        if plan is _UNSEEN:
            plan = _plan(label)
        if plan is not None:
            steps.append((index, label, plan[0], plan[1]))
    # a SingleStream summary prints a 99th estimate that no detail key holds: not read outside MultiStream
    other = [step for step in steps if step[2] != "early_stopping_latency_ms"]
    multi_keys = tuple(k for _, _, key, per_query in steps for k in ((per_query, key) if per_query else (key,)))
    program = ((tuple(steps), multi_keys, _picker(tuple(step[0] for step in steps))),
               (tuple(other), tuple(key for _, _, key, _ in other), _picker(tuple(step[0] for step in other))))
    if len(_PROGRAMS) >= _PROGRAM_LIMIT:
        _PROGRAMS.clear()
    _PROGRAMS[labels] = program
    return program


def disagreements(summary: Mapping[str, str], detail) -> list[Disagreement]:
    """Every field the summary and the detail log both carry and disagree on. ``detail`` is a
    :class:`checker.loaders.loadgen_log.DetailLog` (anything with ``get(key)``; ``get_many(keys)`` when it
    has it reads the values at once).

    The fields whose text is plainly the value (the usual field: a word, a whole number, Yes or No: the first
    test of each below) are told apart in C (``checker._detail_scan.agree``), and only the others compared here."""
    out = []
    get = detail.get
    multi = str(get("effective_scenario") or "").replace(" ", "") == "MultiStream"
    steps, keys, pick = _program(tuple(summary))[0 if multi else 1]
    many = getattr(detail, "get_many", None)
    values = many(keys) if many is not None else [get(key) for key in keys]
    if multi:  # (a step with a per-query key reads two values)
        read = iter(values)
        values = [(next(read), next(read)) if step[3] is not None else next(read) for step in steps]
    texts = tuple(summary.values())
    for at in _AGREE(pick(texts), values) if _AGREE is not None else range(len(steps)):
        (index, label, key, per_query), value = steps[at], values[at]
        text = texts[index]
        if multi and per_query is not None:  # the per-query statistic first, then the per-sample one
            first, second = value
            found = [v for v in (first, second) if v is not None]
            shown = per_query if first is not None else key
            if not found or any(_same(text, v) for v in found):
                continue
            out.append(Disagreement(label, shown, text, found[0]))
            continue
        if value is None:
            continue
        # the summary writes a word or a whole number as the detail log does: equal text is the same value
        # (no call per field); anything else, rates above all, is compared by _same
        kind = value.__class__
        if kind is str:
            if text == value or _same(text, value):
                continue
        elif kind is int:
            if text == str(value) or _same(text, value):
                continue
        elif kind is bool:
            if text == ("Yes" if value else "No") or _same(text, value):
                continue
        elif kind is float:  # (a rate: _same's comparison of a number with a float, without the call)
            number = text.strip()
            if _NUMBER_MATCH(number) is not None:
                read = float(number)
                if abs(read - value) <= _ABS + _REL * abs(value) + _REL * abs(read):
                    continue
        elif _same(text, value):
            continue
        out.append(Disagreement(label, key, text, value))
    return out
