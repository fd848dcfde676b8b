"""Find and parse the files of an endpoint result (a scenario measured with ``inference-endpoint``).

Submitters of the round put the files in different places: ``config.yaml`` at the scenario root,
``performance/run_1/`` or only under ``accuracy/``; ``result_summary.json`` under ``performance/`` or
``performance/run_1/``. The round file lists the candidate paths in order of preference
(``endpoint.*_files``) and names the layout each summary location stands for (``endpoint.layouts``).

Each file is read once, under a size limit, and validated into its record of
``checker/models/endpoint.py``. Nothing here raises on bad input: unreadable files, truncated JSON,
invalid YAML and mistyped fields become ``Problem`` entries (path, JSON pointer, message) that the
endpoint checks report; a mistyped field is dropped and the rest of the file is still used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from checker.models.core_module import ValidationError

from checker.loaders import yaml_text
from checker.loaders.fs import Sandbox, parse_json_text
if TYPE_CHECKING:  # imported where an endpoint result is read: a round without one does not build these models
    from pydantic import BaseModel

    from checker.models.endpoint import AccuracyResults, AuditResult, EndpointConfig, RunSummary, Snapshot
    from checker.models.rules import EndpointRules  # (a check holds the round file as a record: no pydantic)

MAX_FIELD_ERRORS = 20  # a file with more bad fields than this is reported as one problem


@dataclass(frozen=True)
class Problem:
    """A file, or one field of it, that could not be used."""

    rel: str
    message: str
    pointer: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class AuditRun:
    """One audit: its verdict file, its verification line and the two sub-runs it compares."""

    name: str
    rel: str  # audit/audit_<name>.json
    result: AuditResult | None
    verify_rel: str | None = None
    verify_text: str | None = None
    phases: tuple[tuple[str, str, RunSummary | None], ...] = ()  # (phase, summary rel, parsed summary)


@dataclass(frozen=True)
class EndpointCtx:
    """Everything an endpoint scenario folder holds, parsed once."""

    rel: str  # the scenario folder
    layout: str
    config_rel: str | None = None
    config: EndpointConfig | None = None
    config_copies: tuple[tuple[str, EndpointConfig | None], ...] = ()  # further config.yaml files found
    summary_rel: str | None = None
    summary: RunSummary | None = None
    accuracy_rel: str | None = None
    accuracy: AccuracyResults | None = None
    snapshot_rel: str | None = None
    snapshot: Snapshot | None = None
    audits: tuple[AuditRun, ...] = ()
    problems: tuple[Problem, ...] = field(default=())
    json_duplicates: tuple = ()  # (file, checker.loaders.json_keys.DuplicateKey) of the JSON files read

    def problem_files(self) -> set[str]:
        return {p.rel for p in self.problems}


def is_endpoint(box: Sandbox, rel: str, rules: EndpointRules) -> bool:
    """A scenario folder is an endpoint result when it has no LoadGen detail log and holds at least one
    endpoint file where the round's submitters put them."""
    if any(box.is_file(f"{rel}/{marker}") for marker in rules.loadgen_markers):
        return False
    candidates = rules.config_files + rules.summary_files + rules.accuracy_files
    return any(box.is_file(f"{rel}/{name}") for name in candidates)


def _first(box: Sandbox, rel: str, candidates: list[str]) -> list[str]:
    return [f"{rel}/{name}" for name in candidates if box.is_file(f"{rel}/{name}")]


def _pointer(loc) -> str:
    return "/" + "/".join(str(part) for part in loc)


def _drop(data: Any, loc) -> bool:
    """Remove the deepest value on the path ``loc`` (a pydantic error location, whose tail may name a union
    member rather than a key) so the rest of the file can still be used."""
    parent, key, target = None, None, data
    for part in loc:
        if isinstance(target, dict) and part in target:
            parent, key, target = target, part, target[part]
        elif isinstance(target, list) and isinstance(part, int) and 0 <= part < len(target):
            parent, key, target = target, part, target[part]
        else:
            break
    if isinstance(parent, dict):
        del parent[key]
        return True
    if isinstance(parent, list):
        parent[key] = {}
        return True
    return False


def validate(model: type[BaseModel], data: Any, rel: str) -> tuple[Any, list[Problem]]:
    """``model`` from ``data``; each mistyped field is a problem and is left out (never raises)."""
    if not isinstance(data, dict):
        return None, [Problem(rel, f"expected a JSON/YAML object at the top level, found {type(data).__name__}")]
    problems: list[Problem] = []
    for _ in range(MAX_FIELD_ERRORS + 1):
        try:
            return model.model_validate(data), problems
        except ValidationError as exc:
            dropped = False
            for error in exc.errors(include_url=False):
                loc = tuple(error.get("loc") or ())
                found = repr(error.get("input"))
                found = found if len(found) <= 60 else found[:57] + "..."
                problems.append(Problem(rel, f"{error.get('msg', 'invalid value')} (found {found})", _pointer(loc)))
                dropped = _drop(data, loc) or dropped
            if not dropped:
                break
        except (RecursionError, TypeError, ValueError) as exc:  # defensive: pydantic raises ValidationError
            problems.append(Problem(rel, f"cannot be read as {model.__name__}: {type(exc).__name__}"))
            return None, problems
    return None, problems + [Problem(rel, f"too many invalid fields to use the file as {model.__name__}")]


def _read_json(box: Sandbox, rel: str, model: type[BaseModel], limit: int,
               duplicates: list | None = None) -> tuple[Any, list[Problem]]:
    """``rel`` validated as ``model``; keys written twice (the last is used) go to ``duplicates``."""
    data, error, dups = box.read_json_keys(rel, limit=limit)
    if duplicates is not None:
        duplicates += [(rel, d) for d in dups]
    if error is not None:
        return None, [Problem(rel, error)]
    return validate(model, data, rel)


def _read_yaml(box: Sandbox, rel: str, limit: int) -> tuple[EndpointConfig | None, list[Problem]]:
    text, error = box.read_text(rel, limit=limit)
    if text is None:
        return None, [Problem(rel, error or "cannot read file")]
    try:
        data = yaml_text.safe_load(text)
    except yaml_text.YAMLError as exc:  # (yaml is imported where a text is parsed)
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return None, [Problem(rel, f"invalid YAML: {reason}", line=line)]
    except (RecursionError, ValueError) as exc:
        return None, [Problem(rel, f"invalid YAML: {type(exc).__name__}")]
    from checker.models.endpoint import EndpointConfig

    return validate(EndpointConfig, data, rel)


def _audits(box: Sandbox, rel: str, rules: EndpointRules,
            duplicates: list | None = None) -> tuple[tuple[AuditRun, ...], list[Problem]]:
    from checker.models.endpoint import AuditResult, RunSummary

    audit_rel = f"{rel}/{rules.audit_dir}"
    listing = box.listing(audit_rel)
    if not listing.exists:
        return (), []
    problems: list[Problem] = []
    runs: list[AuditRun] = []
    names = sorted({f[len("audit_"):-len(".json")] for f in listing.files
                    if f.startswith("audit_") and f.endswith(".json")})
    for name in names:
        json_rel = f"{audit_rel}/audit_{name}.json"
        result, found = _read_json(box, json_rel, AuditResult, rules.max_file_bytes, duplicates)
        problems += found
        verify_name = rules.audit_verify_files.get(name)
        verify_rel = f"{audit_rel}/{verify_name}" if verify_name else None
        verify_text = None
        if verify_rel and box.is_file(verify_rel):
            verify_text, error = box.read_text(verify_rel, limit=64 * 1024)
            if verify_text is None:
                problems.append(Problem(verify_rel, error or "cannot read file"))
        elif verify_rel:
            verify_rel = None
        phases = []
        for phase in rules.audit_subruns.get(name, []):
            hits = _first(box, f"{audit_rel}/{phase}", rules.summary_files)
            summary = None
            if hits:
                summary, found = _read_json(box, hits[0], RunSummary, rules.max_file_bytes, duplicates)
                problems += found
            phases.append((phase, hits[0] if hits else f"{audit_rel}/{phase}/{rules.summary_files[0]}", summary))
        runs.append(AuditRun(name=name, rel=json_rel, result=result, verify_rel=verify_rel,
                             verify_text=verify_text, phases=tuple(phases)))
    return tuple(runs), problems


def load_endpoint(box: Sandbox, rel: str, rules: EndpointRules) -> EndpointCtx:
    """Parse the endpoint files of the scenario folder ``rel`` (paths relative to the submission root)."""
    from checker.models.endpoint import AccuracyResults, RunSummary, Snapshot

    limit = rules.max_file_bytes
    problems: list[Problem] = []
    duplicates: list = []
    configs = _first(box, rel, rules.config_files)
    config = None
    copies: list[tuple[str, EndpointConfig | None]] = []
    for index, config_rel in enumerate(configs):
        parsed, found = _read_yaml(box, config_rel, limit)
        problems += found
        if index == 0:
            config = parsed
        else:
            copies.append((config_rel, parsed))
    summaries = _first(box, rel, rules.summary_files)
    summary = None
    if summaries:
        summary, found = _read_json(box, summaries[0], RunSummary, limit, duplicates)
        problems += found
    accuracies = _first(box, rel, rules.accuracy_files)
    accuracy = None
    if accuracies:
        accuracy, found = _read_json(box, accuracies[0], AccuracyResults, limit, duplicates)
        problems += found
    snapshots = _first(box, rel, rules.snapshot_files)
    snapshot = None
    if snapshots:
        snapshot, found = _read_json(box, snapshots[0], Snapshot, limit, duplicates)
        problems += found
    audits, found = _audits(box, rel, rules, duplicates)
    problems += found
    where = summaries[0][len(rel) + 1:] if summaries else None
    layout = rules.layouts.get(where, f"result_summary.json at {where}") if where else "no result_summary.json"
    if configs and configs[0][len(rel) + 1:] != rules.config_files[0]:
        layout += f", config.yaml at {configs[0][len(rel) + 1:]}"
    return EndpointCtx(
        rel=rel, layout=layout, config_rel=configs[0] if configs else None, config=config,
        config_copies=tuple(copies), summary_rel=summaries[0] if summaries else None, summary=summary,
        accuracy_rel=accuracies[0] if accuracies else None, accuracy=accuracy,
        snapshot_rel=snapshots[0] if snapshots else None, snapshot=snapshot, audits=audits,
        problems=tuple(problems), json_duplicates=tuple(duplicates))
