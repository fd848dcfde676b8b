"""The committed failing fixture trees under fixtures/plausibility/<CODE>/: each emits exactly its code."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from tests.conftest import REPO

FIXTURES = os.path.join(REPO, "fixtures", "plausibility")
CODES = ("PL001", "PL002", "PL003", "PL004", "PL005")


@pytest.mark.parametrize("code", CODES)
def test_fixture_emits_exactly_its_code(code):
    report = check_tree(os.path.join(FIXTURES, code), load_rules("v4.1"))
    assert {f.code for f in report.findings} == {code}
    found = [f for f in report.findings if f.code == code]
    ids = {r.id for r in report.results}
    assert all(f.result_id in ids for f in found)
    # only PL001 (an error) makes its result invalid; warnings and info leave every verdict valid
    invalid = {r.id for r in report.results if not r.valid}
    assert invalid == ({f.result_id for f in found} if code == "PL001" else set())


def test_fixture_details():
    rules = load_rules("v4.1")
    pl003 = [f for f in check_tree(os.path.join(FIXTURES, "PL003"), rules).findings]
    assert [f.result_id for f in pl003] == ["closed/Acme/results/h200_d/gptj-99/Offline"]
    assert dict(pl003[0].data)["peer_ratio"] == pytest.approx(1.5, rel=1e-3)
    pl004 = check_tree(os.path.join(FIXTURES, "PL004"), rules).findings
    assert [f.result_id for f in pl004] == ["closed/Acme/results/h200_dc/gptj-99/Server"]
    pl005 = check_tree(os.path.join(FIXTURES, "PL005"), rules).findings
    assert {f.location.path for f in pl005} == {"closed/Acme/systems/mystery_a.json"} and len(pl005) == 2


def test_fixtures_are_not_stale():
    result = subprocess.run([sys.executable, os.path.join(FIXTURES, "make_fixtures.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_cli_exit_codes_on_fixtures():
    from typer.testing import CliRunner

    from checker.cli import app
    runner = CliRunner()
    assert runner.invoke(app, ["check", os.path.join(FIXTURES, "PL001"), "-q"]).exit_code == 1
    assert runner.invoke(app, ["check", os.path.join(FIXTURES, "PL002"), "-q"]).exit_code == 0
    assert runner.invoke(app, ["check", os.path.join(FIXTURES, "PL002"), "-q", "--strict"]).exit_code == 1
    out = runner.invoke(app, ["explain", "PL003"])
    assert out.exit_code == 0 and "What it checks:" in out.output
