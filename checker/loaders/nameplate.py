"""Reading the nameplate power YAML of a system and the private-ID word lists (rules/private_ids.yaml).

Nothing here writes: the official checker caches private IDs in ``results/<system>/privateid.json``
inside the submission tree; mlpc computes them each time and never writes into a checked tree.
"""

from __future__ import annotations

import os
from functools import lru_cache

from checker.diagnostics import MlpcError
from checker.loaders import data_cache, yaml_text
from checker.loaders.rules import data_dir
from checker.metrics.nameplate import Nameplate, design_power

MAX_NAMEPLATE_BYTES = 1024 * 1024


@lru_cache(maxsize=1)
def private_id_words() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(adjectives, nouns) of the official private-ID scheme."""
    path = os.path.join(data_dir("rules"), "private_ids.yaml")
    try:
        data = data_cache.read_yaml(path)
        return tuple(data["adjectives"]), tuple(data["nouns"])
    except (OSError, yaml_text.YAMLError, KeyError, TypeError) as exc:
        raise MlpcError(f"{os.path.basename(path)} is invalid: {exc}") from None


def read_nameplate(path: str) -> tuple[Nameplate | None, str | None]:
    """``(nameplate, None)``, or ``(None, why)`` when the file is missing, too large, not UTF-8, not YAML
    or empty (the official checker rejects a power result whose YAML loads as nothing)."""
    try:
        if os.path.getsize(path) > MAX_NAMEPLATE_BYTES:
            return None, f"larger than {MAX_NAMEPLATE_BYTES} bytes"
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return None, "not found"
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    return parse_nameplate(raw)


def nameplate_in_tree(box, rel: str) -> tuple[Nameplate | None, str | None]:
    """:func:`read_nameplate` of a file of a checked tree, through its sandbox (links that leave the tree and
    oversized files are refused like any other file of the tree)."""
    raw, error = box.read_bytes(rel, limit=MAX_NAMEPLATE_BYTES)
    if raw is None:
        return None, error
    return parse_nameplate(raw)


def parse_nameplate(raw: bytes) -> tuple[Nameplate | None, str | None]:
    """The nameplate of a YAML file's bytes, or ``(None, why)`` when they are not UTF-8, not YAML or empty."""
    try:
        data = yaml_text.safe_load(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    except yaml_text.YAMLError as exc:  # (yaml is imported where a text is parsed)
        return None, f"not valid YAML: {str(exc).splitlines()[0]}"
    except RecursionError:
        return None, "not valid YAML: nested too deeply"
    if data is None:
        return None, "empty (it loads as nothing)"
    return design_power(data), None
