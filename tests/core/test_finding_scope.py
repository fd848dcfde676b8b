"""The scope of a finding decides what it invalidates (issue #16, item 1).

Root and division errors fail the run (exit status 1) and leave every result's verdict alone; a system
error invalidates that system's results only for the codes the round lists in
``system_invalidating_codes``; the files published results repositories carry at their root are
known (ST023, info). The scope is shown in every output format.
"""

import json
import os
import shutil

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from checker.reporters import compact, csv_summary, github, html, junit, markdown, sarif, text
from checker.reporters.json_report import render as render_json
from tests.conftest import real_tree

PUBLISHED = ("dbversion", "mkdocs.yml", "run.sh", "summary_results.json")


def _add_root_files(root, names):
    for name in names:
        with open(os.path.join(root, name), "w") as handle:
            handle.write("x\n")


def _exit_code(root, *args):
    return CliRunner().invoke(app, ["check", root, "--round", "v4.1", "--no-cache", *args]).exit_code


def test_published_root_files_are_info_and_do_not_fail_the_run(base_tree):
    _add_root_files(base_tree, PUBLISHED)
    report = check_tree(base_tree, load_rules("v4.1"))
    codes = sorted((f.code, f.severity.value, f.location.path) for f in report.findings)
    assert codes == [("ST023", "info", name) for name in sorted(PUBLISHED)]
    assert report.results and all(r.valid for r in report.results)
    assert _exit_code(base_tree) == 0


def test_stray_root_file_fails_the_run_but_no_result(base_tree):
    _add_root_files(base_tree, ["notes.txt", "run.sh"])
    report = check_tree(base_tree, load_rules("v4.1"))
    stray = [f for f in report.findings if f.code == "ST002"]
    assert [f.location.path for f in stray] == ["notes.txt"]
    assert stray[0].scope == "root" and stray[0].invalidates is False
    assert all(r.valid and r.errors == 0 for r in report.results)
    assert _exit_code(base_tree) == 1


def test_division_file_fails_the_run_but_no_result(base_tree):
    _add_root_files(os.path.join(base_tree, "closed"), ["README.md"])
    report = check_tree(base_tree, load_rules("v4.1"))
    assert [(f.code, f.scope) for f in report.findings] == [("ST003", "division")]
    assert all(r.valid for r in report.results)
    assert _exit_code(base_tree) == 1


def _break_status(root):
    path = os.path.join(root, "closed/Acme/systems/edge_sys.json")
    with open(path) as handle:
        data = json.load(handle)
    data["status"] = "soon"
    with open(path, "w") as handle:
        json.dump(data, handle)


def test_system_error_invalidates_when_the_round_lists_its_code(base_tree):
    _break_status(base_tree)
    rules = load_rules("v4.1")
    assert "SY002" in rules.system_invalidating_codes
    report = check_tree(base_tree, rules)
    assert [(f.code, f.scope, f.invalidates) for f in report.findings] == [("SY002", "system", True)]
    assert report.results and not any(r.valid for r in report.results)


def test_system_error_outside_the_list_fails_the_run_only(base_tree):
    _break_status(base_tree)
    rules = load_rules("v4.1")
    rules = rules.model_copy(update={"system_invalidating_codes": [c for c in rules.system_invalidating_codes
                                                                   if c != "SY002"]})
    report = check_tree(base_tree, rules)
    assert [(f.code, f.invalidates) for f in report.findings] == [("SY002", False)]
    assert all(r.valid for r in report.results)
    assert report.has_errors()


@pytest.fixture
def stray_report(base_tree):
    _add_root_files(base_tree, ["notes.txt"])
    return check_tree(base_tree, load_rules("v4.1"))


FORMATS = ["text", "json", "csv", "markdown", "html", "sarif", "junit", "compact", "github", "github-summary"]


def _render(report, fmt, rules):
    return {
        "text": lambda r: text.render(r, details=True),
        "compact": compact.render,
        "github": lambda r: "\n".join(github.annotations(r)),
        "github-summary": github.summary,
        "json": render_json,
        "csv": lambda r: csv_summary.render(r, rules.summary_columns),
        "markdown": markdown.render,
        "html": html.render,
        "sarif": lambda r: sarif.render(r, rules.severities),
        "junit": junit.render,
    }[fmt](report)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_shows_the_scope(stray_report, fmt):
    output = _render(stray_report, fmt, load_rules("v4.1"))
    if fmt == "json":
        found = [(f["scope"], f["invalidates"]) for f in json.loads(output)["findings"] if f["code"] == "ST002"]
        assert found == [("root", False)]
    elif fmt == "sarif":
        found = [(f["properties"]["scope"], f["properties"]["invalidatesResults"])
                 for f in json.loads(output)["runs"][0]["results"] if f["ruleId"] == "ST002"]
        assert found == [("root", False)]
    elif fmt == "github":  # a workflow command property: the comma is escaped
        assert "root%2C results unaffected" in output
    else:
        assert ("ST002@root" if fmt == "csv" else "root, results unaffected") in output


V51_ST021 = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "checks", "ST021")


def test_system_without_results_fails_the_run_and_keeps_the_results_valid():
    """v5.1 B7: a system description without results marks the submitter's results/ path (the official
    checker still judges its results): ST021 fails the run and invalidates no result."""
    rules = load_rules("v5.1")
    assert "ST021" in rules.non_invalidating_codes and rules.severities["ST021"] == "error"
    report = check_tree(V51_ST021, rules)
    found = [(f.code, f.scope, f.invalidates) for f in report.findings if f.severity.value == "error"]
    assert found == [("ST021", "submitter", False)]
    assert report.results and all(r.valid for r in report.results)
    assert report.has_errors()
    assert CliRunner().invoke(app, ["check", V51_ST021, "--round", "v5.1", "--no-cache"]).exit_code == 1
    for fmt in FORMATS:
        output = _render(report, fmt, rules)
        if fmt == "json":
            assert [(f["scope"], f["invalidates"]) for f in json.loads(output)["findings"] if f["code"] == "ST021"] == [
                ("submitter", False)]
        elif fmt == "sarif":
            assert [(f["properties"]["scope"], f["properties"]["invalidatesResults"])
                    for f in json.loads(output)["runs"][0]["results"] if f["ruleId"] == "ST021"] == [("submitter", False)]
        elif fmt == "github":
            assert "submitter%2C results unaffected" in output
        else:
            assert ("ST021@submitter" if fmt == "csv" else "submitter, results unaffected") in output, fmt


def test_published_v51_round_root_keeps_every_verdict(tmp_path):
    """The v5.1 subset with the root files of the published repository: same verdicts as without."""
    src = real_tree("v5.1")
    root = tmp_path / "v5.1"
    shutil.copytree(src, root, symlinks=True)
    _add_root_files(str(root), PUBLISHED)
    rules = load_rules("v5.1")
    before = {r.id: r.valid for r in check_tree(src, rules).results}
    report = check_tree(str(root), rules)
    assert {r.id: r.valid for r in report.results} == before
    assert sum(before.values()) == 21
    assert sorted(f.location.path for f in report.findings if f.code == "ST023") == sorted(PUBLISHED)
    assert not [f for f in report.findings if f.code == "ST002"]
