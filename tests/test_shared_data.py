"""One helper finds the shared real data: tests/conftest.py (REAL, real_tree), which honours MLPC_SHARED.
No test module builds its own path to ../shared, so setting MLPC_SHARED reaches every real-data test."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import REPO

OWN_PATH = re.compile(r"""["']shared["']|["']real_submissions["']\s*\)?\s*$|/\s*["']real_submissions["']""",
                      re.MULTILINE)


def test_no_test_module_builds_its_own_shared_path():
    offenders = []
    for dirpath, _, files in os.walk(os.path.join(REPO, "tests")):
        for name in files:
            path = os.path.join(dirpath, name)
            if not name.endswith(".py") or path in (os.path.join(REPO, "tests", "conftest.py"), __file__):
                continue
            with open(path, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    code = line.split("#", 1)[0]
                    if OWN_PATH.search(code) and "import" not in code:
                        offenders.append(f"{os.path.relpath(path, REPO)}:{number}: {line.strip()}")
    assert not offenders, "use REAL / real_tree from tests/conftest.py:\n" + "\n".join(offenders)


def test_mlpc_shared_moves_the_data(tmp_path):
    code = "from tests.conftest import REAL; print(REAL)"
    env = dict(os.environ, MLPC_SHARED=str(tmp_path / "elsewhere"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, check=True)
    assert done.stdout.strip() == os.path.join(str(tmp_path / "elsewhere"), "real_submissions")
