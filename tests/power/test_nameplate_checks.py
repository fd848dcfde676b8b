"""Nameplate power checks of v6.1 (PW024, PW025): fixtures, the edits a submitter might make to the YAML or
to the declared design power, and that nothing is written into the checked tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from tests.conftest import REPO

sys.path.insert(0, os.path.join(REPO, "fixtures"))
import make_nameplate_fixtures as gen  # noqa: E402

FIXTURES = os.path.join(REPO, "fixtures", "nameplate")
RULES = load_rules("v6.1")


def _codes(root, rules=RULES):
    report = check_tree(str(root), rules)
    return {f.code for f in report.findings}, report


def test_base_is_clean_with_the_2400_w_template():
    codes, report = _codes(os.path.join(FIXTURES, "_base"))
    assert codes == set() and all(r.valid for r in report.results)


@pytest.mark.parametrize("code", sorted(gen.MUTATIONS))
def test_fixture_emits_exactly_its_code(code):
    codes, report = _codes(os.path.join(FIXTURES, code))
    assert codes == {code}
    assert {f.severity.value for f in report.findings} == {RULES.severities[code]}


def test_committed_fixtures_are_not_stale():
    result = subprocess.run([sys.executable, os.path.join(REPO, "fixtures", "make_nameplate_fixtures.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(os.path.join(FIXTURES, "_base"), root)
    return root


def _declare(root, value):
    import json
    path = root / gen.SYSTEM
    data = json.loads(path.read_text())
    data["system_power_capacity"] = value
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("content, why", [("a: [\n", "not valid YAML"), ("", "empty"), (b"\xff\xfe", "not UTF-8"),
                                          ("Sys: {Node: {Min PSUs Needed: 2, PSUs: [{PowerCapacityWatts: 900}]}}\n",
                                           "needs 2 PSUs but lists 1"),
                                          ("just: text\n", "no component")])
def test_unusable_yaml(tree, content, why):
    path = tree / gen.PLATE
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    codes, report = _codes(tree)
    assert "PW024" in codes, codes
    found = [f for f in report.findings if f.code == "PW024"]
    assert why in found[0].message and found[0].location.path == gen.PLATE
    assert not [f for f in report.findings if f.code.startswith("TL")]


@pytest.mark.parametrize("declared, caught", [("2400 W", False), (2400, False), ("2.4 kW", False), ("2400", False),
                                              ("2399 W", True), (2401, True), ("12 kW", True), ("lots", True),
                                              (True, True)])
def test_declared_design_power_against_the_sum(tree, declared, caught):
    _declare(tree, declared)
    codes, _ = _codes(tree)
    assert ("PW025" in codes) is caught, codes


def test_the_yaml_alone_or_the_declaration_alone_is_fine(tree):
    (tree / gen.PLATE).unlink()
    assert _codes(tree)[0] == set()
    shutil.copy(os.path.join(FIXTURES, "_base", gen.PLATE), tree / gen.PLATE)
    _declare(tree, None)
    import json
    path = tree / gen.SYSTEM
    data = json.loads(path.read_text())
    del data["system_power_capacity"]
    path.write_text(json.dumps(data))
    assert _codes(tree)[0] == set()


def test_a_link_out_of_the_tree_is_not_read(tree, tmp_path):
    """The YAML outside is never read (a broken one would give PW024); the link itself is ST005."""
    outside = tmp_path / "outside.yaml"
    outside.write_text("a: [\n")
    (tree / gen.PLATE).unlink()
    os.symlink(outside, tree / gen.PLATE)
    codes, report = _codes(tree)
    assert "ST005" in codes and "PW024" not in codes, codes


def test_rounds_before_v61_have_no_nameplate_file(tree):
    assert not {"PW024", "PW025"} & _codes(tree, load_rules("v6.0"))[0]


def test_nothing_is_written_into_the_tree(tree):
    before = sorted((p, p.stat().st_mtime_ns) for p in tree.rglob("*"))
    (tree / gen.PLATE).write_text("a: [\n")
    before = sorted((p, p.stat().st_mtime_ns) for p in tree.rglob("*"))
    _codes(tree)
    assert sorted((p, p.stat().st_mtime_ns) for p in tree.rglob("*")) == before
