"""--waivers: parsing (usage errors), applying (findings kept but not counted), TL003 for unused waivers."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.diagnostics import Severity
from checker.registry import ALL_CHECKS, TOOL_CODES
from checker.waivers import UNUSED_CODE, WaiverError, apply_waivers, glob_problem, parse_waivers
from tests.conftest import REPO

KNOWN = [c.code for c in ALL_CHECKS] + list(TOOL_CODES)
AC001 = os.path.join(REPO, "fixtures", "checks", "AC001")
runner = CliRunner()


def test_parse_yaml_and_json():
    text = "- code: cp005\n  path: closed/*/compliance/*\n  reason: WG decision\n"
    (w,) = parse_waivers(text, known_codes=KNOWN)
    assert (w.code, w.path, w.reason, w.index) == ("CP005", "closed/*/compliance/*", "WG decision", 0)
    as_json = json.dumps({"waivers": [{"code": "PF001", "path": "open/*", "reason": "r"}]})
    assert parse_waivers(as_json)[0].code == "PF001"
    assert parse_waivers("") == ()


@pytest.mark.parametrize("text, words", [
    ("- {code: CP005, path: 'closed/*'}", "reason"),
    ("- {code: CP005, path: 'closed/*', reason: '   '}", "reason"),
    ("- {code: CP005, path: 'closed/[abc', reason: r}", "bad path glob"),
    ("- {code: CP005, path: '/abs/*', reason: r}", "bad path glob"),
    ("- {code: CP005, path: 'closed/../x', reason: r}", "bad path glob"),
    ("- {code: CP005, path: '', reason: r}", "bad path glob"),
    ("- {code: CP005, path: 3, reason: r}", "path"),
    ("- {code: XX999, path: 'a', reason: r}", "unknown check code"),
    ("- {code: 5, path: 'a', reason: r}", "code"),
    ("- {code: CP005, path: 'a', reason: r, expires: 2025}", "unknown key"),
    ("code: CP005", "expected a list"),
    ("- just a string", "expected a mapping"),
    ("- {code: CP005, path: [", "not valid YAML"),
])
def test_parse_errors_are_usage_errors(text, words):
    with pytest.raises(WaiverError) as info:
        parse_waivers(text, "w.yaml", known_codes=KNOWN)
    assert words in str(info.value) and "w.yaml" in str(info.value)


def test_glob_problem():
    assert glob_problem("closed/*/results/[!x]*") is None
    assert glob_problem("a[]b]") is None
    assert "unclosed" in glob_problem("a[b")


def test_apply_marks_regrades_and_reports_unused(synthetic):
    bad = "closed/OtherCo/results/box/bert-99/Offline"
    waivers = parse_waivers(
        "- {code: PF001, path: '" + bad + "', reason: 'rerun accepted'}\n"
        "- {code: CP005, path: 'closed/OtherCo/compliance/*/TEST01/*', reason: 'TEST01 waived for this model'}\n"
        "- {code: AC001, path: 'closed/Nobody/*', reason: 'stale'}\n")
    before = synthetic.counts()
    after = apply_waivers(synthetic, waivers, source="w.yaml")
    assert len(after.findings) == len(synthetic.findings) + 1  # nothing removed, one TL003 added
    waived = {f.code: f.waived for f in after.findings if f.waived}
    assert waived["PF001"] == "rerun accepted" and waived["CP005"] == "TEST01 waived for this model"
    result = next(r for r in after.results if r.id == bad)
    assert result.errors == 0 and result.warnings == 1
    assert result.compliance == "passed" and dict(result.compliance_tests)["TEST01"] == "passed"
    assert result.valid is False  # no value: waiving cannot make a result without a metric valid
    assert after.counts()["errors"] == before["errors"] - 2
    (unused,) = [f for f in after.findings if f.code == UNUSED_CODE]
    assert unused.severity == Severity.WARNING and unused.location.path == "w.yaml" and unused.result_id is None
    assert "waiver 3" in unused.message and "closed/Nobody/*" in unused.message
    assert not any(f.waived for f in synthetic.findings if f.code in ("PF001", "CP005"))  # input unchanged
    off = apply_waivers(synthetic, waivers, unused_severity=Severity.OFF)
    assert not [f for f in off.findings if f.code == UNUSED_CODE]


def test_result_id_glob_and_verdict(example_report):
    # every finding of the example tree scoped at the system matches a result-id glob
    target = next(f for f in example_report.findings if f.severity == Severity.WARNING)
    waivers = parse_waivers(f"- {{code: {target.code}, path: 'closed/ExampleCo/results/*', reason: ok}}")
    after = apply_waivers(example_report, waivers)
    assert all(f.waived for f in after.findings if f.code == target.code)
    assert after.counts()["warnings"] < example_report.counts()["warnings"]


def _write(tmp_path, text, name="waivers.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_cli_waiver_turns_exit_1_into_0(tmp_path):
    assert runner.invoke(app, ["check", AC001, "-q"]).exit_code == 1
    path = _write(tmp_path, "- code: AC001\n  path: closed/Acme/results/*/gptj-99/Offline/*\n"
                            "  reason: accuracy rerun reviewed by the WG\n")
    out = tmp_path / "report.json"
    result = runner.invoke(app, ["check", AC001, "-q", "--waivers", path, "--format", "json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["counts"]["invalid"] == 0 and data["counts"]["errors"] == 0
    (finding,) = [f for f in data["findings"] if f["code"] == "AC001"]
    assert finding["waived"] == "accuracy rerun reviewed by the WG"


def test_cli_unused_waiver_is_a_warning(tmp_path):
    path = _write(tmp_path, '[{"code": "PF005", "path": "closed/*", "reason": "stale"}]', "w.json")
    out = tmp_path / "report.json"
    result = runner.invoke(app, ["check", AC001, "-q", "--waivers", path, "--format", "json", "-o", str(out)])
    data = json.loads(out.read_text())
    (unused,) = [f for f in data["findings"] if f["code"] == "TL003"]
    assert unused["severity"] == "warning" and unused["location"]["path"] == "w.json"
    assert str(tmp_path) not in out.read_text()
    assert runner.invoke(app, ["check", AC001, "-q", "--waivers", path, "--strict"]).exit_code == 1


@pytest.mark.parametrize("text", ["- {code: AC001, path: 'closed/*'}\n", "- {code: AC001, path: 'x[', reason: r}\n",
                                  "- {code: AC001, path: [\n", "\xff\xfe"])
def test_cli_bad_waiver_file_exit_2_without_traceback(tmp_path, text):
    path = tmp_path / "w.yaml"
    path.write_bytes(text.encode("latin-1"))
    for command in (["check", AC001, "-q", "--waivers", str(path)],
                    ["report", AC001, "--out", str(tmp_path / "out"), "--waivers", str(path)]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output and "error" in result.output
    assert not (tmp_path / "out").exists()


def test_cli_missing_waiver_file_exit_2(tmp_path):
    result = runner.invoke(app, ["check", AC001, "--waivers", str(tmp_path / "none.yaml")])
    assert result.exit_code == 2 and "not found" in result.output
