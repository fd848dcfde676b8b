"""Power checks (PW): one failing fixture tree per code, docstrings, and the real power trees."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from checker.checks import power
from checker.diagnostics import Severity
from checker.pipeline import check_tree
from checker.loaders.rules import available_rounds, load_rules
from checker.metrics.power import parse_spl
from checker.metrics.ptd_log import scan_ptd_log
from tests.conftest import REAL

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "power"
SHARED = Path(REAL)  # the shared real data (tests/conftest.py; MLPC_SHARED moves it)
CODES = [c.code for c in power.CHECKS]
SECTIONS = ("What it checks:", "Why:", "Failing example:", "How to fix:", "Data used:", "Stricter than official:")


def _pw(report):
    return sorted({f.code for f in report.findings if f.code.startswith("PW")})


def _crashes(report):
    return [f.message for f in report.findings if f.code == "TL001" and " PW" in f.message]


@pytest.mark.parametrize("code", CODES)
def test_fixture_emits_exactly_its_code(code):
    tree = FIXTURES / code
    assert tree.is_dir(), f"missing fixture tree {tree} (run fixtures/power/make_fixtures.py)"
    report = check_tree(str(tree), load_rules("v4.1"))
    assert _crashes(report) == []
    assert _pw(report) == [code]
    expected = Severity(load_rules("v4.1").severities[code])
    assert {f.severity for f in report.findings if f.code == code} == {expected}


def test_passing_twin_has_no_power_findings():
    report = check_tree(str(FIXTURES / "passing"), load_rules("v4.1"))
    assert _crashes(report) == []
    assert _pw(report) == []


@pytest.mark.parametrize("check", power.CHECKS, ids=lambda c: c.code)
def test_docstring_sections_and_severities(check):
    assert check.doc.splitlines()[0].strip()
    for section in SECTIONS:
        assert section in check.doc, f"{check.code} docstring lacks {section!r}"
    stricter = "Stricter than official: yes" in check.doc
    assert stricter == check.stricter
    for name in available_rounds():
        rules = load_rules(name)
        assert check.code in rules.severities, f"{name} has no severity for {check.code}"
        if check.stricter:
            assert rules.severities[check.code] == "warning"


def test_garbage_power_logs_give_findings_not_tracebacks():
    spl = parse_spl("Time,bad\n\x00\ufffd\nTime,01-01-2024 00:00:00.000,Watts,5\n\n# stray\n")
    assert len(spl.us) == 1 and len(spl.bad) == 2 and len(spl.stray) == 1
    scan = scan_ptd_log("garbage\n13-45-2024 10:00:00.000: Go with mark 's_ranging'\nERROR: no stamp\n", "s", 0,
                        None, None, 800, [], ["USB."], "Uncertainty")
    assert scan.crash is not None and scan.crash.line == 2 and scan.ranging_start is None


def test_ptd_scan_stops_at_first_warning_like_official():
    log = "\n".join([
        "01-01-2024 00:00:00.000: Uncertainty checking for YokogawaWT210 is activated",
        "01-01-2024 00:00:01.000: Go with mark 's_ranging'",
        "01-01-2024 00:00:02.000: ERROR: Bad watts reading 9e37 from Yokogawa",
        "01-01-2024 00:00:03.000: Completed test",
        "01-01-2024 00:00:05.000: ERROR: Bad watts reading nan from Yokogawa",
    ])
    scan = scan_ptd_log(log, "s", 0, None, None, 800, ["Bad watts reading nan from "], ["USB."], "Uncertainty x")
    assert scan.official.grade == "warning" and scan.official.line.line == 3
    assert [e.grade for e in scan.events] == ["warning", "error-outside-ranging"]


def _expected(round_name):
    path = SHARED / f"{round_name}-expected" / "verdicts.csv"
    with open(path, newline="") as handle:
        return {row["path"]: row for row in csv.DictReader(handle)}


def _real_power(round_name, subtree):
    if not (SHARED / round_name).is_dir():
        pytest.skip(f"real {round_name} submissions not available at {SHARED}")
    if round_name not in available_rounds():
        pytest.skip(f"rules/{round_name}.yaml does not exist")
    report = check_tree(str(SHARED / round_name / subtree), load_rules(round_name))
    expected = _expected(round_name)
    results = [r for r in report.results if r.has_power]
    assert results
    for r in results:
        row = expected[r.id]
        assert row["status"] == "valid"
        assert r.valid, (r.id, [f.message for f in report.findings if f.severity == Severity.ERROR])
        assert r.official_result() == row["result"]
    return report


def test_real_v41_untetherai_power_results_stay_valid():
    report = _real_power("v4.1", "closed/UntetherAI")
    pw = [f for f in report.findings if f.code.startswith("PW")]
    assert all(f.severity == Severity.WARNING for f in pw)
    warned = {(f.code, f.result_id) for f in pw}
    assert warned == {("PW008", "closed/UntetherAI/results/r760_u6_slim/resnet50/offline")}
    msg = next(f.message for f in pw)
    assert "Bad watts reading 99100000000000005192630646116011999232.000000" in msg
    assert _crashes(report) == []


@pytest.mark.parametrize("subtree", ["closed/Lenovo",
                                     "open/GATEOverflow"])
def test_real_v51_power_results_stay_valid(subtree):
    report = _real_power("v5.1", subtree)
    pw = [f for f in report.findings if f.code.startswith("PW")]
    assert all(f.severity == Severity.WARNING for f in pw), [f.message for f in pw]
    assert _crashes(report) == []
    if subtree.startswith("open/GATEOverflow"):
        # the official PTD-log warning, and mlpc's stricter note on uncertainty > 1% during testing
        assert {f.code for f in pw} == {"PW008", "PW017"}


UUID_TEXTS = st.one_of(
    st.uuids().flatmap(lambda u: st.sampled_from([str(u), u.hex, "{%s}" % u, u.urn, str(u).upper()])),
    st.text(alphabet="0123456789abcdefABCDEFxg-_{}+ :nru", max_size=45),
    st.text(max_size=40),
)


@given(UUID_TEXTS)
def test_uuids_are_read_as_the_uuid_module_reads_them(text):
    """PW uuid comparison (client.json vs server.json) reads a UUID's value without importing uuid."""
    import uuid

    from checker.checks.power import uuid_value

    try:
        want = uuid.UUID(text).int
    except ValueError:
        with pytest.raises(ValueError):
            uuid_value(text)
        return
    assert uuid_value(text) == want
