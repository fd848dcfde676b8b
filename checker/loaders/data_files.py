"""Where the data folders (``rules/``, ``schemas/``, ``audits/``) are, in a source checkout or an installed
wheel, and which rounds ``rules/`` holds. Light on imports: the checker fingerprint and the warm path of
the cache need the folders without loading the round-file model."""

from __future__ import annotations

import os

from checker.diagnostics import MlpcError


def data_dir(name: str) -> str:
    """Locate a data folder (rules, schemas, audits) in a source checkout or an installed wheel (a path as
    text: ``pathlib``, with what it imports, cost a check's start-up ~5 ms)."""
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    for candidate in (os.path.join(os.path.dirname(here), name), os.path.join(here, "_data", name)):
        if os.path.isdir(candidate):
            return candidate
    raise MlpcError(f"data folder '{name}' not found next to the checker package")


def available_rounds() -> list[str]:
    folder = data_dir("rules")
    return sorted(name[:-5] for name in os.listdir(folder)
                  if name.startswith("v") and name.endswith(".yaml") and os.path.isfile(os.path.join(folder, name)))
