"""summarise counts a result's errors and warnings inline, as counts_as counts each finding."""

from __future__ import annotations

import itertools

from checker.diagnostics import Finding, Location, Severity
from checker.report import counts_as
from checker import summary


def test_inline_counts_are_counts_as(monkeypatch):
    findings = [Finding(message="m", location=Location("a"), severity=severity, scope=scope, invalidates=invalidates,
                        waived=waived)
                for severity, scope, invalidates, waived in itertools.product(
                    list(Severity), ["", "root", "division", "system", "result", "round"], [True, False], [None, "w"])]
    seen = {}

    class _Summary:
        def __init__(self, **fields):
            seen.update(fields)

    monkeypatch.setattr(summary, "ResultSummary", _Summary)
    monkeypatch.setattr(summary, "reported_value", lambda result, rules: None)
    monkeypatch.setattr(summary, "_model_facts", lambda rules, model, scenario: (None, (), (), ()))
    monkeypatch.setattr(summary, "compliance_status", lambda division, tests, mine: ("n/a", ()))

    class _Part:
        def __getattr__(self, name):
            return None

    class _Result(_Part):
        scenario = "Offline"
        power = endpoint = None
        system = measurements = accuracy = _Part()

    for size in range(0, len(findings) + 1, 7):
        mine = findings[:size]
        summary.summarise(_Result(), None, mine)
        assert seen["errors"] == sum(counts_as(f) == "error" for f in mine)
        assert seen["warnings"] == sum(counts_as(f) == "warning" for f in mine)
