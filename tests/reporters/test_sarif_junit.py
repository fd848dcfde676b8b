"""SARIF 2.1.0 and JUnit XML: required structure checked by hand (no schema offline)."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

from typer.testing import CliRunner

from checker.cli import app
from checker.diagnostics import Severity
from checker.registry import ALL_CHECKS, TOOL_CODES
from checker.reporters import junit, sarif
from tests.conftest import REPO

runner = CliRunner()
LEVELS = {"none", "note", "warning", "error"}


def validate_sarif(log: dict) -> None:
    """The SARIF 2.1.0 properties a consumer relies on (sarifLog, run, tool, reportingDescriptor,
    result, location, region, suppression), checked one by one."""
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(log["runs"], list) and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "mlpc"
    ids = [r["id"] for r in driver["rules"]]
    assert len(ids) == len(set(ids)), "rule ids must be unique"
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        if "defaultConfiguration" in rule:
            assert rule["defaultConfiguration"]["level"] in LEVELS
    for base, value in run.get("originalUriBaseIds", {}).items():
        assert "uri" not in value or not value["uri"].startswith("file:"), "no absolute root in the log"
    assert isinstance(run["results"], list)
    for res in run["results"]:
        assert res["message"]["text"]
        assert res["level"] in LEVELS
        assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        for loc in res["locations"]:
            art = loc["physicalLocation"]["artifactLocation"]
            assert not art["uri"].startswith("/") and "://" not in art["uri"]
            assert art["uriBaseId"] in run["originalUriBaseIds"]
            region = loc["physicalLocation"].get("region")
            if region:
                assert isinstance(region["startLine"], int) and region["startLine"] >= 1
        for sup in res.get("suppressions", []):
            assert sup["kind"] in ("inSource", "external") and sup["justification"]


def test_sarif_structure_on_synthetic(synthetic, rules41):
    log = sarif.to_data(synthetic, rules41.severities)
    validate_sarif(log)
    run = log["runs"][0]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == {c.code for c in ALL_CHECKS} | set(TOOL_CODES)
    by_code = {r["ruleId"]: r for r in run["results"]}
    assert by_code["PF001"]["level"] == "error"
    assert by_code["PF001"]["locations"][0]["physicalLocation"]["region"] == {"startLine": 7}
    assert by_code["SY011"]["level"] == "warning" and by_code["ST010"]["level"] == "note"
    assert by_code["SY007"]["suppressions"][0]["justification"] == "accepted by the WG on 2024-08-01"
    assert by_code["PF001"]["properties"]["expected"] == "VALID"
    used = sarif.to_data(synthetic, None, all_rules=False)
    validate_sarif(used)
    assert {r["id"] for r in used["runs"][0]["tool"]["driver"]["rules"]} == {f.code for f in synthetic.findings}


def test_sarif_from_cli(tmp_path):
    out = tmp_path / "r.sarif"
    result = runner.invoke(app, ["check", os.path.join(REPO, "fixtures", "checks", "PF005"), "-q",
                                 "--format", "sarif", "-o", str(out)])
    assert result.exit_code == 1
    log = json.loads(out.read_text())
    validate_sarif(log)
    assert any(r["ruleId"] == "PF005" and r["level"] == "error" for r in log["runs"][0]["results"])
    pf005 = next(r for r in log["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "PF005")
    assert pf005["defaultConfiguration"]["level"] == "error" and "How to fix" in pf005["fullDescription"]["text"]


def test_sarif_on_real_tree(real41, rules41):
    validate_sarif(json.loads(sarif.render(real41, rules41.severities)))


def _cases(xml_text: str):
    root = ET.fromstring(xml_text.encode("utf-8"))
    assert root.tag == "testsuites"
    return root, root.findall("testsuite/testcase")


def test_junit_structure(synthetic):
    root, cases = _cases(junit.render(synthetic))
    # one case per result, plus one for the scope holding findings but no result
    assert len(cases) == len(synthetic.results) + 1
    assert int(root.get("tests")) == len(cases)
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == int(root.get("failures")) == 1
    failure = failed[0].find("failure")
    assert failure.get("type") == "CP005" and "PF001" in failure.get("message")
    assert "<script>" in failure.text  # escaped in the XML, intact once parsed
    out = failed[0].find("system-out").text
    assert "WARNING SY011" in out
    waived_case = next(c for c in cases if c.get("classname").startswith("closed/Acme/edge1/resnet50"))
    assert "waived: accepted by the WG" in waived_case.find("system-out").text
    for suite in root.findall("testsuite"):
        assert int(suite.get("tests")) == len(suite.findall("testcase"))


def test_junit_on_real_tree_matches_verdicts(real41):
    root, cases = _cases(junit.render(real41))
    results = [c for c in cases if c.get("classname").count("/") == 3]
    assert len(results) == len(real41.results)
    assert sum(1 for c in results if c.find("failure") is not None) == sum(1 for r in real41.results if not r.valid)


def test_junit_from_cli_and_control_characters(synthetic, tmp_path):
    import dataclasses

    odd = dataclasses.replace(synthetic.findings[0], message="bad \x00\x1b bytes")
    report = dataclasses.replace(synthetic, findings=[odd, *synthetic.findings[1:]])
    ET.fromstring(junit.render(report).encode("utf-8"))  # still well-formed XML
    out = tmp_path / "junit.xml"
    result = runner.invoke(app, ["check", os.path.join(REPO, "fixtures", "checks", "AC001"), "-q", "--format", "junit",
                                 "-o", str(out)])
    assert result.exit_code == 1
    root, cases = _cases(out.read_text(encoding="utf-8"))
    assert any(c.find("failure") is not None and "AC001" in c.find("failure").get("message") for c in cases)
    assert all(f.severity != Severity.OFF for f in synthetic.findings)
