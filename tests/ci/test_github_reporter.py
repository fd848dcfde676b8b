"""The GitHub job summary and annotations (checker/reporters/github.py) and the hook's lines
(checker/reporters/compact.py): escaping of hostile text, limits, errors first, waived findings."""

from __future__ import annotations

import dataclasses

from checker.diagnostics import Finding, Location, Severity
from checker.report import Report, ResultSummary
from checker.reporters import compact, github

RID = "closed/Acme/results/sys/resnet50/Offline"


def _result(valid: bool = True) -> ResultSummary:
    return ResultSummary(id=RID, division="closed", submitter="Acme", system="sys", model="resnet50",
                         mlperf_model="resnet50", scenario="Offline", scenario_dir="Offline", valid=valid,
                         value=1.0, unit="Samples/s", inferred=False, has_power=False, errors=0 if valid else 1)


def _finding(code="AC001", severity=Severity.ERROR, message="bad", path=f"{RID}/accuracy/accuracy.txt", line=None,
             **extra) -> Finding:
    return Finding(message=message, location=Location(path, line=line), code=code, severity=severity, result_id=RID,
                   **extra)


def _report(findings, valid=True) -> Report:
    return Report(root="/x", round="v4.1", round_reason="selected", profile="official", results=[_result(valid)],
                  findings=list(findings))


def test_hostile_text_cannot_start_a_workflow_command():
    hostile = _finding(message="a\n::add-mask::secret\r\n::error file=x::y", path="closed/A,b:c/%0A.txt",
                       expected="1\n2", hint="x")
    [line] = github.annotations(_report([hostile], valid=False))
    assert "\n" not in line and "\r" not in line
    # one line (a command only starts a line), whose properties end where the command's own do
    assert line.split("::")[1] == "error file=closed/A%2Cb%3Ac/%250A.txt,line=1,title=AC001 accuracy-below-target"
    assert "file=closed/A%2Cb%3Ac/%250A.txt,line=1," in line
    assert line.endswith("::a%0A::add-mask::secret%0D%0A::error file=x::y%0Aexpected: 1%0A2%0Ahow to fix: x")


def test_errors_first_limit_and_waived_or_info_findings_skipped():
    findings = [_finding("SY007", Severity.WARNING, path="closed/Acme/systems/sys.json", line=3),
                _finding("AC001"), _finding("PF001"),
                _finding("CP019", Severity.INFO), _finding("PF005", waived="accepted")]
    lines = github.annotations(_report(findings, valid=False), prefix="sub/", limit=2)
    assert [line.split(" ")[0] for line in lines] == ["::error", "::error", "::notice"]
    assert "1 more findings" in lines[-1]
    every = github.annotations(_report(findings, valid=False), prefix="sub")
    assert [line.split(",title=")[1].split(" ")[0] for line in every] == ["AC001", "PF001", "SY007"]
    assert "file=sub/closed/Acme/systems/sys.json,line=3," in every[-1]


def test_summary_verdict_follows_fail_on():
    warn = _report([_finding("SY007", Severity.WARNING)])
    assert github.summary(warn, "error").startswith("## mlpc: passed")
    assert github.summary(warn, "warning").startswith("## mlpc: FAILED")
    many = _report([_finding(message=f"m{i}") for i in range(7)], valid=False)
    text = github.summary(many, limit=5, prefix="sub")
    assert text.count("| error | AC001 |") == 5 and "... and 2 more" in text
    assert f"`sub/{RID}/accuracy/accuracy.txt`" in text
    # a message with a pipe and a newline stays inside its cell
    odd = github.summary(_report([_finding(message="a|b\nc")], valid=False))
    assert "a\\|b<br>c |" in odd
    smoke = github.summary(dataclasses.replace(warn, profile="smoke"))
    assert "not compliant" in smoke


def test_compact_lines():
    report = _report([_finding("SY007", Severity.WARNING, path="closed/Acme/systems/sys.json", line=3,
                               expected="no such field", actual="x"),
                      _finding("AC001", hint="rerun")], valid=False)
    text = compact.render(report)
    lines = text.splitlines()
    assert lines[0] == f"{RID}/accuracy/accuracy.txt: AC001 error accuracy-below-target: bad"
    assert lines[1] == "    how to fix: rerun"
    assert lines[2].startswith("closed/Acme/systems/sys.json:3: SY007 warning unknown-field: bad")
    assert lines[-1].startswith("mlpc FAILED: 1 result of closed/Acme checked")
    clean = compact.render(_report([_finding("SY007", Severity.WARNING)]))
    assert clean.splitlines()[-1].startswith("mlpc ok:")
    assert compact.render(_report([_finding("SY007", Severity.WARNING)]), strict=True).splitlines()[-1].startswith(
        "mlpc FAILED:")
