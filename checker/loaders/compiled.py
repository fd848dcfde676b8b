"""The C extensions ``checker._detail_scan`` (``checker/_detail_scan.c``, the log readers' fast paths),
``checker._power_scan`` (``checker/_power_scan.c``, the power logs' readings), ``checker._accuracy_scan``
(``checker/_accuracy_scan.c``, the long-line blocks of accuracy logs), ``checker._walk_scan``
(``checker/_walk_scan.c``, the walk of a submitter folder), ``checker._json_scan`` (``checker/_json_scan.c``,
the shape of a JSON text) and ``checker._fields`` (``checker/_fields.c``, the one-call ``__init__`` of frozen
dataclasses: ``checker.fast_init``).

They are optional: ``pip install`` builds them where a C compiler and the Python headers are there. Each of
their functions stands for Python code that gives the same answer (the tests compare both on real and
generated logs); the readers take the Python code where an extension is absent or ``MLPC_PURE_PYTHON`` is set.
"""

from __future__ import annotations

import importlib
import os


def compiled(name: str, module: str = "_detail_scan"):
    """The function ``name`` of the extension ``checker.<module>``, or None (not built, or
    ``MLPC_PURE_PYTHON`` set)."""
    if os.environ.get("MLPC_PURE_PYTHON"):
        return None
    try:
        found = importlib.import_module(f"checker.{module}")
    except ImportError:
        return None
    return getattr(found, name, None)
