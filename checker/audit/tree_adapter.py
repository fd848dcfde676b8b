"""Build :class:`~checker.models.audit_inputs.Submission` rows from a submission tree or a JSON file.

A stop-gap until the main engine's parsed tree feeds the audit logic: it reads only what the
audit needs, and never raises on a bad input file — each problem becomes a warning line and the
file (or result) is skipped. (This module does IO; it sits in ``audit/`` because the engine will
replace it, see ``checker/loaders/`` for the permanent readers.)

Tree layout accepted: a round root (``<division>/<submitter>/{systems,results}``), a division root
(``<submitter>/{systems,results}``) or a submitter root (``{systems,results}``). For every
``systems/<sys>.json`` the results under ``results/<sys>/<model>/<scenario>/performance/run_1/``
are read from ``mlperf_log_detail.txt`` (``:::MLLOG {json}`` lines):

* Offline: ``result_tokens_per_second`` (or ``result_inferred_tokens_per_second``) as tokens/s
  with ``result_samples_per_second`` kept as samples/s; otherwise ``result_samples_per_second``.
* Server / Interactive: ``result_completed_tokens_per_second`` (or the ``inferred_`` variant) as
  tokens/s, with ``result_completed_samples_per_sec``; otherwise ``result_completed_samples_per_sec``.
* SingleStream: ``early_stopping_latency_ss`` (else the 90th percentile), ns → ms.
* MultiStream: ``early_stopping_latency_ms`` (else the 99th per-query percentile), ns → ms.
* Inferred results (the copied-log convention of v5.1: the log's ``effective_scenario`` is
  SingleStream while the directory says MultiStream or Offline): ``inferred=True``; MultiStream =
  SingleStream latency × 8, Offline = ``result_qps_without_loadgen_overhead``.
* Power: ``has_power`` when ``performance/power/`` or ``run_1/spl.txt`` exists. The power metric is
  computed as the official checker does (official-checker.md I2–I4): mean of the positive Watts
  of ``spl.txt`` lines strictly inside (power_begin, power_end), no timezone shift; Offline/Server
  report Watts, SingleStream/MultiStream millijoules per query (× 8 for an inferred MultiStream).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from checker.models.audit_inputs import ScenarioResult, Submission, SubmissionSet

MAX_JSON_BYTES = 1 << 20
MAX_LOG_BYTES = 64 << 20
_SCENARIOS = {"offline": "Offline", "server": "Server", "singlestream": "SingleStream",
              "multistream": "MultiStream", "interactive": "Interactive"}
_TIME_FMT = "%m-%d-%Y %H:%M:%S.%f"

Warn = Callable[[str], None]


def _inside(root: Path, p: Path) -> bool:
    try:
        p.resolve().relative_to(root.resolve())
        return True
    except (ValueError, OSError):
        return False


def _read_json(path: Path, warn: Warn) -> dict | None:
    try:
        if path.stat().st_size > MAX_JSON_BYTES:
            warn(f"{path}: skipped, larger than {MAX_JSON_BYTES} bytes")
            return None
        data = json.loads(path.read_bytes().decode("utf-8", errors="replace"))
    except (OSError, ValueError, RecursionError) as exc:
        warn(f"{path}: skipped, not readable JSON ({type(exc).__name__}: {exc})")
        return None
    if not isinstance(data, dict):
        warn(f"{path}: skipped, top level is not an object")
        return None
    return data


def read_detail_log(path: Path, warn: Warn) -> dict[str, object]:
    """The last value of every key of a LoadGen detail log (bad lines are skipped)."""
    out: dict[str, object] = {}
    try:
        if path.stat().st_size > MAX_LOG_BYTES:
            warn(f"{path}: skipped, larger than {MAX_LOG_BYTES} bytes")
            return out
        with open(path, "rb") as fh:
            for raw in fh:
                line = raw.decode("utf-8", errors="replace").strip()
                if not line.startswith(":::MLLOG"):
                    continue
                try:
                    rec = json.loads(line[len(":::MLLOG"):])
                except (ValueError, RecursionError):
                    continue
                if isinstance(rec, dict) and isinstance(rec.get("key"), str):
                    out[rec["key"]] = rec.get("value")
    except OSError as exc:
        warn(f"{path}: skipped, not readable ({exc})")
    return out


def _num(v: object) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        f = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return f if f > 0 and f == f and f != float("inf") else None


def _first(log: dict[str, object], *keys: str) -> tuple[str, float] | None:
    for k in keys:
        v = _num(log.get(k))
        if v is not None:
            return k, v
    return None


def _power(run1: Path, log: dict[str, object], scenario: str, inferred_ms: bool,
           warn: Warn) -> float | None:
    spl = run1 / "spl.txt"
    try:
        begin = dt.datetime.strptime(str(log.get("power_begin")), _TIME_FMT)
        end = dt.datetime.strptime(str(log.get("power_end")), _TIME_FMT)
    except ValueError:
        warn(f"{run1}: power_begin/power_end missing or malformed; power metric not computed")
        return None
    watts: list[float] = []
    try:
        with open(spl, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                p = line.strip().split(",")
                if not p[0].startswith("Time") or len(p) < 4:
                    continue
                try:
                    t = dt.datetime.strptime(p[1], _TIME_FMT)
                    w = float(p[3])
                except ValueError:
                    continue
                if begin < t < end and w > 0:
                    watts.append(w)
    except OSError as exc:
        warn(f"{spl}: not readable ({exc}); power metric not computed")
        return None
    if not watts:
        warn(f"{spl}: no power samples inside the run window; power metric not computed")
        return None
    avg = sum(watts) / len(watts)
    if scenario in ("Offline", "Server", "Interactive"):
        return avg
    q = _num(log.get("result_query_count"))
    if not q:
        return None
    mj = avg * (end - begin).total_seconds() * 1000.0 / q
    return mj * 8 if inferred_ms else mj


def _result(model: str, scen_dir: Path, root: Path, warn: Warn) -> ScenarioResult | None:
    scenario = _SCENARIOS.get(scen_dir.name.casefold())
    if scenario is None:
        warn(f"{scen_dir}: skipped, unknown scenario directory {scen_dir.name!r}")
        return None
    run1 = scen_dir / "performance" / "run_1"
    detail = run1 / "mlperf_log_detail.txt"
    if not detail.is_file() or not _inside(root, detail):
        warn(f"{scen_dir}: skipped, no performance/run_1/mlperf_log_detail.txt")
        return None
    log = read_detail_log(detail, warn)
    eff = _SCENARIOS.get(str(log.get("effective_scenario", "")).casefold(), scenario)
    inferred = eff != scenario and not (scenario == "Interactive" and eff == "Server")
    units, value, sps = None, None, None
    if inferred and eff == "SingleStream" and scenario == "MultiStream":
        got = _first(log, "early_stopping_latency_ss", "result_90.00_percentile_latency_ns")
        if got:
            units, value = "ms", got[1] * 8 / 1e6
    elif inferred and eff == "SingleStream" and scenario == "Offline":
        got = _first(log, "result_qps_without_loadgen_overhead")
        if got:
            units, value = "samples/s", got[1]
    elif inferred:
        warn(f"{scen_dir}: skipped, {scenario} inferred from {eff} is not supported")
        return None
    elif scenario == "Offline":
        tok = _first(log, "result_tokens_per_second", "result_inferred_tokens_per_second")
        smp = _first(log, "result_samples_per_second")
        if tok:
            units, value, sps = "tokens/s", tok[1], smp[1] if smp else None
        elif smp:
            units, value = "samples/s", smp[1]
    elif scenario in ("Server", "Interactive"):
        tok = _first(log, "result_completed_tokens_per_second",
                     "result_inferred_completed_tokens_per_second")
        smp = _first(log, "result_completed_samples_per_sec")
        if tok:
            units, value, sps = "tokens/s", tok[1], smp[1] if smp else None
        elif smp:
            units, value = "samples/s", smp[1]
    elif scenario == "SingleStream":
        got = _first(log, "early_stopping_latency_ss", "result_90.00_percentile_latency_ns")
        if got:
            units, value = "ms", got[1] / 1e6
    elif scenario == "MultiStream":
        got = _first(log, "early_stopping_latency_ms",
                     "result_99.00_percentile_per_query_latency_ns")
        if got:
            units, value = "ms", got[1] / 1e6
    if value is None or units is None:
        warn(f"{detail}: skipped, no result value for {scenario}")
        return None
    has_power = (scen_dir / "performance" / "power").is_dir() or (run1 / "spl.txt").is_file()
    pm = _power(run1, log, scenario, inferred and scenario == "MultiStream", warn) \
        if has_power else None
    try:
        return ScenarioResult(model=model, scenario=scenario, value=value, units=units,
                              inferred=inferred, power_metric=pm, has_power=has_power,
                              samples_per_second=sps)
    except ValidationError as exc:
        warn(f"{detail}: skipped, invalid result ({exc.errors()[0]['msg']})")
        return None


def _submitter_dirs(root: Path) -> list[tuple[str | None, Path]]:
    """(division from the path or None, submitter dir) for every dir holding ``systems/``."""
    out: list[tuple[str | None, Path]] = []
    if (root / "systems").is_dir():
        return [(None, root)]
    for a in sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink()):
        if (a / "systems").is_dir():
            out.append((root.name, a))
            continue
        for b in sorted(p for p in a.iterdir() if p.is_dir() and not p.is_symlink()):
            if (b / "systems").is_dir():
                out.append((a.name, b))
    return out


def submissions_from_tree(root: Path | str, warn: Warn = lambda m: None,
                          round_label: str | None = None) -> list[Submission]:
    """Every system of the tree as a Submission (systems without readable results keep an empty
    result list)."""
    root = Path(root)
    if not root.is_dir():
        warn(f"{root}: not a directory")
        return []
    subs: list[Submission] = []
    for division, sdir in _submitter_dirs(root):
        for js in sorted((sdir / "systems").glob("*.json")):
            if not _inside(root, js):
                warn(f"{js}: skipped, symlink escapes the tree")
                continue
            d = _read_json(js, warn)
            if d is None:
                continue
            sys_id = js.stem
            results: list[ScenarioResult] = []
            rdir = sdir / "results" / sys_id
            if rdir.is_dir():
                for mdir in sorted(p for p in rdir.iterdir() if p.is_dir()):
                    for sc in sorted(p for p in mdir.iterdir() if p.is_dir()):
                        r = _result(mdir.name, sc, root, warn)
                        if r is not None:
                            results.append(r)
            net = {k: str(v) for k, v in d.items()
                   if isinstance(k, str) and (k.startswith("network_") or k.startswith("nic"))
                   and v not in (None, "")}
            is_net = d.get("is_network") in (True, "true", "True", 1, "1")
            try:
                subs.append(Submission(
                    division=str(d.get("division") or division or ""),
                    submitter=str(d.get("submitter") or sdir.name),
                    system_id=sys_id,
                    status=str(d.get("status") or ""),
                    system_type=str(d.get("system_type") or ""),
                    accelerator_model_name=_s(d.get("accelerator_model_name")),
                    accelerators_per_node=d.get("accelerators_per_node"),
                    number_of_nodes=d.get("number_of_nodes", 1),
                    host_processor_model_name=_s(d.get("host_processor_model_name")),
                    host_processors_per_node=d.get("host_processors_per_node"),
                    host_networking=_s(d.get("host_networking")),
                    host_network_card_count=_s(d.get("host_network_card_count")),
                    is_network=is_net,
                    network_config=net if is_net else {},
                    round=round_label,
                    results=tuple(results),
                ))
            except ValidationError as exc:
                warn(f"{js}: skipped, invalid system description ({exc.errors()[0]['msg']})")
    return subs


def _s(v: object) -> str | None:
    return None if v is None else str(v)


def submissions_from_json(path: Path | str, warn: Warn = lambda m: None) -> list[Submission]:
    """A JSON file: a list of Submission objects or ``{"submissions": [...]}`` (see
    :mod:`checker.models.audit_inputs`)."""
    p = Path(path)
    try:
        data = json.loads(p.read_bytes().decode("utf-8", errors="replace"))
        if isinstance(data, list):
            data = {"submissions": data}
        return list(SubmissionSet.model_validate(data).submissions)
    except (OSError, ValueError, RecursionError) as exc:
        msg = exc.errors()[0] if isinstance(exc, ValidationError) else exc
        warn(f"{p}: not a valid submissions file ({msg})")
        return []


def load_submissions(source: Path | str, warn: Warn = lambda m: None,
                     round_label: str | None = None) -> list[Submission]:
    """A tree root or a ``.json`` file."""
    p = Path(source)
    if p.is_file() and p.suffix.casefold() == ".json":
        return submissions_from_json(p, warn)
    return submissions_from_tree(p, warn, round_label)


__all__ = ["load_submissions", "submissions_from_tree", "submissions_from_json",
           "read_detail_log"]
