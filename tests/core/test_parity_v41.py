"""`mlpc check --round v4.1` on the real v4.1 subset agrees with the official checker per result."""

import csv
import os

from checker.engine import check_tree
from checker.loaders.rules import load_rules
from tests.conftest import real_tree

# Deliberate differences from the official verdicts (result path -> reason). Keep this minimal;
# each entry is also listed in README.md under "Differences from the official checker".
DOCUMENTED_DIFFERENCES: dict[str, str] = {}


def test_v41_verdicts_and_values_match_official():
    root = real_tree("v4.1")
    expected_path = os.path.join(os.path.dirname(root), "v4.1-expected", "verdicts.csv")
    with open(expected_path, newline="") as handle:
        expected = {row["path"]: row for row in csv.DictReader(handle)}
    report = check_tree(root, load_rules("v4.1"))
    got = {r.id: r for r in report.results}
    assert set(got) == set(expected), "result folders differ from the official list"
    mismatches = []
    for path, row in expected.items():
        if path in DOCUMENTED_DIFFERENCES:
            continue
        mine = got[path]
        official_valid = row["status"] == "valid"
        if mine.valid != official_valid:
            mismatches.append((path, "verdict", official_valid, mine.valid))
        elif official_valid and mine.official_result() != row["result"]:
            mismatches.append((path, "result", row["result"], mine.official_result()))
    assert mismatches == []
    assert sum(r.valid for r in report.results) == 42


def test_v41_official_warnings_are_reported():
    root = real_tree("v4.1")
    report = check_tree(root, load_rules("v4.1"))
    unknown = {(f.location.path, f.actual) for f in report.findings if f.code == "SY007"}
    assert ("open/NeuralMagic/systems/ASUS_Vivobook-reference-cpu-deepsparse_v1.8.0-default_config.json", "device") in unknown
    open_acc = [f for f in report.findings if f.code == "AC008"]
    assert len(open_acc) == 12 and all(f.severity.value == "warning" for f in open_acc)
