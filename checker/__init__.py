"""mlpc: compliance checker and audit toolkit for MLPerf Inference submissions.

The Python API is :func:`checker.check` (``checker/api.py``); the names below are imported on first
use, so that importing a submodule (the CLI, a worker process) does not load the whole checker.
"""

__all__ = ["check", "Report", "ResultSummary", "Finding", "Location", "Severity", "MlpcError"]

_HOMES = {"check": "checker.api", "Report": "checker.report", "ResultSummary": "checker.report",
          "Finding": "checker.diagnostics", "Location": "checker.diagnostics", "Severity": "checker.diagnostics",
          "MlpcError": "checker.diagnostics"}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'checker' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
