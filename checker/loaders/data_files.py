"""Where the data folders (``rules/``, ``schemas/``, ``audits/``) are, in a source checkout or an installed
wheel, and which rounds ``rules/`` holds. Light on imports: the checker fingerprint and the warm path of
the cache need the folders without loading the round-file model."""

from __future__ import annotations

from pathlib import Path

from checker.diagnostics import MlpcError


def data_dir(name: str) -> Path:
    """Locate a data folder (rules, schemas, audits) in a source checkout or an installed wheel."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / name, here / "_data" / name):
        if candidate.is_dir():
            return candidate
    raise MlpcError(f"data folder '{name}' not found next to the checker package")


def available_rounds() -> list[str]:
    return sorted(p.stem for p in data_dir("rules").glob("v*.yaml"))
