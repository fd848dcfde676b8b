"""The one-screen verdict of a large text report: counts per division and submitter agree with the
results, the commonest codes with the findings; the switch to it and --details."""

from collections import Counter

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.reporters import text, verdict
from tests.conftest import real_tree


def _rows(output: str, title: str) -> dict[str, list[str]]:
    lines = output.split(title + "\n\n", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    return {line.split()[0]: line.split() for line in lines}


def test_counts_agree_with_the_results(real41):
    output = text.render(real41, details=False)
    assert "Results" not in output.split("By division")[0]  # no per-result table
    divisions = _rows(output, "By division")
    for name in {r.division for r in real41.results}:
        mine = [r for r in real41.results if r.division == name]
        assert divisions[name][1:6] == [str(len(mine)), str(sum(r.valid for r in mine)),
                                        str(sum(not r.valid for r in mine)), str(sum(r.has_power for r in mine)),
                                        str(sum(r.inferred for r in mine))]
    submitters = _rows(output, "By submitter")
    assert set(submitters) == {f"{r.division}/{r.submitter}" for r in real41.results}
    invalid = Counter(f"{r.division}/{r.submitter}" for r in real41.results if not r.valid)
    assert {k: int(v[3]) for k, v in submitters.items() if int(v[3])} == dict(invalid)


def test_top_codes_count_errors_and_warnings(real41):
    output = text.render(real41, details=False)
    codes = _rows(output, "Top finding codes (errors first, then the commonest warnings)")
    counted = Counter(f.code for f in real41.findings if not f.waived and f.severity.value in ("error", "warning"))
    assert len(codes) == min(len(counted), verdict.TOP_CODES)
    for code, row in codes.items():
        assert int(row[2]) == counted[code]
    severities = [row[1] for row in codes.values()]
    assert severities == sorted(severities, key=lambda s: s != "error")  # errors first
    warnings = [int(row[2]) for row in codes.values() if row[1] == "warning"]
    assert warnings == sorted(warnings, reverse=True)


def test_the_table_aligns_columns():
    assert verdict.table(("a", "count"), [("long name", "7"), ("b", "12")], frozenset({1})) == [
        "a          count", "---------  -----", "long name      7", "b             12"]


def test_large_reports_get_the_verdict_unless_details(real41, monkeypatch):
    assert "By submitter" not in text.render(real41)  # 46 results: every result and finding
    monkeypatch.setattr(text, "DETAIL_LIMIT", 10)
    assert "By submitter" in text.render(real41)
    assert "By submitter" not in text.render(real41, details=True)


@pytest.mark.parametrize("flags, verdict_shown", [([], True), (["--details"], False)])
def test_cli_details(monkeypatch, flags, verdict_shown):
    monkeypatch.setattr(text, "DETAIL_LIMIT", 10)
    result = CliRunner().invoke(app, ["check", real_tree("v4.1"), "--round", "v4.1", "--no-cache", *flags])
    assert result.exit_code == 1
    assert ("By submitter" in result.output) == verdict_shown
    assert ("Every result and finding: add --details" in result.output) == verdict_shown
