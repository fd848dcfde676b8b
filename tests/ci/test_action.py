"""action.yml, run as GitHub would run it: each `run:` step of the composite action goes to bash with its
`env:` expressions filled in and GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_WORKSPACE and RUNNER_TEMP
pointing into a temporary folder; the test reads the job summary, the annotations on stdout, the step
outputs, the SARIF file and the exit status.

Steps that `uses:` another action (setup-python, cache) are GitHub's own and are not run; the install
step would pip-install this checkout into the test's environment, which already runs it, so it is
checked for what it installs but not run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from tests.ci.git_repo import commit_all, git, two_submitters
from tests.conftest import BASE_TREE, REPO

ACTION = os.path.join(REPO, "action.yml")
BAD = "closed/Acme/results/edge_sys/gptj-99/Offline/accuracy/accuracy.txt"
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _action() -> dict:
    with open(ACTION) as handle:
        return yaml.safe_load(handle)


def _lower_accuracy(root: str, submitter: str = "Acme") -> None:
    path = os.path.join(root, BAD.replace("Acme", submitter))
    with open(path) as handle:
        text = handle.read()
    assert "'rouge1': 43.1" in text
    with open(path, "w") as handle:
        handle.write(text.replace("'rouge1': 43.1", "'rouge1': 41.0"))


def _add_unknown_field(root: str) -> None:
    path = os.path.join(root, "closed", "Acme", "systems", "edge_sys.json")
    with open(path) as handle:
        data = json.load(handle)
    data["no_such_field"] = "x"
    with open(path, "w") as handle:
        json.dump(data, handle)


def _evaluate(text: str, context: dict) -> str:
    """Fill in ${{ a.b.c }} from ``context``; any other expression fails the test (keep the action simple)."""
    def one(match):
        value = context
        for part in match.group(1).split("."):
            assert isinstance(value, dict) and part in value, f"unsupported expression {match.group(0)!r}"
            value = value[part]
        return str(value)

    return EXPR.sub(one, str(text))


class Run:
    def __init__(self, status: int, stdout: str, stderr: str, summary: str, outputs: dict, temp: str):
        self.status, self.stdout, self.stderr, self.summary, self.outputs = status, stdout, stderr, summary, outputs
        self.temp = temp

    @property
    def annotations(self) -> list[str]:
        return [line for line in self.stdout.splitlines() if line.startswith("::")]


def run_action(workspace: str, tmp_path, inputs: dict | None = None, base_sha: str = "") -> Run:
    """Run the action's steps in ``workspace`` as a pull request (``base_sha``) or push event."""
    action = _action()
    github = {"event": {"pull_request": {"base": {"sha": base_sha}}}, "action_path": REPO, "workspace": workspace}
    context = {"github": github, "runner": {"temp": str(tmp_path / "runner-temp"), "os": "Linux"}}
    values = {}
    for name, spec in action["inputs"].items():
        values[name] = _evaluate(spec.get("default", ""), context)
    unknown = set(inputs or {}) - set(values)
    assert not unknown, f"the action has no input {unknown}"
    values.update(inputs or {})
    context["inputs"] = values
    temp = tmp_path / "runner-temp"
    temp.mkdir(parents=True, exist_ok=True)
    summary, outputs = temp / "step_summary.md", temp / "github_output"
    summary.write_text("")
    outputs.write_text("")
    env = dict(os.environ, GITHUB_STEP_SUMMARY=str(summary), GITHUB_OUTPUT=str(outputs), GITHUB_WORKSPACE=workspace,
               RUNNER_TEMP=str(temp), GITHUB_ACTIONS="true", PYTHONPATH=REPO,
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    status, stdout, stderr = None, "", ""
    assert action["runs"]["using"] == "composite"
    for step in action["runs"]["steps"]:
        if "uses" in step:
            assert step["uses"].split("@")[0] in ("actions/setup-python", "actions/cache")
            continue
        if step.get("id") == "install":
            assert "github.action_path" in str(step["env"]) and "pip install" in step["run"]
            continue
        assert step["shell"] == "bash" and "${{" not in step["run"], "expressions belong in env:, not in the script"
        step_env = dict(env, **{k: _evaluate(v, context) for k, v in step.get("env", {}).items()})
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=workspace,
                              env=step_env, capture_output=True, text=True, timeout=300)
        status, stdout, stderr = done.returncode, stdout + done.stdout, stderr + done.stderr
        if status != 0:
            break
    assert status is not None, "the action ran no step"
    parsed = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
    return Run(status, stdout, stderr, summary.read_text(), parsed, str(temp))


@pytest.fixture
def repo(tmp_path) -> str:
    """A repository whose submission tree lies in submission/ (so paths need the prefix)."""
    top = tmp_path / "repo"
    shutil.copytree(BASE_TREE, top / "submission", symlinks=True)
    return str(top)


def _sarif_uris(path: str) -> list[str]:
    with open(path) as handle:
        data = json.load(handle)
    return [loc["physicalLocation"]["artifactLocation"]["uri"]
            for result in data["runs"][0]["results"] for loc in result["locations"]]


def test_bad_result_fails_the_job_with_summary_annotations_and_sarif(repo, tmp_path):
    _lower_accuracy(os.path.join(repo, "submission"))
    run = run_action(repo, tmp_path, {"path": "submission"})
    assert run.status == 1, run.stderr
    assert run.outputs["verdict"] == "failed" and run.outputs["exit-code"] == "1"
    assert run.outputs["invalid"] == "1" and run.outputs["errors"] == "1"
    [error] = [a for a in run.annotations if a.startswith("::error ")]
    assert error.startswith(f"::error file=submission/{BAD},line=1,title=AC001 accuracy-below-target [result]::")
    assert "%0Aexpected: " in error and "\n" not in error
    assert "## mlpc: FAILED" in run.summary
    assert "| closed | Acme | 2 | 1 | **1** | AC001 x1 |" in run.summary
    assert f"`submission/{BAD}:1`" in run.summary
    sarif = run.outputs["sarif"]
    assert sarif == os.path.join(run.temp, "mlpc.sarif")  # outside the checked tree
    assert _sarif_uris(sarif) == [f"submission/{BAD}"]
    assert sorted(os.listdir(os.path.join(repo, "submission"))) == sorted(os.listdir(BASE_TREE))


def test_clean_tree_passes(repo, tmp_path):
    run = run_action(repo, tmp_path, {"path": "submission"})
    assert run.status == 0, run.stderr
    assert run.outputs["verdict"] == "passed" and run.annotations == []
    assert "## mlpc: passed" in run.summary and "No errors or warnings." in run.summary
    assert _sarif_uris(run.outputs["sarif"]) == []


def test_fail_on_warning(repo, tmp_path):
    _add_unknown_field(os.path.join(repo, "submission"))
    run = run_action(repo, tmp_path, {"path": "submission"})
    assert run.status == 0, run.stderr
    [warning] = run.annotations
    assert warning.startswith("::warning file=submission/closed/Acme/systems/edge_sys.json,")
    assert "title=SY007 unknown-field [system]::" in warning
    strict = run_action(repo, tmp_path / "strict", {"path": "submission", "fail-on": "warning"})
    assert strict.status == 1 and strict.outputs["verdict"] == "failed"
    assert "failing on warnings" in strict.summary


def test_waivers_input(repo, tmp_path):
    _lower_accuracy(os.path.join(repo, "submission"))
    (tmp_path / "waivers.yaml").write_text("- code: AC001\n  path: 'closed/Acme/*'\n  reason: accepted by the WG\n")
    run = run_action(repo, tmp_path, {"path": "submission", "waivers": str(tmp_path / "waivers.yaml")})
    assert run.status == 0, run.stderr
    assert run.annotations == [] and "| 2 | 2 | 0 | 0 | 0 | 0 | 1 |" in run.summary


def test_pull_request_checks_only_the_submitters_it_touches(tmp_path):
    root = two_submitters(tmp_path / "repo")
    _lower_accuracy(root, "Acme")  # already broken on the base branch
    base = commit_all(root)
    # a pull request that edits Beta only (and keeps it valid)
    with open(os.path.join(root, "closed", "Beta", "code", "gptj-99", "README.md"), "a") as handle:
        handle.write("\nmore notes\n")
    git(root, "commit", "-qam", "edit Beta")
    run = run_action(root, tmp_path / "pr1", base_sha=base)
    assert run.status == 0, run.stderr + run.summary
    assert "| closed | Beta |" in run.summary and "| closed | Acme |" not in run.summary
    assert f"changed since {base[:12]}" in run.summary
    # the same repository on a push event: the whole tree, Acme fails
    push = run_action(root, tmp_path / "push")
    assert push.status == 1 and "| closed | Acme |" in push.summary
    # a pull request that breaks Beta fails on Beta only
    _lower_accuracy(root, "Beta")
    git(root, "commit", "-qam", "break Beta")
    broken = run_action(root, tmp_path / "pr2", base_sha=base)
    assert broken.status == 1
    assert [a.split(",")[0] for a in broken.annotations] == [f"::error file={BAD.replace('Acme', 'Beta')}"]
    # scope all on a pull request checks everything
    assert "| closed | Acme |" in run_action(root, tmp_path / "all", {"scope": "all"}, base_sha=base).summary


def test_a_tool_failure_is_an_error_annotation_and_exit_2(repo, tmp_path):
    run = run_action(repo, tmp_path, {"path": "submission", "round": "v0.0"})
    assert run.status == 2
    assert run.outputs["verdict"] == "error"
    assert any(a.startswith("::error title=mlpc::") and "v0.0" in a for a in run.annotations)
    assert "## mlpc: could not check" in run.summary
    unknown_base = run_action(repo, tmp_path / "base", {"path": "submission"}, base_sha="0" * 40)
    assert unknown_base.status == 2 and unknown_base.outputs["verdict"] == "error"


def test_inputs_are_documented_and_every_input_reaches_the_command():
    action = _action()
    assert set(action["inputs"]) == {"path", "round", "profile", "waivers", "fail-on", "scope", "base", "sarif",
                                     "python-version", "cache"}
    assert all(spec.get("description") for spec in action["inputs"].values())
    used = " ".join(str(step.get("env", {})) + str(step.get("with", {})) + str(step.get("if", ""))
                    for step in action["runs"]["steps"])
    for name in action["inputs"]:
        assert f"inputs.{name}" in used, f"input {name} is not used"
