"""Comparing mlpc's verdicts with an official checker's verdicts.csv, result by result."""

from __future__ import annotations


def verdict_mismatches(expected: dict[str, dict[str, str]], report, skip=()) -> list[tuple]:
    """(path, what, official, mlpc) for each result whose verdict differs from the official one, or, when both
    accept it, whose official result value differs. Results in ``skip`` (documented differences) and those the
    official checker crashed on are left out."""
    got = {r.id: r for r in report.results}
    mismatches = []
    for path, row in expected.items():
        if path in skip or row["status"] == "crashed":
            continue
        mine = got[path]
        official_valid = row["status"] == "valid"
        if mine.valid != official_valid:
            mismatches.append((path, "verdict", row["status"], "valid" if mine.valid else "error"))
        elif official_valid and mine.official_result() != row["result"]:
            mismatches.append((path, "result", row["result"], mine.official_result()))
    return mismatches
