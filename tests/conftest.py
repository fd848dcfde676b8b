import csv
import os
import shutil

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run (a suite that passes once passes again, on any
# machine), keep no example database in the checkout and set no time limit per example (hypothesis' default
# 200 ms made a test fail on a loaded machine); HYPOTHESIS_PROFILE=explore draws new ones.
settings.register_profile("mlpc", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "mlpc"))

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("MLPC_SHARED", os.path.join(os.path.dirname(REPO), "shared"))
REAL = os.path.join(SHARED, "real_submissions")
BASE_TREE = os.path.join(REPO, "fixtures", "checks", "_base")  # closed/Acme: gptj-99 Offline and SingleStream


@pytest.fixture
def base_tree(tmp_path) -> str:
    """A writable copy of fixtures/checks/_base, for tests that change files and check again."""
    root = tmp_path / "tree"
    shutil.copytree(BASE_TREE, root, symlinks=True)
    return str(root)


def missing_tool(message: str):
    """Skip a test whose tool (a browser, pre-commit) is not installed; under CI (``CI=true``, as CI
    services and .ci/run set it) fail instead, since CI installs it and must run the test."""
    if os.environ.get("CI", "").strip().lower() in ("true", "1"):
        pytest.fail(f"{message}; CI=true, so this test must run, not skip", pytrace=False)
    pytest.skip(message)


def official_verdicts(round_name: str, run: str = "") -> dict[str, dict[str, str]]:
    """The official checker's verdict per result folder (real_submissions/<round>-expected/[<run>/]verdicts.csv;
    ``run`` names the folder of one official checker's run where the round keeps it apart, e.g. v6.1's
    ``official-b66003e1``)."""
    path = os.path.join(REAL, f"{round_name}-expected", run, "verdicts.csv")
    if not os.path.isfile(path):
        pytest.skip(f"official {round_name} verdicts not found at {path} (set MLPC_SHARED to the shared/ folder)")
    with open(path, newline="", encoding="utf-8") as handle:
        return {row["path"]: row for row in csv.DictReader(handle)}


def real_files(keep) -> list[str]:
    """The paths of every file under the shared real subsets whose name ``keep`` takes, sorted; skips the test
    where the subsets are not there."""
    if not os.path.isdir(REAL):
        pytest.skip(f"real submission data not found at {REAL} (set MLPC_SHARED to the shared/ folder)")
    return sorted(os.path.join(folder, name) for folder, _, files in os.walk(REAL) for name in files if keep(name))


def real_tree(name: str) -> str:
    path = os.path.join(REAL, name)
    if not os.path.isdir(path):
        pytest.skip(f"real submission data not found at {path} (set MLPC_SHARED to the shared/ folder)")
    return path


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory):
    """Tests never write to the user's ~/.cache/mlpc: the incremental cache goes to a temp folder."""
    previous = os.environ.get("MLPC_CACHE_DIR")
    os.environ["MLPC_CACHE_DIR"] = str(tmp_path_factory.mktemp("mlpc-cache"))
    yield
    if previous is None:
        os.environ.pop("MLPC_CACHE_DIR", None)
    else:
        os.environ["MLPC_CACHE_DIR"] = previous
