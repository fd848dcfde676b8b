"""The files in ``checker/__pycache__`` that keep, from one run of the command line to the next, what the checker
would otherwise make again at every start (``checker.dataclass_code``: the methods ``@dataclass`` writes;
``checker.regex_cache``: compiled regular expressions).

Each file is a header naming the Python that wrote it, then one ``marshal``-ed dict whose values are ``marshal``
bytes, read one entry at a time when first used (a run uses about half of what a file holds). Written as Python
writes ``.pyc`` files: not where bytecode is not written, replaced whole, never left half-written. A file that is
missing, cannot be read, or that another Python wrote reads as empty; one that cannot be written is not written.
"""

from __future__ import annotations

import marshal
import os
import sys


def header(*parts: object) -> bytes:
    """The header of a file this Python writes: its version, marshal's, and ``parts``."""
    return "".join(f"{part}\n" for part in (sys.version, marshal.version, *parts)).encode()


def path_of(package_dir: str, name: str) -> str | None:
    """Where the file ``name`` of ``package_dir`` is kept (None where Python keeps no bytecode files)."""
    tag = sys.implementation.cache_tag
    return None if tag is None else os.path.join(package_dir, "__pycache__", f"{name}.{tag}.marshal")


def read(path: str, head: bytes) -> dict:
    """The entries of the file at ``path`` (their values as bytes); empty where it cannot be used."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        if data.startswith(head):
            loaded = marshal.loads(data[len(head):])
            if isinstance(loaded, dict):
                return {k: v for k, v in loaded.items() if type(v) is bytes}
    except (OSError, ValueError, EOFError, TypeError):
        pass
    return {}


def write(path: str, head: bytes, entries: dict, used: set) -> None:
    """Write ``entries`` (values: bytes as read, or objects to marshal) to ``path``, with what the file holds
    now that they do not (another process may have written it since this one read it: a check's workers each
    write what they compiled): all of them, unless most were not ``used`` by this run (left from code that
    changed since): then only those."""
    if sys.dont_write_bytecode:
        return
    entries = {**read(path, head), **entries}
    kept = entries if len(entries) <= 2 * len(used) + 500 else {k: entries[k] for k in used if k in entries}
    try:
        blob = head + marshal.dumps({k: v if type(v) is bytes else marshal.dumps(v) for k, v in kept.items()})
        os.makedirs(os.path.dirname(path), exist_ok=True)
        from checker.atomic_file import replace_file

        replace_file(path, blob)  # (its temporary file is removed when the write fails)
    except (OSError, ValueError):
        pass


def entry(entries: dict, key, kind: type):
    """``entries[key]`` as an object of ``kind``, read from its bytes the first time (and kept so); None where
    there is none or what is there is not one (that entry is then dropped)."""
    value = entries.get(key)
    if type(value) is bytes:
        try:
            value = marshal.loads(value)
        except (ValueError, EOFError, TypeError):
            value = None
        if type(value) is not kind:
            del entries[key]
            return None
        entries[key] = value
    return value
