"""The C extension ``checker._detail_scan`` (``checker/_detail_scan.c``): the log readers' fast paths.

It is optional: ``pip install`` builds it where a C compiler and the Python headers are there. Each of its
functions stands for Python code that gives the same answer (the tests compare both on real and generated
logs); the readers take the Python code where the extension is absent or ``MLPC_PURE_PYTHON`` is set.
"""

from __future__ import annotations

import os


def compiled(name: str):
    """The extension's function ``name``, or None (not built, or ``MLPC_PURE_PYTHON`` set)."""
    if os.environ.get("MLPC_PURE_PYTHON"):
        return None
    try:
        from checker import _detail_scan
    except ImportError:
        return None
    return getattr(_detail_scan, name, None)
