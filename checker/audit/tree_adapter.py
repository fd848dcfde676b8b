"""Where the audit commands get their :class:`~checker.models.audit_inputs.Submission` rows from.

Two sources, nothing else:

* **a submission tree** (a round root, a division or a submitter folder): it is checked by the engine
  (:func:`checker.pipeline.check_tree`, the round detected from the logs with
  :func:`checker.loaders.detect.detect_round` or chosen with ``round_name``) and the result summaries
  become Submissions through :mod:`checker.audit.from_report` — so the audit sees exactly what
  ``mlpc check`` sees: the same system fields, values, inferred flags, power metrics and verdicts.
  This module no longer reads a tree itself (the stand-alone reader it used to hold is retired).
* **a JSON file** of Submissions (format in :mod:`checker.models.audit_inputs`), read through the
  bounded, never-raising reader of :mod:`checker.loaders.fs`.

Nothing here raises on bad input: every problem becomes a ``warn`` line and the source (or the result)
is skipped; an undetectable round or an unknown ``round_name`` is reported the same way.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from checker.audit.from_report import FromReport, submissions_from_report
from checker.diagnostics import MlpcError
from checker.models.audit_inputs import Submission, SubmissionSet

MAX_JSON_BYTES = 64 << 20

Warn = Callable[[str], None]


@dataclass(frozen=True)
class Checked:
    """A tree checked by the engine: its report, the rules applied and why, and the audit inputs."""

    report: object  # checker.report.Report
    rules: object  # checker.models.rules.RoundRules
    round_reason: str
    inputs: FromReport


def check_round(root: Path | str, warn: Warn = lambda m: None, round_name: str | None = None,
                jobs: int | None = None, valid_only: bool = True,
                folder_models: bool = False) -> Checked | None:
    """Check a tree with the engine and build its audit inputs; None (after a warning) when the
    tree cannot be checked (not a folder, round unknown or not detectable)."""
    from checker.pipeline import check_tree
    from checker.loaders.detect import rules_for

    path = str(root)
    if not os.path.isdir(path):
        from checker.loaders.fs import not_a_folder

        warn(not_a_folder(path))
        return None
    try:
        rules, reason = rules_for(path, round_name)
        report = check_tree(path, rules, round_reason=reason, jobs=jobs)
    except MlpcError as exc:
        warn(f"{path}: {exc}")
        return None
    inputs = submissions_from_report(report, rules, valid_only=valid_only, folder_models=folder_models)
    return Checked(report=report, rules=rules, round_reason=reason, inputs=inputs)


def submissions_from_tree(root: Path | str, warn: Warn = lambda m: None, round_label: str | None = None,
                          round_name: str | None = None) -> list[Submission]:
    """Every result the engine reads in the tree, valid or not, named by its model folder — the raw
    figures, for analyses. (The audit commands use :func:`check_round`: valid results only, canonical
    model names.) ``round_label`` overrides the label stored on each Submission."""
    return _labelled(check_round(root, warn, round_name=round_name, valid_only=False, folder_models=True),
                     round_label)


def _labelled(checked: Checked | None, round_label: str | None) -> list[Submission]:
    """The submissions of a checked tree (none when it could not be checked), relabelled."""
    if checked is None:
        return []
    subs = list(checked.inputs.submissions)
    if round_label is not None:
        subs = [s.model_copy(update={"round": round_label}) for s in subs]
    return subs


def submissions_from_json(path: Path | str, warn: Warn = lambda m: None) -> list[Submission]:
    """A JSON file: a list of Submission objects or ``{"submissions": [...]}``."""
    from checker.loaders.fs import Sandbox

    p = Path(path)
    data, error, duplicates = Sandbox(str(p.parent)).read_json_keys(p.name, limit=MAX_JSON_BYTES)
    if error is not None:
        warn(f"{p}: not a valid submissions file ({error})")
        return []
    for dup in duplicates:  # read as every JSON tool of the ecosystem does (the last value), but said
        warn(f"{p}: key '{dup.key}' written {len(dup.values)} times in the object at '{dup.pointer or '/'}'; "
             "the last value is used")
    if isinstance(data, list):
        data = {"submissions": data}
    try:
        return list(SubmissionSet.model_validate(data).submissions)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "/".join(str(x) for x in first.get("loc", ()))
        warn(f"{p}: not a valid submissions file ({where}: {first['msg']})")
        return []


def is_json_file(source: Path | str) -> bool:
    p = Path(source)
    return p.is_file() and p.suffix.casefold() == ".json"


def load_submissions(source: Path | str, warn: Warn = lambda m: None, round_label: str | None = None,
                     round_name: str | None = None, jobs: int | None = None) -> list[Submission]:
    """A ``.json`` file of Submissions, or a tree checked by the engine (valid results only)."""
    if is_json_file(source):
        return submissions_from_json(source, warn)
    return _labelled(check_round(source, warn, round_name=round_name, jobs=jobs), round_label)


__all__ = ["Checked", "check_round", "is_json_file", "load_submissions", "submissions_from_json",
           "submissions_from_tree"]
