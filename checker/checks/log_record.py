"""The detail log is the record (PF022-PF025): a summary log that disagrees with its detail log, a
detail log that writes its own result twice, a rate that does not follow from the run's own timing.

``mlperf_log_summary.txt`` is LoadGen's digest of ``mlperf_log_detail.txt``. The official checkers and
the checks here read the detail log; a summary that says something else was edited or copied from
another run, and anyone who reads it (a reviewer, a results table, a compliance script) is misled.
"""

from __future__ import annotations

from checker.checks.base import check, finding
from checker.metrics.log_digest import disagreements


def _runs(ctx):
    """(what, ParsedLog) of the result's performance and accuracy runs that have a detail log."""
    if ctx.scenario is None:
        return
    for what, parsed in (("performance", ctx.perf), ("accuracy", ctx.accuracy.detail)):
        if parsed is not None and parsed.log is not None and parsed.summary_rel is not None:
            yield what, parsed


def _findings(ctx, settings: bool):
    for what, parsed in _runs(ctx):
        if parsed.summary is None:
            if not settings:
                yield finding(parsed.summary_rel, f"{what} summary log unreadable: {parsed.summary_error}",
                              expected="a LoadGen summary log", actual=parsed.summary_error or "unreadable")
            continue
        for item in disagreements(parsed.summary, parsed.log):
            if item.setting != settings:
                continue
            yield finding(parsed.summary_rel,
                          f"{what} summary says {item.label} = {item.summary}, its detail log says "
                          f"{item.key} = {item.detail}", expected=f"{item.detail} (the detail log)",
                          actual=item.summary, hint="submit the summary and detail logs LoadGen wrote for this run",
                          run=what, key=item.key)


@check("PF022", "summary-detail-mismatch", "result", stricter=True)
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
    yield from _findings(ctx, settings=False)


@check("PF023", "summary-detail-settings-differ", "result", stricter=True)
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
    yield from _findings(ctx, settings=True)


#: keys LoadGen writes once per run: the settings it applied and the results it computed (published logs
#: repeat only messages, logger counters and the generated_* / power_* keys of power runs)
RECORD_PREFIXES = ("result_", "effective_", "early_stopping_")


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
        repeated = sorted({k for k in parsed.log.duplicates if k.startswith(RECORD_PREFIXES)})
        if repeated:
            yield finding(parsed.rel, f"{what} detail log writes {', '.join(repeated[:5])} more than once",
                          expected="each result and setting once", actual=f"{len(repeated)} key(s) repeated",
                          hint="submit the detail log LoadGen wrote", keys=repeated)


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@check("PF025", "result-inconsistent-with-run", "result", stricter=True)
def result_inconsistent_with_run(ctx, rules):
    """The reported rate does not follow from the rest of its own detail log.

    What it checks: an Offline run's `result_samples_per_second` times its `result_max_latency_ns` (the
    time the last sample completed) equals the samples it issued (`generated_samples_per_query`, else
    `effective_samples_per_query`) within `offline_rate_duration_band`; a Server run's
    `result_completed_samples_per_sec` is at most `server_completed_over_scheduled_max` times its
    `result_scheduled_samples_per_sec`.
    Why: LoadGen computes these rates from the run's timing, so a rate edited in the logs (in the
    summary and the detail log alike, which PF022 cannot see) no longer matches the run it claims to
    describe (stricter than the official checker, which reads the rate as written).
    Failing example: `result_samples_per_second` raised by half in both logs of an Offline run.
    How to fix: submit the logs LoadGen wrote.
    Data used: `offline_rate_duration_band`, `server_completed_over_scheduled_max`.
    """
    log = ctx.perf.log if ctx.scenario is not None and ctx.perf is not None else None
    if log is None:
        return
    scenario = log.get("effective_scenario")
    band = rules.offline_rate_duration_band
    if scenario == "Offline" and band:
        rate, last = _number(log.get("result_samples_per_second")), _number(log.get("result_max_latency_ns"))
        issued = _number(log.get("generated_samples_per_query")) or _number(log.get("effective_samples_per_query"))
        if rate and last and issued:
            ratio = rate * last / 1e9 / issued
            if not band[0] <= ratio <= band[1]:
                yield finding(ctx.perf.rel, f"result_samples_per_second {rate:g} over {last / 1e9:g} s is "
                              f"{rate * last / 1e9:g} samples, {ratio:.3f} times the {issued:g} issued",
                              expected=f"{band[0]:g}-{band[1]:g} times the samples issued", actual=f"{ratio:.3f}",
                              hint="submit the logs LoadGen wrote", ratio=round(ratio, 6))
    limit = rules.server_completed_over_scheduled_max
    if scenario == "Server" and limit:
        done = _number(log.get("result_completed_samples_per_sec"))
        planned = _number(log.get("result_scheduled_samples_per_sec"))
        if done and planned and done > planned * limit:
            yield finding(ctx.perf.rel, f"the run completed {done:g} samples/s but scheduled only {planned:g}",
                          expected=f"<= {limit:g} x result_scheduled_samples_per_sec", actual=f"{done / planned:.3f} x",
                          hint="submit the logs LoadGen wrote", ratio=round(done / planned, 6))


CHECKS = (summary_detail_mismatch, summary_detail_settings_differ, detail_log_record_key_repeated,
          result_inconsistent_with_run)
