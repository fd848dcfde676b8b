"""CLI commands, exit codes, JSON report schema, read-only guarantee."""

import hashlib
import json
import os

import jsonschema
from typer.testing import CliRunner

from checker.cli import app
from checker.registry import ALL_CHECKS
from tests.conftest import REPO, real_tree

BASE = os.path.join(REPO, "fixtures", "checks", "_base")
runner = CliRunner()


def _schema():
    with open(os.path.join(REPO, "schemas", "report.schema.json")) as handle:
        return json.load(handle)


def test_check_clean_tree_exit_0_and_round_detected():
    result = runner.invoke(app, ["check", BASE])
    assert result.exit_code == 0, result.output
    assert "v4.1" in result.output and "seeds" in result.output


def test_check_failing_tree_exit_1():
    result = runner.invoke(app, ["check", os.path.join(REPO, "fixtures", "checks", "PF005")])
    assert result.exit_code == 1
    assert "PF005" in result.output and "expected" in result.output


def test_strict_turns_warnings_into_failure():
    path = os.path.join(REPO, "fixtures", "checks", "SY007")
    assert runner.invoke(app, ["check", path]).exit_code == 0
    assert runner.invoke(app, ["check", path, "--strict"]).exit_code == 1


def test_json_report_validates_against_schema():
    result = runner.invoke(app, ["check", os.path.join(REPO, "fixtures", "checks", "AC001"), "--format", "json"])
    data = json.loads(result.output)
    jsonschema.validate(data, _schema())
    assert data["counts"]["invalid"] == 1
    assert any(f["code"] == "AC001" and f["expected"].startswith(">=") for f in data["findings"])


def test_json_report_on_real_tree_validates_and_is_deterministic():
    root = real_tree("v4.1")
    first = runner.invoke(app, ["check", root, "--format", "json", "--round", "v4.1"]).output
    second = runner.invoke(app, ["check", root, "--format", "json", "--round", "v4.1"]).output
    assert first == second
    jsonschema.validate(json.loads(first), _schema())


def test_checks_lists_every_code_and_explain_prints_docs():
    result = runner.invoke(app, ["checks"])
    assert result.exit_code == 0
    for c in ALL_CHECKS:
        assert c.code in result.output
    result = runner.invoke(app, ["explain", "pf005"])
    assert result.exit_code == 0 and "How to fix" in result.output
    assert runner.invoke(app, ["explain", "XX999"]).exit_code == 2


def _tree_digest(root):
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames) + dirnames:
            path = os.path.join(dirpath, name)
            digest.update(os.path.relpath(path, root).encode())
            st = os.lstat(path)
            digest.update(f"{st.st_mode}:{st.st_size}:{st.st_mtime_ns}".encode())
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as handle:
                    digest.update(handle.read())
    return digest.hexdigest()


def test_input_tree_is_never_written():
    root = real_tree("v4.1")
    before = _tree_digest(root)
    runner.invoke(app, ["check", root, "--format", "json"])
    runner.invoke(app, ["check", BASE])
    assert _tree_digest(root) == before


def test_readme_checks_table_is_current():
    from checker.loaders.rules import available_rounds, load_rules
    from checker.reporters.checks_table import END, START, render

    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    embedded = text[text.index(START): text.index(END) + len(END)]
    expected = render(ALL_CHECKS, {r: load_rules(r) for r in available_rounds()})
    assert embedded == expected, "README checks table is stale: run `mlpc checks --markdown`"


def test_readme_quick_start_is_two_commands_that_work():
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    block = text.split("## Quick start", 1)[1].split("```sh", 1)[1].split("```", 1)[0].strip().splitlines()
    assert len(block) == 2
    command = block[0].split("&&", 1)[1].split()
    assert command[:2] == ["mlpc", "check"] and command[2] == "fixtures/example_submission_v6.0"
    assert "pytest" in block[1]
    result = runner.invoke(app, command[1:2] + [os.path.join(REPO, command[2])] + command[3:])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("PROFILE 'smoke'") and "round     v6.0" in result.output
    # the v4.1 example tree keeps working
    result = runner.invoke(app, ["check", os.path.join(REPO, "fixtures", "example_submission"), "--profile", "smoke"])
    assert result.exit_code == 0, result.output
    assert "round     v4.1" in result.output
