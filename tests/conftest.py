import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("MLPC_SHARED", os.path.join(os.path.dirname(REPO), "shared"))
REAL = os.path.join(SHARED, "real_submissions")


def real_tree(name: str) -> str:
    path = os.path.join(REAL, name)
    if not os.path.isdir(path):
        pytest.skip(f"real submission data not found at {path} (set MLPC_SHARED to the shared/ folder)")
    return path
