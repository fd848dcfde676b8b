"""`mlpc check` accepts a submission root, one division folder or one submitter folder."""

import os

from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from tests.conftest import real_tree


def test_division_and_submitter_folders_are_checked_with_root_relative_paths():
    root = real_tree("v4.1")
    rules = load_rules("v4.1")
    whole = {r.id: r for r in check_tree(root, rules).results}
    division = check_tree(os.path.join(root, "open"), rules)
    assert division.results and all(r.id.startswith("open/") for r in division.results)
    assert {r.id for r in division.results} == {i for i in whole if i.startswith("open/")}
    submitter = check_tree(os.path.join(root, "closed", "NVIDIA"), rules)
    assert {r.id for r in submitter.results} == {i for i in whole if i.startswith("closed/NVIDIA/")}
    for r in submitter.results:
        assert r.valid == whole[r.id].valid and r.value == whole[r.id].value
