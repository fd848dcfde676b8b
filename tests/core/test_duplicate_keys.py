"""Duplicate JSON keys (issue #16, item 2), on copies of a real v5.1 submitter.

A key written twice is a warning (ST024) naming the key, both values and the one used (the last, as
every JSON reader of the MLPerf tools); it is an error (ST025) only when the other value would change
the result's verdict.
"""

import json
import os
import shutil

import pytest

from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from tests.conftest import real_tree

SUB = "closed/HPE"
SYS = "HPE_Cray_XD670_H200_SXM_141GBx8_TRT"
SYSTEM_JSON = f"{SUB}/systems/{SYS}.json"
IMPL_JSON = f"{SUB}/measurements/{SYS}/llama3.1-8b/Offline/{SYS}_Offline.json"
RESULT = f"{SUB}/results/{SYS}/llama3.1-8b/Offline"


@pytest.fixture(scope="module")
def rules():
    return load_rules("v5.1")


@pytest.fixture(scope="module")
def baseline(rules):
    report = check_tree(os.path.join(real_tree("v5.1"), SUB), rules)
    return {r.id: r.valid for r in report.results}


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "v5.1"
    shutil.copytree(os.path.join(real_tree("v5.1"), SUB), root / SUB, symlinks=True)
    return str(root)


def _duplicate(root, rel, key, first):
    """Write ``key`` again at the top of the object, with ``first`` before the file's own value."""
    path = os.path.join(root, rel)
    with open(path) as handle:
        text = handle.read()
    brace = text.index("{") + 1
    with open(path, "w") as handle:
        handle.write(text[:brace] + f"\n  {json.dumps(key)}: {json.dumps(first)}," + text[brace:])
    with open(path) as handle:
        return json.load(handle)[key]  # the value every reader uses


def test_untouched_submitter_is_all_valid(baseline):
    assert baseline and all(baseline.values())


def test_system_key_written_twice_is_a_warning_naming_both_values(tree, rules, baseline):
    used = _duplicate(tree, SYSTEM_JSON, "network_speed_mbit", "400000")
    report = check_tree(tree, rules)
    assert {r.id: r.valid for r in report.results} == baseline
    dups = [f for f in report.findings if f.code in ("ST024", "ST025")]
    assert [(f.code, f.severity.value, f.location.path) for f in dups] == [("ST024", "warning", SYSTEM_JSON)]
    message = dups[0].message
    assert "'network_speed_mbit'" in message and '"400000"' in message and json.dumps(used) in message
    assert f"the last ({json.dumps(used)}) is used" in message


def test_measurements_key_written_twice_is_a_warning(tree, rules, baseline):
    _duplicate(tree, IMPL_JSON, "weight_transformations", "none")
    report = check_tree(tree, rules)
    assert {r.id: r.valid for r in report.results} == baseline
    assert [(f.code, f.location.path) for f in report.findings if f.code.startswith("ST02")] == [
        ("ST024", IMPL_JSON)]


def test_first_value_would_invalidate_the_result(tree, rules, baseline):
    """valid with the last value, invalid with the first: an error, and the result is invalid"""
    _duplicate(tree, IMPL_JSON, "weight_data_types", "")
    report = check_tree(tree, rules)
    errors = [f for f in report.findings if f.code == "ST025"]
    assert [(f.location.path, f.result_id) for f in errors] == [(IMPL_JSON, RESULT)]
    assert "valid with the last value and would be invalid with the first" in errors[0].message
    assert {r.id for r in report.results if not r.valid} == {RESULT}


def test_last_value_invalidates_and_first_would_not(tree, rules):
    path = os.path.join(tree, IMPL_JSON)
    with open(path) as handle:
        text = handle.read()
    with open(path, "w") as handle:  # the real value first, an empty one last
        handle.write(text.rstrip().rstrip("}") + ',\n    "weight_data_types": ""\n}\n')
    report = check_tree(tree, rules)
    codes = {f.code for f in report.findings if f.result_id == RESULT}
    assert {"ST025", "MS003"} <= codes
    assert not next(r for r in report.results if r.id == RESULT).valid


def test_system_status_written_twice_changes_every_result_of_the_system(tree, rules, baseline):
    _duplicate(tree, SYSTEM_JSON, "status", "coming soon")
    report = check_tree(tree, rules)
    flagged = {f.result_id for f in report.findings if f.code == "ST025"}
    assert flagged == set(baseline)
    assert not any(r.valid for r in report.results)


def test_system_type_written_twice_is_judged_at_the_model_level_too(tree, rules, baseline):
    """"edge" first, "datacenter" last: with the first value the models are not edge benchmarks (ST015, a
    model-level check), so every result, the Offline ones included, would be invalid: ST025 on each."""
    _duplicate(tree, SYSTEM_JSON, "system_type", "edge")
    report = check_tree(tree, rules)
    flagged = {f.result_id for f in report.findings if f.code == "ST025"}
    assert flagged == set(baseline)
    assert {r for r in flagged if r.endswith("/Offline")} == {f"{SUB}/results/{SYS}/llama2-70b-99/Offline", RESULT}
    assert not any(r.valid for r in report.results)


def test_endpoint_record_key_written_twice_is_a_warning(tmp_path):
    """v6.1 endpoint results: a key of result_summary.json written twice is reported like any JSON file."""
    sub = "open/Krai"
    src = os.path.join(real_tree("v6.1"), sub)
    root = tmp_path / "v6.1"
    shutil.copytree(src, root / sub, symlinks=True)
    rel = f"{sub}/results/h200/qwen3-vl-235b-a22b/Offline/performance/result_summary.json"
    if not (root / rel).is_file():
        pytest.skip(f"{rel} not in the shared v6.1 subset")
    rules = load_rules("v6.1")
    before = {r.id: r.valid for r in check_tree(str(root), rules).results}
    used = _duplicate(str(root), rel, "n_samples_failed", 12)
    report = check_tree(str(root), rules)
    assert {r.id: r.valid for r in report.results} == before
    found = [f for f in report.findings if f.code == "ST024"]
    assert [f.location.path for f in found] == [rel]
    assert "'n_samples_failed'" in found[0].message and f"the last ({used}) is used" in found[0].message
