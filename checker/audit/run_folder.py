"""The verdict of a folder written by ``mlpc audit run``, for the runner and for ``mlpc check``.

The runner writes ``verdict.json`` (the plan, the round, the seeds the run had to carry) and the runs in
the audited round's own layout (:func:`folder_layout`): up to v5.1 ``compliance/TEST0x`` next to
``results/`` (``performance/run_1``, ``accuracy``); from v6.0, where the round keeps the TEST0x folders
inside the scenario folder, the run folder is laid out as a scenario folder (``TEST0x/``,
``performance/run_1/``, ``accuracy/``). ``verdict.json`` records which. :func:`verify_run_folder` judges the folder from those files
alone, with the same verification ``mlpc check`` applies to a submission's TEST0x folders; the
runner reports its result and ``mlpc check RUN_FOLDER`` calls it again, so both give the same
verdict, and an edit to the folder after the run changes what ``mlpc check`` says.

A run folder is judged on its own: every finding fails it except CP025 (a test folder the round
does not require), which is information.
"""

from __future__ import annotations

import json
import os
import re

from checker.diagnostics import Finding, MlpcError, Severity
from checker.report import Report, ResultSummary

MARKER = "verdict.json"
NEUTRAL = frozenset({"CP025"})
MAX_MARKER_BYTES = 4 * 1024 * 1024


LEGACY_LAYOUT = {"compliance": "compliance", "results": "results"}  # records written before the layout was kept
TEST_FOLDER = re.compile(r"TEST\d\d$")


def folder_layout(round_name: str) -> dict[str, str]:
    """Where a run folder of ``round_name`` keeps the compliance test and the submission-like runs, as the
    round's rules lay out a result (``layout.compliance`` and ``layout.result``): their top folders
    (``compliance``, ``results``), or ``""`` for both when the round folds TEST0x into the scenario folder."""
    from checker.loaders.rules import load_rules

    layout = load_rules(round_name).layout
    if layout.compliance == layout.result:
        return {"compliance": "", "results": ""}
    return {"compliance": layout.top_folder(layout.compliance) or "", "results": layout.result.split("/", 1)[0]}


def record_layout(record: dict) -> dict[str, str]:
    """The layout a run record names; only the two known shapes are accepted (a record is input: its
    folders must not point elsewhere), anything else is read as the legacy one."""
    layout = record.get("layout")
    if layout in ({"compliance": "", "results": ""}, LEGACY_LAYOUT):
        return layout
    return LEGACY_LAYOUT


def _has_test_folder(folder: str) -> bool:
    if os.path.isdir(os.path.join(folder, "compliance")):
        return True
    try:
        return any(TEST_FOLDER.match(name) and os.path.isdir(os.path.join(folder, name)) for name in os.listdir(folder))
    except OSError:
        return False


def read_record(folder: str) -> dict | None:
    """The run record of a run folder, or None when ``folder`` is not one."""
    path = os.path.join(folder, MARKER)
    if not (os.path.isfile(path) and _has_test_folder(folder)):
        return None
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_MARKER_BYTES + 1)
        record = json.loads(raw[:MAX_MARKER_BYTES].decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise MlpcError(f"{path}: not a readable audit-run record ({exc})") from None
    plan = record.get("plan") if isinstance(record, dict) else None
    if not isinstance(plan, dict) or not all(isinstance(plan.get(k), str) for k in ("test", "scenario", "round")):
        raise MlpcError(f"{path}: not an audit-run record (no plan with test, scenario and round)")
    return record


def verify_run_folder(folder: str, record: dict) -> tuple[list[Finding], bool]:
    """(findings, passed) of the run folder ``folder`` described by ``record``."""
    from checker.audit.compliance import verify_compliance_dir
    from checker.loaders.audit_spec import load_round_spec

    plan = record["plan"]
    spec = load_round_spec(plan["round"])
    seeds = record.get("expected_seeds")
    layout = record_layout(record)
    findings = verify_compliance_dir(
        os.path.join(folder, layout["compliance"]).rstrip(os.sep), os.path.join(folder, layout["results"]).rstrip(os.sep),
        record.get("model") or plan.get("model", ""), plan["scenario"], spec, folder,
        expected_seeds=seeds if isinstance(seeds, dict) else None,
        expected_test05_seeds=record.get("expected_test05_seeds") or None,
        only_tests=(plan["test"],),
    )
    passed = not [f for f in findings if f.code not in NEUTRAL]
    return findings, passed


def check_run_folder(folder: str, record: dict) -> Report:
    """The report ``mlpc check`` gives for a run folder: one result, the run's findings."""
    from checker.audit.compliance import CODES

    plan = record["plan"]
    findings, passed = verify_run_folder(folder, record)
    rid = "/".join(part for part in (record_layout(record)["compliance"], plan["test"]) if part)
    stamped = []
    for f in findings:
        severity = Severity.INFO if f.code in NEUTRAL else Severity.ERROR
        stamped.append(Finding(f.message, f.location, f.expected, f.actual, f.hint, f.code, severity, rid,
                               data=f.data, scope="result", invalidates=severity == Severity.ERROR))
    model = record.get("model") or plan.get("model", "")
    result = ResultSummary(id=rid, division="audit", submitter="", system=plan.get("sut", ""), model=model,
                           mlperf_model=model, scenario=plan["scenario"], scenario_dir=plan["scenario"],
                           valid=passed, value=None, unit=None, inferred=False, has_power=False,
                           errors=sum(1 for f in stamped if f.severity == Severity.ERROR),
                           compliance="passed" if passed else "failed",
                           compliance_tests=((plan["test"], "passed" if passed else "failed"),))
    notes = "; ".join(record.get("notes") or [])
    reason = f"compliance-test run folder ({MARKER}: {plan['test']} {model} {plan['scenario']})"
    report = Report(root=os.path.abspath(folder), round=plan["round"],
                    round_reason=reason + (f"; {notes}" if notes else ""), profile="default",
                    results=[result], findings=sorted(stamped, key=Finding.sort_key),
                    checks_run=len(CODES))
    return report


def render_rules(round_name: str):
    """The rules used to render a run folder's report: its round's, else the newest round's (only
    the CSV columns and SARIF severities come from them)."""
    from checker.loaders.rules import available_rounds, load_rules

    try:
        return load_rules(round_name)
    except MlpcError:
        return load_rules(sorted(available_rounds(), key=lambda r: tuple(int(x) for x in r[1:].split(".")))[-1])
