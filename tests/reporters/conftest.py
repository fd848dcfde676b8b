"""Reports shared by the reporter tests (each tree is checked once per session)."""

from __future__ import annotations

import dataclasses
import os

import pytest

from checker.diagnostics import Finding, Location, Severity
from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from checker.report import Report, ResultSummary
from tests.conftest import REPO, real_tree

EXAMPLE = os.path.join(REPO, "fixtures", "example_submission")


def stable(report: Report) -> Report:
    """The report with its machine- and version-dependent parts fixed (absolute root, wall time, the
    checker's version and fingerprint)."""
    return dataclasses.replace(report, root="<submission root>", elapsed_s=0.0, tool_version="<version>",
                               fingerprint="0" * 64)


@pytest.fixture(scope="session")
def rules41():
    return load_rules("v4.1")


@pytest.fixture(scope="session")
def example_report(rules41):
    return check_tree(EXAMPLE, rules41, round_reason="selected with --round", profile="smoke", jobs=1)


@pytest.fixture(scope="session")
def real41(rules41):
    path = real_tree("v4.1")
    return check_tree(path, rules41, round_reason="selected with --round", jobs=1)


@pytest.fixture(scope="session")
def real51():
    path = real_tree("v5.1")
    rules = load_rules("v5.1")
    return check_tree(path, rules, round_reason="selected with --round", jobs=1), rules


def _result(rid: str, **kw) -> ResultSummary:
    division, submitter, _, system, model, scenario = rid.split("/")
    base = dict(id=rid, division=division, submitter=submitter, system=system, model=model, mlperf_model=model,
                scenario=scenario, scenario_dir=scenario, valid=True, value=100.0, unit="Samples/s",
                inferred=False, has_power=False, accuracy=(("acc", "76.1"),),
                accuracy_targets=(("acc", 75.6954, None),), compliance="passed",
                compliance_tests=(("TEST01", "passed"), ("TEST04", "passed")),
                system_fields=(("status", "Available"), ("system_type", "edge"), ("system_name", system),
                               ("hw_notes", "hw"), ("sw_notes", "sw")),
                weight_data_types="int8")
    base.update(kw)
    return ResultSummary(**base)


@pytest.fixture()
def synthetic() -> Report:
    """A small hand-made report: two submitters, three benchmarks, one invalid result with findings,
    hostile text in system fields and messages."""
    bad = "closed/OtherCo/results/box/bert-99/Offline"
    results = [
        _result("closed/Acme/results/edge1/resnet50/Offline", mlperf_model="resnet", value=1234.5),
        _result("closed/Acme/results/edge1/resnet50/SingleStream", mlperf_model="resnet", value=0.25,
                unit="Latency (ms)", has_power=True, power_value=12.5, power_unit="millijoules",
                power_efficiency=None),
        _result("closed/Acme/results/edge1/retinanet/Offline", mlperf_model="retinanet", value=55.0, inferred=True,
                system_fields=(("status", "available"), ("system_type", "edge"),
                               ("system_name", 'Box "A", rev 2\nnew line'), ("framework", "TRT, CUDA"),
                               ("hw_notes", ""), ("sw_notes", "")), weight_data_types="['int8', 'fp16']"),
        _result(bad, value=None, unit=None, valid=False, errors=2, warnings=1, compliance="failed",
                compliance_tests=(("TEST01", "failed"), ("TEST05", "passed"))),
        _result("open/OtherCo/results/box/bert-99/Offline", compliance="n/a", compliance_tests=()),
    ]
    findings = [
        Finding(message=f"{bad}/performance/run_1/mlperf_log_detail.txt: result is INVALID <script>x</script>",
                location=Location(f"{bad}/performance/run_1/mlperf_log_detail.txt", line=7), expected="VALID",
                actual="INVALID", hint="fix | the run", code="PF001", severity=Severity.ERROR, result_id=bad),
        Finding(message="closed/OtherCo/compliance/box/bert-99/Offline/TEST01/verify_accuracy.txt: TEST FAIL",
                location=Location("closed/OtherCo/compliance/box/bert-99/Offline/TEST01/verify_accuracy.txt"),
                expected="TEST PASS", actual="TEST FAIL", code="CP005", severity=Severity.ERROR, result_id=bad,
                data=(("official", True), ("test", "TEST01"))),
        Finding(message="closed/OtherCo/systems/box.json: field x holds the placeholder 'N/A'",
                location=Location("closed/OtherCo/systems/box.json", pointer="/x"), code="SY011",
                severity=Severity.WARNING, result_id="closed/OtherCo/results/box"),
        Finding(message="closed/Acme/systems/edge1.json: field y is unknown", location=Location("closed/Acme/systems/edge1.json"),
                code="SY007", severity=Severity.WARNING, result_id="closed/Acme/results/edge1",
                waived="accepted by the WG on 2024-08-01"),
        Finding(message="closed/Acme/results/lonely: system folder without results",
                location=Location("closed/Acme/results/lonely"), code="ST010", severity=Severity.INFO,
                result_id="closed/Acme/results/lonely"),
    ]
    findings.sort(key=lambda f: f.sort_key())
    return Report(root="<submission root>", round="v5.1", round_reason="selected with --round", profile="official",
                  results=results, findings=findings, checks_run=10)
