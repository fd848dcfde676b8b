"""The pre-commit hook (.pre-commit-hooks.yaml), run by the real `pre-commit` tool: `pre-commit try-repo` of
this checkout on a temporary git repository holding a fixture tree. A commit with a bad result is refused
with the finding; a good one passes; only the submitters holding staged files are checked.

The test runs the `mlpc-system` hook (the mlpc of this environment: no install, no network) from a
repository holding this checkout's .pre-commit-hooks.yaml (a system hook needs nothing else from the
repository, and try-repo of the whole checkout copies its 30 MB of fixtures each time). The `mlpc` hook
(`language: python`) runs the same command after pre-commit pip-installs this repository and its
dependencies into a fresh virtualenv, which needs the package registry; it is checked for the same
command here but not installed.

pre-commit is a test dependency (pyproject `test` extra). Without it the test skips, except under CI
(CI=true), where a missing tool is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from tests.conftest import REPO, missing_tool
from tests.ci.git_repo import GIT_ENV, commit_all, git, two_submitters
from tests.ci.test_action import _lower_accuracy

HOOKS = os.path.join(REPO, ".pre-commit-hooks.yaml")


def _pre_commit() -> list[str]:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        missing_tool("pre-commit not installed (pip install -e '.[test]'); pre-commit hook test skipped")
    return [sys.executable, "-m", "pre_commit"]


@pytest.fixture
def repo(tmp_path) -> str:
    """A submission repository (closed/Acme and closed/Beta, both valid) with one commit."""
    root = two_submitters(tmp_path / "submissions")
    commit_all(root)
    return root


def _hooks_repo(tmp_path) -> str:
    """A git repository holding this checkout's .pre-commit-hooks.yaml."""
    top = tmp_path / "hooks-repo"
    if not top.exists():
        top.mkdir()
        shutil.copy(HOOKS, top / ".pre-commit-hooks.yaml")
        commit_all(str(top), "hooks")
    return str(top)


def _try_repo(root: str, tmp_path, hook: str = "mlpc-system") -> subprocess.CompletedProcess:
    """`pre-commit try-repo` of the hooks on the staged files of ``root``."""
    env = dict(os.environ, **GIT_ENV, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"), PYTHONPATH=REPO,
               MLPC_CACHE_DIR=str(tmp_path / "mlpc-cache"),
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    env.pop("PRE_COMMIT", None)
    return subprocess.run([*_pre_commit(), "try-repo", _hooks_repo(tmp_path), hook, "--verbose"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


def test_hooks_run_the_pre_commit_command():
    with open(HOOKS) as handle:
        hooks = {h["id"]: h for h in yaml.safe_load(handle)}
    assert set(hooks) == {"mlpc", "mlpc-system"}
    for hook in hooks.values():
        assert hook["entry"] == "mlpc ci pre-commit" and hook["pass_filenames"] is True and hook["always_run"] is True
    assert hooks["mlpc"]["language"] == "python" and hooks["mlpc-system"]["language"] == "system"


def test_bad_result_is_refused_with_the_finding(repo, tmp_path):
    _lower_accuracy(repo, "Acme")
    git(repo, "add", "-A")
    run = _try_repo(repo, tmp_path)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "Failed" in out
    assert "closed/Acme/results/edge_sys/gptj-99/Offline/accuracy/accuracy.txt:1: AC001 error accuracy-below-target" \
        in out
    assert "mlpc FAILED: 2 results of closed/Acme checked" in out


def test_good_change_passes_and_only_staged_submitters_are_checked(repo, tmp_path):
    _lower_accuracy(repo, "Beta")  # Beta is already broken on the branch
    git(repo, "commit", "-qam", "Beta as it was")
    with open(os.path.join(repo, "closed", "Acme", "code", "gptj-99", "README.md"), "a") as handle:
        handle.write("\nmore notes\n")
    git(repo, "add", "-A")
    run = _try_repo(repo, tmp_path)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert "Passed" in out and "mlpc ok: 2 results of closed/Acme checked" in out and "Beta" not in out
    # a commit touching Beta is refused with Beta's finding
    git(repo, "commit", "-qm", "Acme notes")
    with open(os.path.join(repo, "closed", "Beta", "code", "gptj-99", "README.md"), "a") as handle:
        handle.write("\nmore notes\n")
    git(repo, "add", "-A")
    refused = _try_repo(repo, tmp_path)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "closed/Beta/results/edge_sys/gptj-99/Offline/accuracy/accuracy.txt:1: AC001" in refused.stdout
    assert "mlpc FAILED: 2 results of closed/Beta checked" in refused.stdout


def test_a_commit_that_only_deletes_a_file_is_checked(repo, tmp_path):
    # pre-commit passes no deleted file; the command reads the deletion from git's index
    git(repo, "rm", "-q", "closed/Acme/results/edge_sys/gptj-99/Offline/accuracy/accuracy.txt")
    run = _try_repo(repo, tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "ST020 error accuracy-files-mismatch" in run.stdout
    assert "mlpc FAILED: 2 results of closed/Acme checked" in run.stdout
