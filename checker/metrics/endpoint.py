"""Pure maths over parsed endpoint results (no IO): recomputed qps / tps, seeds, accuracy on a common
scale, the output-caching audit verdict, and the value a result reports.

Facts (endpoints-v61.md 1.2, 1.3, 1.12): durations are in ns; with the legacy LoadGen window
(``legacy_loadgen_window_duration_ns``, poisson runs) qps = (completed - 1) / window, otherwise
qps = completed / ``duration_ns``; tps = output-token total / the same window; scorers report either
fractions or percentages; the audit passes when both phases completed at least requested x (1 - t) and
audit_qps < ref_qps x (1 + t), strictly.
"""

from __future__ import annotations

import re

NS = 1e9


def relative_gap(a: float, b: float) -> float:
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


def expected_metrics(summary) -> tuple[str, dict[str, float | None]]:
    """(name of the window used, {"qps": ..., "tps": ...}) recomputed from the summary's counts."""
    completed = summary.n_samples_completed
    legacy = summary.legacy_loadgen_window_duration_ns
    osl = summary.output_sequence_lengths
    tokens = osl.total if osl is not None else None
    if legacy:
        window, name = legacy, "legacy LoadGen window"
        qps = (completed - 1) / (legacy / NS) if completed is not None else None
    else:
        window, name = summary.duration_ns, "measured duration"
        qps = completed / (window / NS) if completed is not None and window else None
    tps = tokens / (window / NS) if tokens is not None and window else None
    return name, {"qps": qps, "tps": tps}


def seeds_of_config(config) -> dict[str, int | None]:
    """The scheduler and dataloader seeds a config.yaml declares (both seed-name generations)."""
    runtime = config.runtime
    return {"scheduler": runtime.scheduler_random_seed if runtime.scheduler_random_seed is not None
            else runtime.scheduler_rng_seed,
            "dataloader": runtime.dataloader_random_seed if runtime.dataloader_random_seed is not None
            else runtime.sample_index_rng_seed}


def run_seeds(ep) -> tuple[tuple | None, dict[str, int | None]]:
    """The seeds the run used: ``result_summary.json`` ``run_config`` (recorded at run time) when it has
    them, else ``config.yaml``. Returns ((file, description, pointers), seeds) or (None, {})."""
    recorded = ep.summary.run_config if ep.summary else None
    if recorded is not None and (recorded.scheduler_random_seed is not None or recorded.dataloader_random_seed is not None):
        seeds = {"scheduler": recorded.scheduler_random_seed, "dataloader": recorded.dataloader_random_seed}
        pointers = {k: f"/run_config/{k}_random_seed" for k in seeds}
        return (ep.summary_rel, "result_summary.json run_config, recorded by the run", pointers), seeds
    if ep.config is not None:
        seeds = seeds_of_config(ep.config)
        if any(v is not None for v in seeds.values()):
            pointers = {k: f"/settings/runtime/{k}_random_seed" for k in seeds}
            return (ep.config_rel, "config.yaml", pointers), seeds
    return None, {}


def _scale_of(entry, config, scales: dict[str, str]) -> tuple[str, str]:
    method = config.eval_method(entry.dataset_name) if config is not None and entry.dataset_name else None
    if method in scales:
        return scales[method], f"scorer {method}"
    value = entry.score
    return ("fraction" if isinstance(value, (int, float)) and value <= 1.0 else "percent"), \
        f"scorer {method or 'unknown'}, scale judged from the value"


def to_scale(value: float, scale: str, target_scale: str) -> float:
    if scale == target_scale:
        return value
    return value * 100.0 if target_scale == "percent" else value / 100.0


def scored_accuracy(ep, target_scale: str, scales: dict[str, str]) -> tuple[float | None, str]:
    """The accuracy of the run on the target's scale: the sample-weighted mean of the accuracy entries
    (``dataset_type: performance`` excluded), each converted from its scorer's scale."""
    entries = [e for e in ep.accuracy.scored if isinstance(e.score, (int, float)) and not isinstance(e.score, bool)]
    if not entries:
        return None, "no accuracy entry with a numeric score"
    total = weight = 0.0
    notes = []
    for entry in entries:
        scale, why = _scale_of(entry, ep.config, scales)
        samples = entry.total_samples or 1
        total += to_scale(float(entry.score), scale, target_scale) * samples
        weight += samples
        notes.append(f"{entry.dataset_name} {entry.score:.6g} ({scale}, {why})")
    return total / weight, "; ".join(notes)


def _phase_qps(summary) -> float | None:
    if summary is None or summary.n_samples_completed is None or not summary.duration_ns:
        return None
    return summary.n_samples_completed / (summary.duration_ns / NS)


VERIFY_LINE = re.compile(r"Performance check pass:\s*(True|False)")


def audit_verdict(audit, threshold: float | None, tol: float):
    """Problems of one audit, recomputed from its sub-runs: tuples (path, message, expected, actual, pointer)."""
    result = audit.result
    if result is None:
        return [(audit.rel, "the audit file has no usable content", "an audit result", "none", None)]
    out = []
    if result.test != audit.name:
        out.append((audit.rel, f"test is {result.test!r}, the file is the {audit.name} audit", audit.name,
                    result.test, "/test"))
    used = result.threshold
    if threshold is not None and (used is None or abs(used - threshold) > 1e-12):
        out.append((audit.rel, f"threshold {used} is not the round's {threshold} for this scenario", threshold,
                    used, "/threshold"))
    t = threshold if threshold is not None else (used or 0.0)
    phases = {name: (rel, summary) for name, rel, summary in audit.phases}
    measured = {}
    names = list(phases)
    for label, (rel, summary) in phases.items():
        if summary is None:
            out.append((rel, f"the {label} sub-run's result_summary.json is missing", "the sub-run's files",
                        "missing", None))
            continue
        measured[label] = (summary, _phase_qps(summary))
        if summary.state != "complete" or summary.complete is not True:
            out.append((rel, f"the {label} sub-run is not complete", "complete", summary.state, "/state"))
        if summary.n_samples_failed:
            out.append((rel, f"{summary.n_samples_failed} queries of the {label} sub-run failed", 0,
                        summary.n_samples_failed, "/n_samples_failed"))
    if len(names) < 2 or any(n not in measured for n in names[:2]):
        if len(names) < 2:
            out.append((audit.rel, "the audit's reference and audited sub-runs are missing", "both sub-runs",
                        "missing", None))
        return out
    (ref, ref_qps), (aud, aud_qps) = measured[names[0]], measured[names[1]]
    completion_ok = True
    for label, summary, qps, key, completed_key, requested_key in (
            (names[0], ref, ref_qps, "ref_qps", "ref_completed", "ref_requested"),
            (names[1], aud, aud_qps, "audit_qps", "audit_completed", "audit_requested")):
        stated = getattr(result, key)
        if qps is None or stated is None or relative_gap(stated, qps) > tol:
            out.append((audit.rel, f"{key} {stated} is not the {label} sub-run's measured {qps}", qps, stated,
                        f"/{key}"))
        if getattr(result, completed_key) != summary.n_samples_completed:
            out.append((audit.rel, f"{completed_key} {getattr(result, completed_key)} is not the {label} sub-run's "
                        f"{summary.n_samples_completed}", summary.n_samples_completed, getattr(result, completed_key),
                        f"/{completed_key}"))
        requested = getattr(result, requested_key) or summary.n_samples_issued
        if requested is not None and summary.n_samples_completed is not None and \
                summary.n_samples_completed < requested * (1 - t):
            completion_ok = False
            out.append((audit.rel, f"the {label} sub-run completed {summary.n_samples_completed} of {requested} "
                        f"requested samples", f">= {requested * (1 - t):g}", summary.n_samples_completed,
                        f"/{completed_key}"))
    passes = completion_ok and ref_qps is not None and aud_qps is not None and aud_qps < ref_qps * (1 + t)
    if ref_qps is not None and aud_qps is not None and not aud_qps < ref_qps * (1 + t):
        out.append((audit.rel, f"audited qps {aud_qps:.6g} is not below the reference {ref_qps:.6g} x {1 + t:g}: "
                    f"outputs are served from a cache", f"< {ref_qps * (1 + t):.6g}", f"{aud_qps:.6g}", "/audit_qps"))
    if result.passed is not passes:
        out.append((audit.rel, f"passed is {result.passed}, the recomputed verdict is {passes}", passes,
                    result.passed, "/passed"))
    if audit.verify_rel is not None:
        match = VERIFY_LINE.search(audit.verify_text or "")
        line = match.group(1) == "True" if match else None
        if line is not passes:
            out.append((audit.verify_rel, f"the verification line says {line}, the recomputed verdict is {passes}",
                        f"Performance check pass: {passes}", (audit.verify_text or "").strip()[:60], None))
    return out


def endpoint_value(summary, metric: str, unit: str | None) -> tuple[float | None, str]:
    """The value a result reports (as the published v6.1 table does): qps, tps, or the mean latency in the
    unit's time scale (ms, or s for ``Latency (s)``)."""
    if summary is None:
        return None, "no result_summary.json"
    if metric == "tps":
        return summary.tps, "tps"
    if metric == "qps":
        return summary.qps, "qps"
    latency = summary.latency
    if latency is None or latency.avg is None:
        return None, "latency.avg"
    scale = 1e9 if unit == "Latency (s)" else 1e6
    return latency.avg / scale, f"latency.avg / {scale:g}"


SERIES = ("ttft", "tpot", "latency", "output_sequence_lengths")


def series_contradictions(summary) -> list[tuple[str, str, str, str]]:
    """(pointer, message, expected, actual) for every statistic of a result summary's series that
    contradicts its siblings: the percentiles must rise from ``min`` to ``max`` and hold ``avg`` between
    those two, and an early-stopping estimate, an order statistic at a higher rank than the percentile of
    the same name, is at least that percentile and at most ``max`` (every real v6.1 summary holds)."""
    out = []
    for name in SERIES:
        s = getattr(summary, name, None)
        if s is None or s.empty:
            continue
        pct = {float(k): v for k, v in (s.percentiles or {}).items() if v is not None and _is_float(k)}
        chain = ([("min", s.min)] if s.min is not None else []) + [
            (f"percentiles/{_key(s.percentiles, p)}", pct[p]) for p in sorted(pct)] + (
            [("max", s.max)] if s.max is not None else [])
        for (k1, v1), (k2, v2) in zip(chain, chain[1:]):
            if v2 < v1:
                out.append((f"/{name}/{k2}", f"{name} {k2} {v2:g} is below {k1} {v1:g}", f">= {v1:g}", f"{v2:g}"))
        if s.avg is not None and s.min is not None and s.max is not None and not s.min <= s.avg <= s.max:
            out.append((f"/{name}/avg", f"{name} avg {s.avg:g} lies outside min {s.min:g} .. max {s.max:g}",
                        f"{s.min:g}-{s.max:g}", f"{s.avg:g}"))
        for key, value in (s.early_stopping_percentiles or {}).items():
            if value is None or not _is_float(key):
                continue
            floor = pct.get(float(key))
            if floor is not None and value < floor:
                out.append((f"/{name}/early_stopping_percentiles/{key}",
                            f"{name} early-stopping p{key} {value:g} is below its percentile {floor:g}, though the "
                            "estimate is an order statistic of a higher rank", f">= {floor:g}", f"{value:g}"))
            if s.max is not None and value > s.max:
                out.append((f"/{name}/early_stopping_percentiles/{key}",
                            f"{name} early-stopping p{key} {value:g} exceeds max {s.max:g}", f"<= {s.max:g}",
                            f"{value:g}"))
    return out


def _is_float(text) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def _key(table, p: float) -> str:
    return next(k for k in table if _is_float(k) and float(k) == p)
