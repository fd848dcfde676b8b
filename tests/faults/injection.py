"""Fault injection into real published results: a mirror of a shared round and one fault class at a time.

The mirror is a tree of hard links to the shared files (made once per round, no data copied). A fault
replaces a file by unlinking its link and writing a new file, so the shared original is never written;
undoing it links the original back. Each fault class is applied to every result it applies to at once
(one change per result), the mirror is checked, and each faulted result is looked up for a new coded
finding.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Callable

PERF = "performance/run_1"


class Mirror:
    """Hard links to every file of ``src`` under ``dest``; ``replace`` and ``restore`` never write ``src``."""

    def __init__(self, src: str, dest: str):
        self.src, self.root = src, dest
        self.changed: list[str] = []
        for folder, dirs, files in os.walk(src):
            rel = os.path.relpath(folder, src)
            os.makedirs(os.path.join(dest, rel), exist_ok=True)
            for name in files:
                source = os.path.join(folder, name)
                target = os.path.join(dest, rel, name)
                if os.path.islink(source):
                    os.symlink(os.readlink(source), target)
                else:
                    os.link(source, target)
            for name in dirs:
                if os.path.islink(os.path.join(folder, name)):
                    os.symlink(os.readlink(os.path.join(folder, name)), os.path.join(dest, rel, name))

    def read(self, rel: str) -> bytes | None:
        path = os.path.join(self.root, rel)
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as handle:
            return handle.read()

    def replace(self, rel: str, content: bytes | None) -> None:
        """Write ``content`` at ``rel`` as a new file (None: remove it)."""
        path = os.path.join(self.root, rel)
        if os.path.lexists(path):
            os.unlink(path)  # the shared original keeps its own link
        if content is not None:
            with open(path, "wb") as handle:
                handle.write(content)
        self.changed.append(rel)

    def restore(self) -> None:
        for rel in dict.fromkeys(self.changed):
            path = os.path.join(self.root, rel)
            if os.path.lexists(path):
                os.unlink(path)
            source = os.path.join(self.src, rel)
            if os.path.lexists(source):
                os.link(source, path)
        self.changed = []


@dataclass(frozen=True)
class Result:
    """A result of the mirror as the faults need it."""

    rid: str  # result id, relative to the root
    scenario: str  # canonical scenario of the folder
    division: str
    mlperf_model: str
    rules: object  # the round's RoundRules


@dataclass(frozen=True)
class FaultClass:
    name: str
    codes: frozenset[str]  # the codes that name this fault
    apply: Callable[[Mirror, Result], bool]  # False: does not apply to this result
    note: str = ""


# ------------------------------------------------------------------------------------------ helpers

_LINE = re.compile(rb'^(:::MLLOG \{"key": "(?P<key>[^"]+)", "value": )(?P<value>[^,]+)(?P<rest>,.*)$', re.M)


def _detail_value(text: bytes, key: str) -> bytes | None:
    for match in _LINE.finditer(text):
        if match.group("key").decode() == key:
            return match.group("value")
    return None


def _set_detail(text: bytes, key: str, value: bytes) -> bytes:
    done = False

    def swap(match):
        nonlocal done
        if match.group("key").decode() != key or done:
            return match.group(0)
        done = True
        return match.group(1) + value + match.group("rest")
    return _LINE.sub(swap, text)


def _number(raw: bytes) -> float | None:
    try:
        return float(raw.decode().strip().strip('"'))
    except ValueError:
        return None


def _better(key: str, value: float) -> float:
    """A better result: 1.5x the throughput, or 1/1.5 the latency."""
    return value / 1.5 if "latency" in key else value * 1.5


def _fmt(value: float, like: bytes) -> bytes:
    text = like.decode().strip()
    if re.fullmatch(r"-?\d+", text):
        return str(int(round(value))).encode()
    return repr(round(value, 6)).encode()


def _reported_key(detail: bytes, result: Result) -> str | None:
    """The detail-log key of the reported figure: the key of the scenario the log was run in (an
    Interactive folder holds a Server log, an inferred result its source scenario's log)."""
    from checker.results import result_key

    raw = _detail_value(detail, "effective_scenario")
    scenario = raw.decode().strip().strip('"') if raw else result.scenario
    if scenario not in result.rules.result_fields:
        return None
    return result_key(result.rules, result.mlperf_model, scenario)


_SUMMARY_LINE = re.compile(r"^(?P<head>[ *]*(?P<label>[^:\n]+?)\s*:\s*)(?P<value>[-+0-9.eE]+)[ \t]*$", re.M)


def _summary_values(text: str, key: str) -> list[re.Match]:
    """Every summary line whose label names the detail key ``key`` (a summary may show a figure twice,
    e.g. "90.0th percentile latency (ns)" and "90.00 percentile latency (ns)")."""
    from checker.metrics.log_digest import detail_key

    return [m for m in _SUMMARY_LINE.finditer(text) if detail_key(m.group("label").strip()) == key]


def _edit_result(mirror: Mirror, result: Result, in_summary: bool, in_detail: bool) -> bool:
    """The reported value made 1.5x better in the summary, the detail log or both (the same figure; every
    summary line that shows it)."""
    run = f"{result.rid}/{PERF}"
    detail, summary = mirror.read(f"{run}/mlperf_log_detail.txt"), mirror.read(f"{run}/mlperf_log_summary.txt")
    if detail is None or summary is None:
        return False
    key = _reported_key(detail, result)
    raw = _detail_value(detail, key) if key else None
    value = _number(raw) if raw is not None else None
    text = summary.decode("utf-8", "replace")
    matches = _summary_values(text, key) if key else []
    if value is None or not matches:
        return False
    new = _better(key, value)
    if in_detail:
        mirror.replace(f"{run}/mlperf_log_detail.txt", _set_detail(detail, key, _fmt(new, raw)))
    if in_summary:
        for match in reversed(matches):
            shown = str(int(round(new))) if "." not in match.group("value") else f"{new:.2f}"
            text = text[:match.start("value")] + shown + text[match.end("value"):]
        mirror.replace(f"{run}/mlperf_log_summary.txt", text.encode())
    return True


def _edit_both_logs(mirror: Mirror, result: Result, key: str, summary_label: str, change: Callable) -> bool:
    """Change ``key`` in the detail log and the summary line ``summary_label`` the same way."""
    run = f"{result.rid}/{PERF}"
    detail, summary = mirror.read(f"{run}/mlperf_log_detail.txt"), mirror.read(f"{run}/mlperf_log_summary.txt")
    if detail is None or summary is None:
        return False
    raw = _detail_value(detail, key)
    if raw is None:
        return False
    new = change(raw)
    mirror.replace(f"{run}/mlperf_log_detail.txt", _set_detail(detail, key, new))
    pattern = re.compile(rf"^(\s*{re.escape(summary_label)}\s*:\s*)(.*)$", re.M)
    plain = new.decode().strip('"')
    mirror.replace(f"{run}/mlperf_log_summary.txt",
                   pattern.sub(lambda m: m.group(1) + plain, summary.decode("utf-8", "replace"), count=1).encode())
    return True


def _file_fault(rel_of: Callable[[Result], str], change: Callable[[bytes], bytes | None]):
    def apply(mirror: Mirror, result: Result) -> bool:
        rel = rel_of(result)
        content = mirror.read(rel)
        if content is None:
            return False
        mirror.replace(rel, change(content))
        return True
    return apply


def _accuracy_moved(to: Callable[[float, float], float]):
    """The first target metric of the benchmark, found in accuracy.txt with the round's own pattern, moved
    to ``to(value, target)``: just below its target, or written on another scale."""
    def apply(mirror: Mirror, result: Result) -> bool:
        rel = f"{result.rid}/accuracy/accuracy.txt"
        text = mirror.read(rel)
        model = result.rules.models.get(result.mlperf_model)
        # the first bound of the rules (a bound only the official checker applies, such as dlrm-v3's NE
        # lower bound, points the wrong way: moving below it is a better model)
        targets = [t for t in model.accuracy if getattr(t, "source", "both") != "official"] if model else []
        if text is None or not targets:
            return False
        target = targets[0]
        pattern = result.rules.accuracy_patterns.get(target.metric)
        decoded = text.decode("utf-8", "replace")
        match = next((m for m in re.finditer(pattern, decoded, re.M)), None) if pattern else None
        if match is None:
            return False
        try:
            value = float(match.group(1))
        except (ValueError, IndexError):
            return False
        new = f"{to(value, target.target):.6f}"
        mirror.replace(rel, (decoded[:match.start(1)] + new + decoded[match.end(1):]).encode())
        return True
    return apply


def _closed_early(content: bytes) -> bytes | None:
    """The log's complete entries before its first 4096 characters minus one, closed as a valid JSON list:
    entries removed instead of the official truncation (None: no complete entry to keep)."""
    head = content[:4096].decode("utf-8", "replace")
    ends = [m.end() for m in re.finditer(r"\}\s*,", head)]
    if len(ends) < 2:
        return None
    return (head[:ends[-2]].rstrip().rstrip(",") + "\n]\n").encode()


def _log_closed_early(mirror: Mirror, result: Result) -> bool:
    rel = f"{result.rid}/accuracy/mlperf_log_accuracy.json"
    content = mirror.read(rel)
    cut = _closed_early(content) if content else None
    if cut is None:
        return False
    mirror.replace(rel, cut)
    return True


def _seed_plus_one(raw: bytes) -> bytes:
    return str(int(raw.decode().strip()) + 1).encode()


def _other_scenario(scenario: str) -> bytes:
    return b'"Offline"' if scenario != "Offline" else b'"Server"'


def _repeat_result(mirror: Mirror, result: Result) -> bool:
    """A second copy of the result line with a better value, written first (where the official reader looks)."""
    rel = f"{result.rid}/{PERF}/mlperf_log_detail.txt"
    detail = mirror.read(rel)
    key = _reported_key(detail, result) if detail is not None else None
    raw = _detail_value(detail, key) if key else None
    value = _number(raw) if raw is not None else None
    if value is None:
        return False
    line = next(m for m in _LINE.finditer(detail) if m.group("key").decode() == key)
    fake = line.group(1) + _fmt(_better(key, value), raw) + line.group("rest") + b"\n"
    first = detail.index(b":::MLLOG")
    mirror.replace(rel, detail[:first] + fake + detail[first:])
    return True


FAULTS: tuple[FaultClass, ...] = (
    FaultClass("performance detail log emptied", frozenset({"PF003", "PF017", "ST019"}),
               _file_fault(lambda r: f"{r.rid}/{PERF}/mlperf_log_detail.txt", lambda b: b"")),
    FaultClass("performance detail log truncated (first half kept)", frozenset({"PF003", "PF017", "PF022", "PF001"}),
               _file_fault(lambda r: f"{r.rid}/{PERF}/mlperf_log_detail.txt", lambda b: b[: len(b) // 2])),
    FaultClass("performance detail log removed", frozenset({"ST019", "PF003"}),
               _file_fault(lambda r: f"{r.rid}/{PERF}/mlperf_log_detail.txt", lambda b: None)),
    FaultClass("accuracy.txt removed", frozenset({"ST020", "AC003"}),
               _file_fault(lambda r: f"{r.rid}/accuracy/accuracy.txt", lambda b: None)),
    FaultClass("accuracy log emptied", frozenset({"AC015"}),
               _file_fault(lambda r: f"{r.rid}/accuracy/mlperf_log_accuracy.json", lambda b: b"")),
    FaultClass("accuracy log truncated (cut at 3000 bytes)", frozenset({"AC015"}),
               _file_fault(lambda r: f"{r.rid}/accuracy/mlperf_log_accuracy.json", lambda b: b[:3000])),
    FaultClass("accuracy log closed early as a valid list (entries removed)", frozenset({"AC015"}), _log_closed_early),
    FaultClass("result line duplicated with a better value", frozenset({"PF024"}), _repeat_result),
    FaultClass("result edited in the summary only", frozenset({"PF022"}),
               lambda m, r: _edit_result(m, r, in_summary=True, in_detail=False)),
    FaultClass("result edited in the detail log only", frozenset({"PF022"}),
               lambda m, r: _edit_result(m, r, in_summary=False, in_detail=True)),
    FaultClass("test mode swapped (performance run logged as AccuracyOnly)", frozenset({"PF018"}),
               lambda m, r: _edit_both_logs(m, r, "effective_test_mode", "Mode", lambda raw: b'"AccuracyOnly"')),
    FaultClass("scenario swapped", frozenset({"PF015", "PF007", "PF017", "ST016"}),
               lambda m, r: _edit_both_logs(m, r, "effective_scenario", "Scenario",
                                            lambda raw: _other_scenario(r.scenario))),
    FaultClass("seeds changed", frozenset({"PF005"}),
               lambda m, r: _edit_both_logs(m, r, "effective_qsl_rng_seed", "qsl_rng_seed", _seed_plus_one)),
    FaultClass("performance sample count moved below the minimum", frozenset({"PF004"}),
               lambda m, r: _edit_both_logs(m, r, "effective_performance_sample_count", "performance_sample_count",
                                            lambda raw: b"1")),
    FaultClass("min duration moved below the model's minimum", frozenset({"PF009"}),
               lambda m, r: r.rules.min_duration_for(r.mlperf_model) > 0 and _edit_both_logs(
                   m, r, "effective_min_duration_ms", "min_duration (ms)",
                   lambda raw: str(r.rules.min_duration_for(r.mlperf_model) - 1).encode()),
               note="not for a model the round exempts (v6.1 e2e-rag: no minimum)"),
    FaultClass("accuracy moved just below its target", frozenset({"AC001", "AC008", "AC013"}),
               _accuracy_moved(lambda value, target: target - abs(target) * 1e-4)),
    FaultClass("accuracy scale changed (written 100 times smaller)", frozenset({"AC001", "AC008", "AC013"}),
               _accuracy_moved(lambda value, target: value / 100)),
    FaultClass("result edited in both logs", frozenset({"CP006", "CP021", "PF019", "PF006", "PF025", "PF026", "PL001", "PL003"}),
               lambda m, r: _edit_result(m, r, in_summary=True, in_detail=True),
               note="caught where a compliance run, an early-stopping estimate or the run's timing contradicts it"),
)


def results_of(report, rules) -> list[Result]:
    """The results of a checked mirror."""
    return [Result(s.id, s.scenario, s.division, s.mlperf_model, rules) for s in report.results]


# ------------------------------------------------------------------------------ endpoint results (v6.1)

def _endpoint_files(mirror: Mirror, result: Result, name: str) -> list[str]:
    """The files called ``name`` of an endpoint result, outside its audit sub-runs and launch scripts,
    shallowest first; [] for a LoadGen result."""
    base = os.path.join(mirror.root, result.rid)
    if os.path.isfile(os.path.join(base, PERF, "mlperf_log_detail.txt")):
        return []
    found = []
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in ("audit", "as_run"))
        if name in files:
            found.append(os.path.relpath(os.path.join(folder, name), mirror.root))
    return sorted(found, key=lambda rel: (rel.count("/"), rel))


def _edit_json(change: Callable[[dict, Result], bool], name: str = "result_summary.json", every: bool = False):
    """Apply ``change`` (False: does not apply) to the endpoint result's ``name`` (the first found, or every
    copy), written back as JSON."""
    import json

    def apply(mirror: Mirror, result: Result) -> bool:
        rels = _endpoint_files(mirror, result, name)
        done = False
        for rel in rels if every else rels[:1]:
            data = json.loads(mirror.read(rel))
            if isinstance(data, dict) and change(data, result):
                mirror.replace(rel, json.dumps(data, indent=2).encode())
                done = True
        return done
    return apply


def _set(data: dict, **values) -> bool:
    data.update(values)
    return True


def _halve_duration(data: dict, result: Result) -> bool:
    if not data.get("duration_ns"):
        return False
    data["duration_ns"] = data["duration_ns"] // 2
    return True


def _inflate_rates(data: dict, result: Result) -> bool:
    if data.get("qps") is None:
        return False
    data["qps"] *= 1.5
    if data.get("tps") is not None:
        data["tps"] *= 1.5
    return True


def _ttft_improved(data: dict, result: Result) -> bool:
    """The TTFT estimate the round gates (EP009) made 1.5x better, the rest of the series left alone."""
    key = result.rules.endpoint.latency_percentile.get(result.scenario, "99.0")
    estimates = (data.get("ttft") or {}).get("early_stopping_percentiles") or {}
    key = key if key in estimates else key[:-2] if key.endswith(".0") and key[:-2] in estimates else None
    if key is None or not estimates.get(key):
        return False
    estimates[key] /= 1.5
    return True


def _summary_seeds_changed(data: dict, result: Result) -> bool:
    config = data.get("run_config") or {}
    if config.get("scheduler_random_seed") is None:
        return False
    config["scheduler_random_seed"] += 1
    return True


def _seeds_changed(mirror: Mirror, result: Result) -> bool:
    """The scheduler seed changed alike where the run recorded it and in every config.yaml."""
    done = _edit_json(_summary_seeds_changed)(mirror, result)
    for rel in _endpoint_files(mirror, result, "config.yaml"):
        text = mirror.read(rel).decode("utf-8", "replace")
        new = re.sub(r"(scheduler_random_seed:\s*)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1), text)
        if new != text:
            mirror.replace(rel, new.encode())
            done = True
    return done


def _accuracy_lowered(data: dict, result: Result) -> bool:
    """Every accuracy score 10% lower (the shared results pass their targets by 1-2%); open results have
    no target."""
    scores = [e for e in data.get("accuracy_scores") or [] if isinstance(e.get("score"), (int, float))]
    if result.division == "open" or not scores:
        return False
    for entry in scores:
        entry["score"] *= 0.9
    if isinstance(data.get("average_accuracy"), (int, float)):
        data["average_accuracy"] *= 0.9
    return True


def _coverage_cut(data: dict, result: Result) -> bool:
    """Every accuracy entry scored on half its samples, and saying so consistently."""
    entries = [e for e in data.get("accuracy_scores") or [] if isinstance(e.get("total_samples"), int)
               and e.get("dataset_type") != "performance"]
    if not entries:
        return False
    for entry in entries:
        half = entry["total_samples"] // 2
        entry["total_samples"] = half
        if isinstance(entry.get("breakdown"), dict):
            entry["breakdown"]["total_samples"] = half
        counts = entry.get("response_counts") or {}
        for key in ("issued", "scored"):
            if isinstance(counts.get(key), int):
                counts[key] = half
    return True


def _audit_edited(data: dict, result: Result) -> bool:
    """The audit's measured qps doubled in its verdict file (what an output cache gives), `passed` kept."""
    if not isinstance(data.get("audit_qps"), (int, float)):
        return False
    data["audit_qps"] *= 2
    data["passed"] = True
    return True


def _audit_files(mirror: Mirror, result: Result) -> list[str]:
    base = os.path.join(mirror.root, result.rid, "audit")
    return sorted(os.path.relpath(os.path.join(base, n), mirror.root) for n in os.listdir(base)
                  if n.startswith("audit_") and n.endswith(".json")) if os.path.isdir(base) else []


def _edit_audit(mirror: Mirror, result: Result) -> bool:
    import json

    done = False
    for rel in _audit_files(mirror, result):
        data = json.loads(mirror.read(rel))
        if isinstance(data, dict) and _audit_edited(data, result):
            mirror.replace(rel, json.dumps(data, indent=2).encode())
            done = True
    return done


def _truncate_summary(mirror: Mirror, result: Result) -> bool:
    rels = _endpoint_files(mirror, result, "result_summary.json")
    if not rels:
        return False
    content = mirror.read(rels[0])
    mirror.replace(rels[0], content[: len(content) // 2])
    return True


def _remove_configs(mirror: Mirror, result: Result) -> bool:
    rels = _endpoint_files(mirror, result, "config.yaml")
    for rel in rels:
        mirror.replace(rel, None)
    return bool(rels)


ENDPOINT_FAULTS: tuple[FaultClass, ...] = (
    FaultClass("endpoint: duration_ns halved", frozenset({"EP005", "EP013"}), _edit_json(_halve_duration)),
    FaultClass("endpoint: failed queries", frozenset({"EP004"}),
               _edit_json(lambda d, r: "n_samples_failed" in d and _set(d, n_samples_failed=3))),
    FaultClass("endpoint: run interrupted (state, complete)", frozenset({"EP003"}),
               _edit_json(lambda d, r: "state" in d and _set(d, state="interrupted", complete=False))),
    FaultClass("endpoint: seeds changed (run record and config.yaml)", frozenset({"EP007", "EP008"}), _seeds_changed),
    FaultClass("endpoint: accuracy 10% lower (below target)", frozenset({"EP010", "EP011"}),
               _edit_json(_accuracy_lowered, "accuracy_results.json")),
    FaultClass("endpoint: accuracy dataset coverage halved", frozenset({"EP012"}),
               _edit_json(_coverage_cut, "accuracy_results.json")),
    FaultClass("endpoint: gated TTFT estimate 1.5x better", frozenset({"EP018", "EP009"}), _edit_json(_ttft_improved)),
    FaultClass("endpoint: qps and tps 1.5x in result_summary.json", frozenset({"EP013"}), _edit_json(_inflate_rates)),
    FaultClass("endpoint: audit qps doubled, verdict kept passed", frozenset({"EP014"}), _edit_audit),
    FaultClass("endpoint: result_summary.json truncated", frozenset({"EP001"}), _truncate_summary),
    FaultClass("endpoint: config.yaml removed", frozenset({"EP002"}), _remove_configs),
)
