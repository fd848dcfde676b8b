"""What identifies the checker that produced a report: the mlpc version, and a fingerprint of its
source code and data files (``rules/``, ``audits/``). Two reports with the same fingerprint were made
by the same checks with the same tables, so a submitter's self-check and the review committee's run
can be compared (users.md: parity between local and server runs). The incremental cache keys its
entries with the same digests."""

from __future__ import annotations

import hashlib
import os
import sys
from functools import lru_cache


@lru_cache(maxsize=1)
def version() -> str:
    """The installed mlpc version, or "source" when run from a checkout that is not installed (looked up
    once per process). Read from the name of the installed distribution's metadata folder
    (``mlpc-<version>.dist-info`` on ``sys.path``, the folder importlib.metadata reads, whose import alone
    costs 25-50 ms, a tenth of a warm re-check); through importlib.metadata when there is none."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            stem, dot, kind = name.rpartition(".")
            if kind == "dist-info" and dot and stem.lower().startswith("mlpc-") and "-" not in stem[5:]:
                return stem[5:]
    try:
        from importlib.metadata import PackageNotFoundError, version as installed

        return installed("mlpc")
    except (ImportError, PackageNotFoundError):
        return "source"


def _files_digest(folder: str, keep) -> str:
    digest = hashlib.sha256()
    for base, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if keep(name):
                path = os.path.join(base, name)
                digest.update(os.path.relpath(path, folder).encode() + b"\0")
                with open(path, "rb") as handle:
                    digest.update(hashlib.sha256(handle.read()).digest())
    return digest.hexdigest()


def package_digest() -> str:
    """sha256 over the checker package's Python source files (names and contents)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # checker/
    return _files_digest(package, lambda name: name.endswith(".py"))


def data_digest(folder: str) -> str:
    """sha256 over every file below ``folder`` (names and contents)."""
    return _files_digest(folder, lambda name: True)


def data_folders_digest() -> str:
    """The digest of the ``rules/`` and ``audits/`` data ("none" for a missing folder)."""
    from checker.diagnostics import MlpcError
    from checker.loaders.data_files import data_dir

    parts = []
    for name in ("rules", "audits"):
        try:
            parts.append(f"{name}={data_digest(os.fspath(data_dir(name)))}")
        except MlpcError:
            parts.append(f"{name}=none")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


@lru_cache(maxsize=1)
def checker_fingerprint() -> str:
    """sha256 of the version, the source digest and the data digest (computed once per process)."""
    text = f"version={version()}\nsource={package_digest()}\ndata={data_folders_digest()}"
    return hashlib.sha256(text.encode()).hexdigest()
