"""Endpoint-result checks (EP): scenarios measured with ``inference-endpoint`` instead of LoadGen (v6.1+).

The files are parsed once by ``checker/loaders/endpoint.py`` into ``ctx.endpoint``; these checks judge
what the data shows rather than what a file claims: the measured duration, the counts (a failed query is
also counted as completed by the tool), the seeds the run recorded, the early-stopping latency
estimates, the accuracy on each scorer's scale, the qps / tps recomputed from counts, token totals and
the window, and the output-caching audit recomputed from its two sub-runs. Every number comes from the
round file (``endpoint:`` and ``models.*.endpoint``).
"""

from __future__ import annotations

from checker.checks.base import check, finding, is_endpoint
from checker.loaders.audit_spec import load_test_spec
from checker.metrics.endpoint import (
    audit_verdict, expected_metrics, relative_gap, run_seeds, scored_accuracy, seeds_of_config,
    series_contradictions,
)


def test09_bounds(round_name: str, model: str) -> tuple[float, float] | None:
    """The round's TEST09 bounds on the mean output length of ``model`` (audits/TEST09/spec.yaml)."""
    rule = load_test_spec("TEST09").rounds.get(round_name)
    bounds = rule.output_length.get(model) if rule else None
    return (bounds.min, bounds.max) if bounds else None


def _ep(ctx):
    return getattr(ctx, "endpoint", None)


def _model_endpoint(ctx, rules):
    model = rules.models.get(ctx.mlperf_model)
    return model, (model.endpoint if model else None)


def _summary_where(ep) -> str:
    return ep.summary_rel or f"{ep.rel}/performance/result_summary.json"


@check("EP001", "endpoint-file-unparseable", "result", when=is_endpoint)
def endpoint_file_unparseable(ctx, rules):
    """An endpoint result file, or one of its fields, cannot be read.

    What it checks: `config.yaml`, `result_summary.json`, `accuracy_results.json`, `final_snapshot.json`
    and the audit files parse (JSON / YAML within the size limit) and each field the checks read has
    its type (counts and seeds integers, durations in ns, percentiles numbers). A bad field is left out
    and the rest of the file is still checked.
    Why: the official checker treats an unreadable endpoint JSON as empty and crashes on a missing
    YAML (rounds-v6.md 7.2, L14); a truncated or hand-edited file is not evidence.
    Failing example: `performance/result_summary.json` cut off in the middle; `"duration_ns": "600e9"`.
    How to fix: copy the files the tool wrote, unedited.
    Data used: `endpoint.*_files`, `endpoint.max_file_bytes`.
    """
    ep = _ep(ctx)
    if ep is None:
        return
    for problem in ep.problems:
        yield finding(problem.rel, problem.message, expected="a file the endpoint tool writes",
                      actual=problem.message, line=problem.line, pointer=problem.pointer,
                      hint="submit the files exactly as inference-endpoint wrote them")


@check("EP002", "endpoint-file-missing", "result", when=is_endpoint)
def endpoint_file_missing(ctx, rules):
    """An endpoint result lacks its configuration, its result summary, its accuracy or its README.

    What it checks: `config.yaml` (at the scenario root, `performance/run_1/`, `performance/` or
    `accuracy/`), `result_summary.json` (`performance/` or `performance/run_1/`), and in closed and network
    `accuracy/accuracy_results.json`, plus `README.md` in the scenario folder. The layout found is named.
    Why: rounds-v6.md 2.3 and 7.2 (the official checker crashes without `config.yaml`, L14, and finds no
    result in `performance/run_1/`).
    Failing example: a scenario folder with `performance/result_summary.json` but no `config.yaml`.
    How to fix: add the file the endpoint tool wrote for this run.
    Data used: `endpoint.config_files`, `endpoint.summary_files`, `endpoint.accuracy_files`.
    """
    ep = _ep(ctx)
    if ep is None:
        return
    e = rules.endpoint
    wanted = [("config.yaml", ep.config_rel, e.config_files), ("result_summary.json", ep.summary_rel, e.summary_files)]
    if ctx.division != "open":
        wanted.append(("accuracy_results.json", ep.accuracy_rel, e.accuracy_files))
    for name, found, where in wanted:
        if found is None:
            yield finding(f"{ep.rel}/{where[0]}", f"{name} is missing (layout found: {ep.layout})",
                          expected=" or ".join(where), actual="missing",
                          hint=f"copy the run's {name} into the scenario folder")
    if not ctx.measurements.listing.exists or "README.md" not in ctx.measurements.listing.files:
        yield finding(f"{ep.rel}/README.md", "README.md is missing", expected="README.md", actual="missing",
                      hint="describe how the endpoint and the tool were run")


@check("EP003", "endpoint-run-incomplete", "result", when=is_endpoint)
def endpoint_run_incomplete(ctx, rules):
    """The endpoint run did not finish: interrupted, not complete, or samples still in flight.

    What it checks: `result_summary.json` has `state` `complete` and `complete` true, and no more
    samples issued than completed; the final snapshot, when present, agrees (state `complete`, no
    pending task).
    Why: endpoints-v61.md 1.2 and 5 (item 5): `complete` is false after an interrupt or a drain timeout,
    and the figures of such a run are a live snapshot.
    Failing example: `"state": "interrupted"`, or `n_samples_issued` 1000 with 990 completed.
    How to fix: rerun until the tool reports a complete run.
    Data used: none (fields of the file).
    """
    ep = _ep(ctx)
    if ep is None or ep.summary is None:
        return
    s, where = ep.summary, _summary_where(ep)
    if s.state != "complete" or s.complete is not True:
        yield finding(where, f"the run is not complete (state {s.state!r}, complete {s.complete!r})",
                      expected="state complete, complete true", actual=f"{s.state}, {s.complete}",
                      pointer="/state", hint="rerun until the run completes; do not submit an interrupted run")
    if s.n_samples_issued is not None and s.n_samples_completed is not None and s.n_samples_issued > s.n_samples_completed:
        yield finding(where, f"{s.n_samples_issued - s.n_samples_completed} issued samples never completed",
                      expected=f"n_samples_completed >= {s.n_samples_issued}", actual=s.n_samples_completed,
                      pointer="/n_samples_completed", hint="samples still in flight: the run was cut short")
    snap = ep.snapshot
    if snap is not None and (snap.state not in (None, "complete") or (snap.n_pending_tasks or 0) > 0):
        yield finding(ep.snapshot_rel, f"the final snapshot is not complete (state {snap.state!r}, "
                      f"{snap.n_pending_tasks} pending tasks)", expected="state complete, 0 pending tasks",
                      actual=f"{snap.state}, {snap.n_pending_tasks}", pointer="/state",
                      hint="rerun until the run completes")


@check("EP004", "endpoint-failed-queries", "result", when=is_endpoint)
def endpoint_failed_queries(ctx, rules):
    """Queries of the endpoint run failed (the tool counts a failed query as completed too).

    What it checks: `n_samples_failed` is present and 0; with the later keys, `n_samples_dropped` is 0
    and `n_samples_succeeded` equals `n_samples_completed`.
    Why: endpoints-v61.md 1.2 and I5: failed queries count in `n_samples_completed`, so they inflate qps
    and tps; the official checker ignores `n_samples_failed` on the performance run.
    Failing example: `"n_samples_failed": 3` with the qps unchanged.
    How to fix: fix the serving errors and rerun.
    Data used: none (fields of the file). Stricter than the official checker.
    """
    ep = _ep(ctx)
    if ep is None or ep.summary is None:
        return
    s, where = ep.summary, _summary_where(ep)
    if s.n_samples_failed is None:
        yield finding(where, "n_samples_failed is missing: failed queries cannot be ruled out",
                      expected="n_samples_failed: 0", actual="missing", pointer="/n_samples_failed",
                      hint="submit the result_summary.json the tool wrote")
    elif s.n_samples_failed > 0:
        yield finding(where, f"{s.n_samples_failed} queries failed (counted as completed, so qps and tps include them)",
                      expected="0", actual=s.n_samples_failed, pointer="/n_samples_failed",
                      hint="fix the serving errors and rerun")
    if s.n_samples_dropped:
        yield finding(where, f"{s.n_samples_dropped} queries were dropped", expected="0", actual=s.n_samples_dropped,
                      pointer="/n_samples_dropped", hint="fix the serving errors and rerun")
    if s.n_samples_succeeded is not None and s.n_samples_completed is not None \
            and s.n_samples_succeeded < s.n_samples_completed:
        yield finding(where, f"only {s.n_samples_succeeded} of {s.n_samples_completed} completed queries succeeded",
                      expected=s.n_samples_completed, actual=s.n_samples_succeeded, pointer="/n_samples_succeeded",
                      hint="fix the serving errors and rerun")


@check("EP005", "endpoint-run-shorter-than-minimum", "result", stricter=True, when=is_endpoint)
def endpoint_run_shorter_than_minimum(ctx, rules):
    """The measured duration of the endpoint run is below the round's minimum.

    What it checks: `duration_ns` of `result_summary.json` (the measured performance window) against
    the round's minimum duration (the model's, where the round exempts it).
    Why: rules 3 (600 s minimum); endpoints-v61.md 1.11 and I4: the tool stops on the sample count, not
    on `min_duration_ms`, and the official checker only reads the declared value.
    Failing example: `"duration_ns": 300000000000` (300 s) with `min_duration_ms: 600000` declared.
    How to fix: issue enough samples to run at least the minimum duration.
    Data used: `min_duration_ms`, `models.*.min_duration_ms`. Stricter than the official checker.
    """
    ep = _ep(ctx)
    if ep is None or ep.summary is None:
        return
    floor = rules.min_duration_for(ctx.mlperf_model)
    measured = ep.summary.duration_ns
    if measured is None:
        yield finding(_summary_where(ep), "no measured duration (duration_ns is null or missing)",
                      expected=f">= {floor} ms", actual="null", pointer="/duration_ns",
                      hint="a run without a tracked window measured nothing")
    elif measured < floor * 1_000_000:
        yield finding(_summary_where(ep), f"the run measured {measured / 1e9:.1f} s, below the {floor / 1000:g} s minimum",
                      expected=f">= {floor * 1_000_000} ns", actual=measured, pointer="/duration_ns",
                      hint="issue more samples (n_samples_to_issue) so the run lasts the minimum duration")


@check("EP006", "endpoint-min-duration-setting-too-low", "result", when=is_endpoint)
def endpoint_min_duration_setting_too_low(ctx, rules):
    """The endpoint configuration declares a minimum duration below the round's.

    What it checks: `settings.runtime.min_duration_ms` of `config.yaml` against the round's minimum.
    Why: rounds-v6.md 7.5 (G13): the official checker requires min_duration_ms >= 600000.
    Failing example: `min_duration_ms: 60000`.
    How to fix: set min_duration_ms to at least the round's minimum and rerun.
    Data used: `min_duration_ms`, `models.*.min_duration_ms`.
    """
    ep = _ep(ctx)
    if ep is None or ep.config is None:
        return
    floor = rules.min_duration_for(ctx.mlperf_model)
    declared = ep.config.runtime.min_duration_ms
    if declared is None or declared < floor:
        yield finding(ep.config_rel, f"min_duration_ms is {declared}, below the round's {floor}",
                      expected=f">= {floor}", actual=declared, pointer="/settings/runtime/min_duration_ms",
                      hint="set settings.runtime.min_duration_ms and rerun")


@check("EP007", "endpoint-seeds-not-round-seeds", "result", when=is_endpoint)
def endpoint_seeds_not_round_seeds(ctx, rules):
    """The endpoint run did not use the round's seeds.

    What it checks: the scheduler and dataloader (sample index) seeds the run recorded
    (`result_summary.json` `run_config`; `config.yaml` when the summary has none) equal the round's
    schedule and sample-index seeds. 42/42 is the tool's default (no ruleset pinned).
    Why: rounds-v6.md 3.7 and 7.3; endpoints-v61.md 1.8. The official checker reads config.yaml only,
    which can be edited after the run (the HPE v6.1 result recorded 42/42 while its config.yaml shows the
    round's seeds). That result was accepted and published (errors 0); mlpc holds it invalid by the rules,
    and `mlpc report --table-all-results` still reproduces its published row, listed with this code in
    summary_results_notes.md.
    Failing example: `run_config` with `scheduler_random_seed: 42`.
    How to fix: pin the round's ruleset (`submission_ref`) or set the seeds, and rerun.
    Data used: `seeds.sample_index_rng_seed`, `seeds.schedule_rng_seed`. Stricter than the official checker.
    """
    ep = _ep(ctx)
    if ep is None:
        return
    source, seeds = run_seeds(ep)
    want = {"scheduler": rules.seeds.schedule_rng_seed, "dataloader": rules.seeds.sample_index_rng_seed}
    if source is None:
        yield finding(ep.config_rel or _summary_where(ep), "no seeds recorded in result_summary.json or config.yaml",
                      expected=f"scheduler {want['scheduler']}, dataloader {want['dataloader']}", actual="missing",
                      hint="run with the round's ruleset so the seeds are recorded")
        return
    for name, value in seeds.items():
        if value != want[name]:
            yield finding(source[0], f"{name} seed {value} is not the round's {want[name]} (read from {source[1]})",
                          expected=want[name], actual=value, pointer=source[2].get(name),
                          hint="pin submission_ref to the round's ruleset and rerun")


@check("EP008", "endpoint-config-disagrees-with-run", "result", when=is_endpoint)
def endpoint_config_disagrees_with_run(ctx, rules):
    """`config.yaml` says something else than what the run recorded.

    What it checks: the seeds and the load pattern type in `config.yaml` equal the ones
    `result_summary.json` `run_config` recorded at run time; every further copy of `config.yaml` in the
    scenario folder equals the first on those fields.
    Why: the configuration is the evidence of how the run was made; one edited after the run (the HPE
    v6.1 result: config.yaml shows the round's seeds, the run recorded 42/42) misstates it. The official
    checker read the edited file and the row was published; mlpc rejects it (with EP007) and says so in
    summary_results_notes.md when `mlpc report --table-all-results` reproduces the row.
    Failing example: config.yaml `dataloader_random_seed` changed after the run.
    How to fix: submit the config.yaml the tool wrote for this run.
    Data used: none (fields of the files). Stricter than the official checker.
    """
    ep = _ep(ctx)
    if ep is None or ep.config is None:
        return
    configured = seeds_of_config(ep.config)
    recorded = ep.summary.run_config if ep.summary else None
    if recorded is not None:
        ran = {"scheduler": recorded.scheduler_random_seed, "dataloader": recorded.dataloader_random_seed}
        for name, value in ran.items():
            if value is not None and configured.get(name) is not None and configured[name] != value:
                yield finding(ep.config_rel, f"{name} seed {configured[name]} differs from the {value} the run recorded",
                              expected=value, actual=configured[name],
                              pointer=f"/settings/runtime/{name}_random_seed",
                              hint="the run used the seed in result_summary.json run_config; submit its config.yaml")
        pattern = (recorded.load_pattern or {}).get("type")
        declared = ep.config.settings.load_pattern.type if ep.config.settings and ep.config.settings.load_pattern else None
        if pattern and declared and pattern != declared:
            yield finding(ep.config_rel, f"load pattern {declared} differs from the {pattern} the run recorded",
                          expected=pattern, actual=declared, pointer="/settings/load_pattern/type",
                          hint="submit the config.yaml of this run")
    for rel, copy in ep.config_copies:
        if copy is not None and seeds_of_config(copy) != configured:
            yield finding(rel, f"seeds differ from {ep.config_rel}", expected=configured, actual=seeds_of_config(copy),
                          hint="keep one config.yaml, the one the tool wrote")


@check("EP009", "endpoint-latency-over-bound", "result", when=is_endpoint)
def endpoint_latency_over_bound(ctx, rules):
    """An early-stopping latency estimate of the endpoint run is above the scenario's bound.

    What it checks: for a model with TTFT/TPOT limits in Server or Interactive, the early-stopping p99 of
    `ttft` and `tpot` (ns) is below the limits of that scenario (strict); for a model with a latency
    bound (qwen3-vl Server 12 s, Interactive 1.5 s), the early-stopping p99 of `latency` is within it.
    A missing estimate (early stopping disabled, or fewer samples than its floor, 662 for p99) is a finding.
    Why: rounds-v6.md 3.5 and 7.5 (the official endpoint path gates the same estimates); endpoints-v61.md 1.10.
    Failing example: deepseek-r1 Interactive with `ttft.early_stopping_percentiles["99.0"]` 1.6e9.
    How to fix: lower the load (target_qps) until the latencies meet the bounds.
    Data used: `models.*.token_latency`, `models.*.endpoint.latency_bounds_ns`, `endpoint.latency_percentile`,
    `endpoint.early_stopping_floor`.
    """
    ep = _ep(ctx)
    if ep is None or ep.summary is None or ctx.scenario is None:
        return
    model, mep = _model_endpoint(ctx, rules)
    if model is None:
        return
    key = rules.endpoint.latency_percentile.get(ctx.scenario, "99.0")
    floor = rules.endpoint.early_stopping_floor.get(key)
    gates = []
    limits = model.token_latency.get(ctx.scenario)
    if limits is not None:
        gates += [("ttft", limits.ttft_ns, True), ("tpot", limits.tpot_ns, True)]
    bound = mep.latency_bounds_ns.get(ctx.scenario) if mep else None
    if bound is not None:
        gates.append(("latency", bound, False))
    for series_name, limit, strict in gates:
        series = getattr(ep.summary, series_name)
        estimates = (series.early_stopping_percentiles if series else None) or {}
        value = estimates.get(key)
        if value is None and key.endswith(".0"):  # "99" and "99.0" alike (endpoints-v61.md 5, item 3)
            value = estimates.get(key[:-2])
        pointer = f"/{series_name}/early_stopping_percentiles/{key}"
        if value is None:
            why = ("early stopping is disabled" if series is None or series.early_stopping_percentiles is None
                   else f"fewer samples than the {floor} an estimate needs" if floor else "no estimate")
            yield finding(_summary_where(ep), f"no early-stopping p{key} estimate of {series_name} ({why})",
                          expected=f"an estimate {'<' if strict else '<='} {limit} ns", actual="null", pointer=pointer,
                          hint="keep early stopping enabled and run enough samples")
        elif value >= limit if strict else value > limit:
            yield finding(_summary_where(ep), f"{series_name} early-stopping p{key} {value / 1e6:.1f} ms is over the "
                          f"{ctx.scenario} bound {limit / 1e6:g} ms", expected=f"{'<' if strict else '<='} {limit}",
                          actual=value, pointer=pointer, hint="lower the load until the latency bound is met")


def _accuracy_findings(ctx, rules, established: bool):
    ep = _ep(ctx)
    if ep is None or ep.accuracy is None or ctx.division == "open":
        return
    model, mep = _model_endpoint(ctx, rules)
    if mep is None or mep.accuracy is None or mep.accuracy.established != established:
        return
    spec = mep.accuracy
    bound = next((t for t in model.targets_for(ctx.scenario) if t.metric == spec.metric), None)
    if bound is None:
        return
    target = bound.target
    value, detail = scored_accuracy(ep, spec.scale, rules.endpoint.score_scales)
    if value is None:
        yield finding(ep.accuracy_rel, f"no numeric accuracy score ({detail})", expected=f"{spec.metric} >= {target}",
                      actual="none", pointer="/accuracy_scores", hint="score the accuracy dataset with the tool")
    elif value < target:
        yield finding(ep.accuracy_rel, f"{spec.metric} {value:.6g} < {target} ({detail})",
                      expected=f">= {target} ({bound.expression or spec.metric})", actual=f"{value:.6g}",
                      pointer="/accuracy_scores", hint="accuracy below the round's target")


@check("EP010", "endpoint-accuracy-below-target", "result", stricter=True, when=is_endpoint)
def endpoint_accuracy_below_target(ctx, rules):
    """The endpoint result's accuracy is below the model's target.

    What it checks: the scores of `accuracy_results.json` without the `dataset_type: performance` entries
    (inline scoring of the performance run), each brought to the target's scale (the scorer's scale:
    fraction or percent), sample-weighted over the datasets, against the round's target for the
    scenario. Closed and network only.
    Why: rules 5 (accuracy targets); endpoints-v61.md 5 (item 12). The official endpoint path only gates
    qwen3-vl, as a warning.
    Failing example: deepseek-r1 with `score` 79.9 (percent) against 80.5446.
    How to fix: fix the model or serving stack; the result cannot be submitted in closed.
    Data used: `models.*.accuracy` (the scenario's target), `models.*.endpoint.accuracy` (which metric, its
    scale), `endpoint.score_scales`. Stricter than the official checker.
    """
    yield from _accuracy_findings(ctx, rules, True) or ()


@check("EP011", "endpoint-accuracy-below-unestablished-target", "result", stricter=True, when=is_endpoint)
def endpoint_accuracy_below_unestablished_target(ctx, rules):
    """The endpoint result's accuracy is below a target the round never related to the endpoint scorer.

    What it checks: as EP010, for models whose endpoint scorer reports a number the round never compared
    with the LoadGen target (wan-2.2-t2v-a14b: the vbench scorer's fraction against the vbench_score
    target; the official endpoint path does not gate it).
    Why: rules 5; endpoints-v61.md 2.6 (accuracy gate). The published Dell wan SingleStream result
    scores 0.69710 against 69.7752.
    Failing example: wan with `score` 0.60.
    How to fix: check the scorer and the model; ask the review whether the target applies.
    Data used: `models.*.endpoint.accuracy` (`established: false`), `endpoint.score_scales`.
    """
    yield from _accuracy_findings(ctx, rules, False) or ()


@check("EP012", "endpoint-accuracy-coverage", "result", when=is_endpoint)
def endpoint_accuracy_coverage(ctx, rules):
    """The endpoint accuracy run did not cover the accuracy dataset.

    What it checks: the `total_samples` of the accuracy entries (not `dataset_type: performance`) add up
    to the model's accuracy sample count for the scenario; each entry is `complete` and lost no
    response (`response_counts.missing` 0, `scored` = `issued`).
    Why: rounds-v6.md 3.4 and 7.5 (F10: the official checker compares the same sum); endpoints-v61.md 1.3.
    Failing example: qwen3-vl Interactive scored on 4000 of 8000 samples.
    How to fix: score the whole accuracy dataset.
    Data used: `models.*.endpoint.accuracy_sample_count` (per scenario), `models.*.accuracy_sample_count`,
    `models.*.dataset_size`.
    """
    ep = _ep(ctx)
    model, mep = _model_endpoint(ctx, rules)
    if ep is None or ep.accuracy is None or mep is None:
        return  # a model with no endpoint block is EP016's
    want = mep.accuracy_sample_count.get(ctx.scenario or "") or model.accuracy_sample_count or model.dataset_size
    entries = ep.accuracy.scored
    if want is not None:
        total = sum(e.total_samples or 0 for e in entries)
        if total != want:
            yield finding(ep.accuracy_rel, f"accuracy scored on {total} samples, the dataset has {want}",
                          expected=want, actual=total, pointer="/accuracy_scores",
                          hint="score every sample of the accuracy dataset")
    for index, entry in enumerate(entries):
        name = entry.dataset_name or f"entry {index}"
        if entry.complete is not True:
            yield finding(ep.accuracy_rel, f"{name}: scoring is not complete", expected="complete: true",
                          actual=entry.complete, pointer=f"/accuracy_scores/{index}/complete",
                          hint="rerun the scorer until it completes")
        counts_of = entry.response_counts
        if counts_of is not None and ((counts_of.missing or 0) > 0 or
                                      (counts_of.issued is not None and counts_of.scored != counts_of.issued)):
            yield finding(ep.accuracy_rel, f"{name}: {counts_of.scored} of {counts_of.issued} responses scored, "
                          f"{counts_of.missing} missing", expected="every issued response scored",
                          actual=f"{counts_of.scored}/{counts_of.issued}", pointer=f"/accuracy_scores/{index}/response_counts",
                          hint="fix the failed responses and score again")


@check("EP013", "endpoint-metric-inconsistent", "result", when=is_endpoint)
def endpoint_metric_inconsistent(ctx, rules):
    """The reported qps or tps does not follow from the run's counts, tokens and window.

    What it checks: `qps` = (completed - 1) / `legacy_loadgen_window_duration_ns` when the legacy window
    is set, else completed / `duration_ns`; `tps` = output-token total / the same window; `duration_ns` is at
    least the legacy window and the longest latency (`latency.max`), which lie within it; and, when the
    final snapshot is present, its counters (completed, failed, tracked duration, legacy window) equal
    the summary's. Relative tolerance from the round file.
    Why: endpoints-v61.md 1.2, 1.5 and 5 (item 4): the published result is this qps or tps.
    Failing example: `qps` raised by 10% with the counts unchanged.
    How to fix: submit the files the tool wrote.
    Data used: `endpoint.metric_rel_tolerance`.
    """
    ep = _ep(ctx)
    if ep is None or ep.summary is None:
        return
    tol = rules.endpoint.metric_rel_tolerance
    s, where = ep.summary, _summary_where(ep)
    window_name, expected = expected_metrics(s)
    for name in ("qps", "tps"):
        reported = getattr(s, name)
        want = expected.get(name)
        if reported is None and want is None:
            continue
        if reported is None or want is None or relative_gap(reported, want) > tol:
            yield finding(where, f"{name} {reported} does not follow from the counts and the {window_name} ({want})",
                          expected=want, actual=reported, pointer=f"/{name}",
                          hint="qps and tps are recomputed from counts, output tokens and the window")
    duration = s.duration_ns
    longest = s.latency.max if s.latency is not None else None
    for name, inner in (("legacy_loadgen_window_duration_ns", s.legacy_loadgen_window_duration_ns),
                        ("latency.max", longest)):
        if duration is not None and inner is not None and inner > duration * (1 + tol):
            yield finding(where, f"duration_ns {duration} is shorter than {name} {inner:g}, which lies within it",
                          expected=f">= {inner:g}", actual=duration, pointer="/duration_ns",
                          hint="the performance window holds the legacy window and every sample's latency")
    snap = ep.snapshot
    if snap is None:
        return
    pairs = (("tracked_samples_completed", s.n_samples_completed, "n_samples_completed"),
             ("tracked_samples_failed", s.n_samples_failed, "n_samples_failed"),
             ("tracked_duration_ns", s.duration_ns, "duration_ns"),
             ("legacy_loadgen_window_duration_ns", s.legacy_loadgen_window_duration_ns, "legacy_loadgen_window_duration_ns"))
    for counter, value, key in pairs:
        recorded = snap.counter(counter)
        if recorded is None or value is None:
            continue
        if relative_gap(value, recorded) > tol:
            yield finding(where, f"{key} {value} differs from the final snapshot's {counter} {recorded:g}",
                          expected=recorded, actual=value, pointer=f"/{key}",
                          hint=f"{ep.snapshot_rel} is the tool's own record of the run")


@check("EP014", "endpoint-audit-failed", "result", when=is_endpoint)
def endpoint_audit_failed(ctx, rules):
    """The output-caching audit (TEST04) is missing, or its recomputed verdict is a failure.

    What it checks: a model whose compliance tests include a required audit (TEST04) has
    `audit/audit_<name>.json`; for every audit present, the verdict is recomputed from its two sub-runs
    (`reference/`, `output_caching/` result summaries): each phase completed at least requested x
    (1 - threshold) samples, audit qps < reference qps x (1 + threshold), the threshold is the round's
    for the scenario, the JSON's figures match the sub-runs, and `passed` and the verification line
    agree with the recomputed verdict. `passed: true` alone is not evidence.
    Why: rounds-v6.md 7.6; endpoints-v61.md 1.12 and I7 (the official checker trusts `passed`).
    Failing example: `audit_qps` lowered in the JSON below the sub-run's measured qps.
    How to fix: rerun the audit against a restarted server and submit its whole `audit/` folder.
    Data used: `models.*.compliance_tests`, `endpoint.audit_tests`, `endpoint.required_audits`,
    `endpoint.audit_thresholds`, `endpoint.audit_subruns`, `endpoint.metric_rel_tolerance`.
    Stricter than the official checker.
    """
    ep = _ep(ctx)
    if ep is None:
        return
    e = rules.endpoint
    model = rules.models.get(ctx.mlperf_model)
    have = {a.name: a for a in ep.audits}
    for test in (model.compliance_tests if model else []):
        name = e.audit_tests.get(test)
        if name and test in e.required_audits and name not in have:
            yield finding(f"{ep.rel}/{e.audit_dir}/audit_{name}.json", f"{test} audit file is missing",
                          expected=f"{e.audit_dir}/audit_{name}.json", actual="missing",
                          hint=f"run the {name} audit and copy its audit/ folder")
    threshold = e.audit_thresholds.get(ctx.scenario or "")
    for audit in ep.audits:
        for problem in audit_verdict(audit, threshold, e.metric_rel_tolerance):
            yield finding(problem[0], problem[1], expected=problem[2], actual=problem[3], pointer=problem[4],
                          hint="the audit verdict is recomputed from its reference and output_caching runs")


@check("EP015", "endpoint-output-length-out-of-range", "result", when=is_endpoint)
def endpoint_output_length_out_of_range(ctx, rules):
    """The mean output length of the endpoint run is outside the TEST09 bounds.

    What it checks: for a model with TEST09 bounds, `output_sequence_lengths.avg` of the performance run
    lies in [low, high] (inclusive); an empty block (no tokenizer) is a finding. All divisions.
    Why: rounds-v6.md 7.6 (TEST09 for endpoint results, open included) and 5.3.
    Failing example: gpt-oss-120b with `output_sequence_lengths.avg` 900.
    How to fix: do not truncate outputs; give the tool a tokenizer (`tokenizer_name`).
    Data used: `models.*.compliance_tests`, `audits/TEST09/spec.yaml` (`output_length` of the round).
    """
    ep = _ep(ctx)
    if ep is None or ep.summary is None:
        return
    model = rules.models.get(ctx.mlperf_model)
    if model is None or "TEST09" not in model.compliance_tests:
        return
    bounds = test09_bounds(rules.round, ctx.mlperf_model)
    if bounds is None:
        return
    low, high = bounds
    osl = ep.summary.output_sequence_lengths
    avg = osl.avg if osl else None
    if avg is None:
        yield finding(_summary_where(ep), "output_sequence_lengths is empty (no tokenizer): TEST09 cannot be verified",
                      expected=f"mean in [{low}, {high}]", actual="empty", pointer="/output_sequence_lengths",
                      hint="set model_params.tokenizer_name so the tool counts output tokens")
    elif not low <= avg <= high:
        yield finding(_summary_where(ep), f"mean output length {avg:.2f} outside [{low}, {high}]",
                      expected=f"[{low}, {high}]", actual=f"{avg:.2f}", pointer="/output_sequence_lengths/avg",
                      hint="outputs were truncated or padded")


@check("EP016", "endpoint-model-not-allowed", "result", when=is_endpoint)
def endpoint_model_not_allowed(ctx, rules):
    """The model may not be measured through an inference endpoint in this round.

    What it checks: the model of an endpoint result has an `endpoint:` block in the round file.
    Why: rounds-v6.md 3.8 and 7.5 (ENDPOINTS_ALLOWED_MODELS).
    Failing example: endpoint files under `resnet50/Offline/`.
    How to fix: measure the model with LoadGen.
    Data used: `models.*.endpoint`.
    """
    ep = _ep(ctx)
    if ep is None:
        return
    model, mep = _model_endpoint(ctx, rules)
    if model is not None and mep is None:
        allowed = sorted(name for name, m in rules.models.items() if m.endpoint)
        yield finding(ep.rel, f"{ctx.mlperf_model} may not be measured through an inference endpoint",
                      expected=", ".join(allowed), actual=ctx.mlperf_model, hint="measure it with LoadGen")


@check("EP017", "endpoint-scenario-mismatch", "result", when=is_endpoint)
def endpoint_scenario_mismatch(ctx, rules):
    """The endpoint run's configuration is not a run of the folder's scenario.

    What it checks: `config.yaml` `type` (or `benchmark_mode` for `type: submission`) and
    `settings.load_pattern.type` fit the scenario folder (Offline: offline / max_throughput; Server and
    Interactive: online / poisson; SingleStream: online / concurrency or agentic); a model with TTFT/TPOT
    limits streams in Server and Interactive and reports `ttft` and `tpot`.
    Why: rounds-v6.md 7.5 (scenario mapping); endpoints-v61.md 1.7 and 5 (items 2 and 9).
    Failing example: an online poisson run copied into `Offline/`.
    How to fix: put the run under the scenario it measured.
    Data used: `endpoint.config_types`, `endpoint.load_patterns`, `endpoint.streaming_scenarios`,
    `models.*.token_latency`.
    """
    ep = _ep(ctx)
    if ep is None or ep.config is None or ctx.scenario is None:
        return
    e, cfg = rules.endpoint, ep.config
    kind = cfg.benchmark_mode if cfg.type == "submission" else cfg.type
    types = e.config_types.get(ctx.scenario, [])
    if types and kind not in types:
        yield finding(ep.config_rel, f"type {kind!r} is not a {ctx.scenario} run", expected=" or ".join(types),
                      actual=kind, pointer="/type", hint="put the run under the scenario it measured")
    pattern = cfg.settings.load_pattern.type if cfg.settings and cfg.settings.load_pattern else None
    patterns = e.load_patterns.get(ctx.scenario, [])
    if patterns and pattern not in patterns:
        yield finding(ep.config_rel, f"load pattern {pattern!r} is not a {ctx.scenario} load",
                      expected=" or ".join(patterns), actual=pattern, pointer="/settings/load_pattern/type",
                      hint="put the run under the scenario it measured")
    model = rules.models.get(ctx.mlperf_model)
    if model and ctx.scenario in model.token_latency and ctx.scenario in e.streaming_scenarios:
        if cfg.streaming not in ("on", "true"):
            yield finding(ep.config_rel, f"streaming is {cfg.streaming!r}: TTFT and TPOT are not measured",
                          expected="on", actual=cfg.streaming, pointer="/model_params/streaming",
                          hint="run Server and Interactive with model_params.streaming: on")

@check("EP018", "endpoint-latency-statistics-inconsistent", "result", stricter=True, when=is_endpoint)
def endpoint_latency_statistics_inconsistent(ctx, rules):
    """A latency or output-length statistic of the endpoint run contradicts the others of its series.

    What it checks: in `result_summary.json`, for `ttft`, `tpot`, `latency` and `output_sequence_lengths`:
    `min` <= every percentile, in rising order, <= `max`; `avg` within `min`..`max`; every early-stopping
    estimate at least the percentile of the same name and at most `max`.
    Why: the tool computes them from the same sorted samples (endpoints-v61.md 1.2); an early-stopping
    estimate is an order statistic of a higher rank than the plain percentile. An estimate lowered to meet a
    TTFT/TPOT bound (EP009 reads it) without the rest of the series no longer fits the run (stricter than
    the official checker, which reads the estimate as written). All 17 real v6.1 summaries hold.
    Failing example: `ttft.early_stopping_percentiles["99.0"]` 2.0e8 below `ttft.percentiles["99.0"]` 3.0e8.
    How to fix: submit the files the tool wrote.
    Data used: none (fields of the file).
    """
    ep = _ep(ctx)
    if ep is None or ep.summary is None:
        return
    for pointer, message, expected, actual in series_contradictions(ep.summary):
        yield finding(_summary_where(ep), message, expected=expected, actual=actual, pointer=pointer,
                      hint="the series' statistics come from the same samples; submit the files the tool wrote")


CHECKS = (
    endpoint_file_unparseable, endpoint_file_missing, endpoint_run_incomplete, endpoint_failed_queries,
    endpoint_run_shorter_than_minimum, endpoint_min_duration_setting_too_low, endpoint_seeds_not_round_seeds,
    endpoint_config_disagrees_with_run, endpoint_latency_over_bound, endpoint_accuracy_below_target,
    endpoint_accuracy_below_unestablished_target, endpoint_accuracy_coverage, endpoint_metric_inconsistent,
    endpoint_audit_failed, endpoint_output_length_out_of_range, endpoint_model_not_allowed,
    endpoint_scenario_mismatch, endpoint_latency_statistics_inconsistent,
)
