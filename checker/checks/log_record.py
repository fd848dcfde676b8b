"""The detail log is the record (PF022-PF026): a summary log that disagrees with its detail log, a
detail log that writes its own result twice, a figure that does not follow from the rest of the run.

``mlperf_log_summary.txt`` is LoadGen's digest of ``mlperf_log_detail.txt``. The official checkers and
the checks here read the detail log; a summary that says something else was edited or copied from
another run, and anyone who reads it (a reviewer, a results table, a compliance script) is misled.
"""

from __future__ import annotations

from operator import methodcaller

from checker.checks.base import check, finding
from checker.checks.endpoint import test09_bounds
from checker.checks.memo import per_context
from checker.metrics.accuracy_metrics import _compiled, read_accuracy
from checker.metrics.log_digest import disagreements
from checker.metrics.run_record import REPORTED_TOKEN_RATES, Bounds, contradictions


def _runs(ctx):
    """(what, ParsedLog) of the result's performance and accuracy runs that have a detail log."""
    if ctx.scenario is None:
        return
    for what, parsed in (("performance", ctx.perf), ("accuracy", ctx.accuracy.detail)):
        if parsed is not None and parsed.log is not None and parsed.summary_rel is not None:
            yield what, parsed


@per_context
def _compared(ctx, rules):
    """(what, ParsedLog, its disagreements or None for an unreadable summary) of each run: once per
    result for PF022 and PF023."""
    return [(what, parsed, None if parsed.summary is None else disagreements(parsed.summary, parsed.log))
            for what, parsed in _runs(ctx)]


def _disagreeing(ctx, rules) -> bool:
    """``when`` of PF022 and PF023: a run's summary log is unreadable or disagrees with its detail log."""
    return any(items is None or items for _, _, items in _compared(ctx, rules))


def _findings(ctx, rules, settings: bool):
    for what, parsed, items in _compared(ctx, rules):
        if items is None:
            if not settings:
                yield finding(parsed.summary_rel, f"{what} summary log unreadable: {parsed.summary_error}",
                              expected="a LoadGen summary log", actual=parsed.summary_error or "unreadable")
            continue
        for item in items:
            if item.setting != settings:
                continue
            yield finding(parsed.summary_rel,
                          f"{what} summary says {item.label} = {item.summary}, its detail log says "
                          f"{item.key} = {item.detail}", expected=f"{item.detail} (the detail log)",
                          actual=item.summary, hint="submit the summary and detail logs LoadGen wrote for this run",
                          run=what, key=item.key)


@check("PF022", "summary-detail-mismatch", "result", stricter=True, when=_disagreeing)
def summary_detail_mismatch(ctx, rules):
    """A summary log disagrees with the detail log of the same run.

    What it checks: for the performance run (`performance/run_1/`) and the accuracy run (`accuracy/`),
    every field `mlperf_log_summary.txt` shares with `mlperf_log_detail.txt` has the same value: scenario,
    mode, validity, result rates, latency statistics, early stopping, seeds, sample counts and the
    constraint flags. Rates are compared within the two logs' roundings (2 decimals, 6 significant
    digits); MultiStream latencies are the per-query statistics.
    Why: the summary is LoadGen's digest of the detail log, written at the same moment; the detail log
    is the record the official checker reads, so a summary that says another thing was edited or comes
    from another run (stricter than the official checker, which never opens the summary).
    Failing example: `Samples per second: 2400.5` in the summary of a run whose detail log has
    `result_samples_per_second` 2000.4.
    How to fix: submit both logs as LoadGen wrote them for the run.
    Data used: none (the field correspondence is LoadGen's log format).
    """
    yield from _findings(ctx, rules, settings=False)


@check("PF023", "summary-detail-settings-differ", "result", stricter=True, when=_disagreeing)
def summary_detail_settings_differ(ctx, rules):
    """A summary log's run-length settings differ from those of its detail log.

    What it checks: `min_duration (ms)`, `max_duration (ms)`, `min_query_count` and `max_query_count`
    under "Test Parameters Used" of the summary equal the detail log's `effective_*` values, for the
    performance and accuracy runs.
    Why: as PF022, but published LoadGen 6.0.9 summaries differ from their own detail log in these lines
    (v6.0 open NVIDIA Jetson-Thor), so they are reported apart, as a likely problem.
    Failing example: `min_duration (ms): 0` in a summary whose detail log says 600000.
    How to fix: submit both logs as LoadGen wrote them for the run.
    Data used: none.
    """
    yield from _findings(ctx, rules, settings=True)


#: keys LoadGen writes once per run: the settings it applied and the results it computed (published logs
#: repeat only messages, logger counters and the generated_* / power_* keys of power runs)
RECORD_PREFIXES = ("result_", "effective_", "early_stopping_")
_IS_RECORD = methodcaller("startswith", RECORD_PREFIXES)  # (a key's test, for filter)


@check("PF024", "detail-log-record-key-repeated", "result", stricter=True)
def detail_log_record_key_repeated(ctx, rules):
    """A result or setting is written twice in a detail log.

    What it checks: no `result_*`, `effective_*` or `early_stopping_*` key appears twice in the
    detail log of the performance or accuracy run.
    Why: LoadGen writes each of them once per run; readers differ on which copy they use (the official
    checker keeps the first), so a second copy lets a log say two things about its own result
    (stricter than the official checker, which warns and reads the first).
    Failing example: a second `result_samples_per_second` line with a higher value.
    How to fix: submit the detail log as LoadGen wrote it.
    Data used: none.
    """
    if ctx.scenario is None:
        return
    for what, parsed in (("performance", ctx.perf), ("accuracy", ctx.accuracy.detail)):
        if parsed is None or parsed.log is None:
            continue
        duplicates = parsed.log.duplicates
        if not duplicates:
            continue
        repeated = sorted(filter(_IS_RECORD, set(duplicates)))  # (a log repeats its messages hundreds of times)
        if repeated:
            yield finding(parsed.rel, f"{what} detail log writes {', '.join(repeated[:5])} more than once",
                          expected="each result and setting once", actual=f"{len(repeated)} key(s) repeated",
                          hint="submit the detail log LoadGen wrote", keys=repeated)


_BOUNDS: dict[tuple[int, str], tuple[object, Bounds]] = {}  # (id(rules), model) -> (rules, bounds)


def _bounds(ctx, rules) -> Bounds:
    """The round's and the model's bounds of PF025 (made once per round and model)."""
    key = (id(rules), ctx.mlperf_model)
    known = _BOUNDS.get(key)
    if known is not None and known[0] is rules:
        return known[1]
    model = rules.models.get(ctx.mlperf_model)
    band = rules.offline_rate_duration_band
    window = rules.power_window_band
    bounds = Bounds(tuple(band) if band else None, rules.server_completed_over_scheduled_max,
                    rules.run_record_tolerance, model.inferred_tokens_per_sample if model else None,
                    tuple(window) if window else None, rules.power_window_slack_s)
    if len(_BOUNDS) > 256:
        _BOUNDS.clear()
    _BOUNDS[key] = (rules, bounds)
    return bounds


@check("PF025", "result-inconsistent-with-run", "result", stricter=True)
def result_inconsistent_with_run(ctx, rules):
    """The reported figure does not follow from the rest of its own detail log.

    What it checks: the performance run's detail log against itself (`checker/metrics/run_record.py`).
    Offline: `result_samples_per_second` times `result_max_latency_ns` (the time the last sample completed)
    equals the samples issued within `offline_rate_duration_band`. Server: `result_completed_samples_per_sec`
    is at most `server_completed_over_scheduled_max` times `result_scheduled_samples_per_sec`; the scheduled
    rate is (samples - 1) / `generated_query_duration`; the completed rate lies between (samples - 1) over
    the last scheduled time plus `result_max_latency_ns` and samples over it plus `result_min_latency_ns`;
    `result_completed_tokens_per_second` / completed rate (tokens per sample) equals
    `result_token_throughput_with_loadgen_overhead` / scheduled rate. SingleStream: `early_stopping_latency_ss`
    lies between the 90th percentile (token runs: first-token) and the largest latency, the p99 estimate
    `early_stopping_latency_ms` is at least the 99th percentile, `result_qps_without_loadgen_overhead` is 1 /
    `result_mean_latency_ns`. MultiStream: `early_stopping_latency_ms` lies between the 99th per-query
    percentile and the largest per-query latency. Every run: min <= p50 <= ... <= p99.9 <= max and the mean
    within min..max (sample, per-query and first-token latencies). gptj's inferred token rates are the
    sample rate times `inferred_tokens_per_sample`. Offline, Server and SingleStream: the run's duration as
    the result implies it (last completion; samples / completed rate; queries / issue rate) lies within
    `power_window_band` times the window LoadGen stamps around every run (`power_begin`, `power_end`), so a
    rate edited together with the latencies it follows from shows too. Relations other than the two bands
    hold within `run_record_tolerance`.
    Why: LoadGen computes the result from these counts and timings in the same run (official-checker.md
    section 4), so a figure edited alike in the summary and the detail log (which PF022 cannot see) no longer
    matches the run it claims to describe (stricter than the official checker, which reads the figure as
    written).
    Failing example: `result_samples_per_second` raised by half in both logs of an Offline run; a
    SingleStream `early_stopping_latency_ss` lowered below `result_90.00_percentile_latency_ns`.
    How to fix: submit the logs LoadGen wrote.
    Data used: `offline_rate_duration_band`, `server_completed_over_scheduled_max`, `run_record_tolerance`,
    `power_window_band`, `power_window_slack_s`, `models.*.inferred_tokens_per_sample`.
    """
    log = ctx.perf.log if ctx.scenario is not None and ctx.perf is not None else None
    if log is None:
        return
    for item in contradictions(log, _bounds(ctx, rules)):
        yield finding(ctx.perf.rel, item.message, expected=item.expected, actual=item.actual,
                      hint="submit the logs LoadGen wrote", key=item.key)




@check("PF026", "token-rate-inconsistent-with-output-length", "result", stricter=True)
def token_rate_inconsistent_with_output_length(ctx, rules):
    """A token rate implies more (or fewer) output tokens per sample than the model writes.

    What it checks: an Offline `result_tokens_per_second` or a Server `result_completed_tokens_per_second`
    divided by the run's sample rate (`result_samples_per_second`, `result_completed_samples_per_sec`) is
    the performance run's mean output tokens per sample. It must lie within `tokens_per_sample_band` times
    the accuracy run's `TOKENS_PER_SAMPLE` (accuracy.txt) or, where accuracy.txt prints none, within the
    round's TEST09 bounds on performance-mode output length (gpt-oss-120b: 1150.38-1406.02), or, for models
    with neither (llama3.1-8b, whisper), within `tokens_per_sample_band` times the median output length
    the model's other performance runs on the same system measured (its sibling scenarios' runs and the
    result's own compliance runs, such as TEST01's performance run), or, last, for models whose accuracy.txt
    states the output length in characters (llama3.1-8b: `gen_len` over `gen_num`), within that length
    over the model's `output_chars_per_token` band. A result with none of these is not checked.
    Why: the same model on the same dataset writes answers of the same length in both runs (the shared
    subsets: 0.993-1.007 times), and LoadGen does not log an Offline run's token count, so a token rate
    edited in both logs shows only here (stricter than the official checker, which reads the rate as
    written; rules-v6 TEST09 bounds performance-mode output length for gpt-oss-120b).
    Failing example: `result_tokens_per_second` raised by half in both logs of a llama2-70b Offline run
    whose accuracy.txt says `'tokens_per_sample': 291.2`; of a whisper Offline run whose TEST01
    performance run logs 63.5 tokens per sample.
    How to fix: submit the logs LoadGen wrote.
    Data used: `tokens_per_sample_band`, `accuracy_patterns.TOKENS_PER_SAMPLE`, `models.*.compliance_tests`,
    `models.*.output_chars_per_token`, `accuracy_patterns.GEN_LEN` / `GEN_NUM`,
    `audits/TEST09/spec.yaml` (`output_length` of the round).
    """
    log = ctx.perf.log if ctx.scenario is not None and ctx.perf is not None else None
    model = rules.models.get(ctx.mlperf_model)
    if log is None or model is None or not any(key in log and rate_key in log for key, rate_key in REPORTED_TOKEN_RATES):
        return  # a run that logs no token rate (checked without decoding a value): accuracy.txt is not read
    reference = _accuracy_tokens_per_sample(ctx, rules)
    band = rules.tokens_per_sample_band
    if reference is not None and band:
        low, high, source = reference * band[0], reference * band[1], f"{band[0]:g}-{band[1]:g} x the accuracy " \
            f"run's TOKENS_PER_SAMPLE {reference:g}"
    elif "TEST09" in model.compliance_tests and (bounds := test09_bounds(rules.round, ctx.mlperf_model)):
        (low, high), source = bounds, "the round's TEST09 output-length bounds"
    elif ctx.output_lengths and band:
        import statistics  # (with fractions and decimal: imported where a run needs it, rarely)

        middle = statistics.median(length for _, length in ctx.output_lengths)
        low, high = middle * band[0], middle * band[1]
        source = (f"{band[0]:g}-{band[1]:g} x {middle:.6g}, the median output length of the model's other "
                  f"performance runs on this system: " + ", ".join(f"{rel} {length:.6g}"
                                                                 for rel, length in ctx.output_lengths))
    elif model.output_chars_per_token and (chars := _accuracy_chars_per_sample(ctx, rules)) is not None:
        slow, fast = model.output_chars_per_token
        low, high = chars / fast, chars / slow
        source = (f"the accuracy run's {chars:.6g} characters per sample (gen_len / gen_num) at "
                  f"{slow:g}-{fast:g} characters per token")
    else:
        return
    for key, rate_key in REPORTED_TOKEN_RATES:
        tokens, samples = log.get(key), log.get(rate_key)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in (tokens, samples)):
            continue
        per = tokens / samples
        if not low <= per <= high:
            yield finding(ctx.perf.rel, f"{key} {tokens:g} over {rate_key} {samples:g} is {per:.6g} output tokens "
                          f"per sample, outside {low:.6g}-{high:.6g} ({source})", expected=f"{low:.6g}-{high:.6g}",
                          actual=f"{per:.6g}", hint="submit the logs LoadGen wrote", key=key)


def _accuracy_figure(ctx, rules, metric: str) -> float | None:
    """A positive figure accuracy.txt reports under ``metric`` (the round's pattern), or None."""
    pattern = rules.accuracy_patterns.get(metric)
    text = ctx.accuracy.accuracy_txt
    if not pattern or not text:
        return None
    found = read_accuracy(_lines_with(text, pattern), {metric: pattern}, [(metric, 0.0)], []).values.get(metric)
    try:
        value = float(found) if found is not None else None
    except ValueError:
        return None
    return value if value and value > 0 else None


def _lines_with(text: str, pattern: str) -> str:
    """The part of ``text`` whose first match of ``pattern`` is the text's own: its lines holding the text every
    line the pattern matches must contain (``accuracy_metrics._compiled``), found with ``str.find`` instead of
    one regex search per line (accuracy.txt of v6.0 mixtral holds 2,250 progress-bar lines). Each part runs
    from a line feed to a line feed (always line boundaries, whatever else ``str.splitlines`` splits at), so
    its lines are whole lines of ``text``, in order; a pattern without such a text gets the whole text."""
    literal = _compiled(pattern)[1]
    if not literal:
        return text
    parts = []
    at = text.find(literal)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        if end < 0:
            end = len(text)
        parts.append(text[start:end])
        at = text.find(literal, end)
    return "\n".join(parts)


def _accuracy_tokens_per_sample(ctx, rules) -> float | None:
    return _accuracy_figure(ctx, rules, TOKENS_METRIC)


def _accuracy_chars_per_sample(ctx, rules) -> float | None:
    chars, samples = _accuracy_figure(ctx, rules, "GEN_LEN"), _accuracy_figure(ctx, rules, "GEN_NUM")
    return chars / samples if chars is not None and samples is not None else None


TOKENS_METRIC = "TOKENS_PER_SAMPLE"


CHECKS = (summary_detail_mismatch, summary_detail_settings_differ, detail_log_record_key_repeated,
          result_inconsistent_with_run, token_rate_inconsistent_with_output_length)
