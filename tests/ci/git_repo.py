"""A throw-away git repository of submissions for the CI integration tests: git run with a fixed identity and
no user or system configuration, and the base tree copied with a second submitter beside the first."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import BASE_TREE

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: str, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=dict(os.environ, **GIT_ENV), check=True,
                          capture_output=True, text=True).stdout.strip()


def two_submitters(top: Path) -> str:
    """BASE_TREE copied to ``top`` with closed/Beta, a copy of closed/Acme under its own name (not committed)."""
    shutil.copytree(BASE_TREE, top, symlinks=True)
    root = str(top)
    shutil.copytree(os.path.join(root, "closed", "Acme"), os.path.join(root, "closed", "Beta"), symlinks=True)
    system = os.path.join(root, "closed", "Beta", "systems", "edge_sys.json")
    with open(system) as handle:
        text = handle.read()
    with open(system, "w") as handle:
        handle.write(text.replace('"submitter": "Acme"', '"submitter": "Beta"'))
    return root


def commit_all(root: str, message: str = "base") -> str:
    """A new repository at ``root`` (branch main) holding everything in it, in one commit; its hash."""
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD")
