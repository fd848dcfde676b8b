"""A bytecode cache for the methods ``@dataclass`` writes.

``@dataclass`` writes the source text of each class's ``__init__``, ``__repr__``, ``__eq__``, ... and compiles
it with ``exec`` every time the module is imported: about 700 small functions for mlpc's dataclasses, a fifth
of what importing the checker costs, paid before a check can start. As Python keeps the bytecode of modules in
``__pycache__``, :func:`install` keeps the bytecode of those functions, by their source text (an entry is
right or unused, never stale), in ``checker/__pycache__/dataclass-methods.<cache tag>.marshal``, with the
code of the record shapes (:func:`compile_kept`).

Only the compiling is skipped: ``exec`` runs the same code, compiled as ``dataclasses`` compiles it (no
inherited ``__future__`` flags), in the same namespaces. The file is read when it is there (each entry's code
when it is first asked for), and written, as Python writes ``.pyc`` files, unless ``sys.dont_write_bytecode``
is set, after a run that compiled something new (``save``, at exit). A file that cannot be read, or that another Python wrote, is ignored; one that cannot
be written is not written. The CLI installs it (``checker.cli``), before it imports the checker: a program
that imports ``checker`` as a library keeps its ``dataclasses`` as they are.
"""

from __future__ import annotations

import builtins
import dataclasses
import marshal
import os
import sys

_HEADER = f"{sys.version}\n{marshal.version}\nper entry\n".encode()
# source text -> its code, or the code's marshal bytes as the file held them (read when first asked: a check asks
# for about half of what the file holds, and reading every entry at once cost ~6 ms of its start-up)
_codes: dict[str, object] = {}
_used: set[str] = set()
_new = False
_path: str | None = None
_CODE = type(compile("", "", "exec"))


def _exec(source, globals=None, locals=None, /):  # noqa: A002 - exec's own parameter names
    """``exec`` for ``dataclasses``: source text is compiled once and kept."""
    global _new
    if type(source) is str and globals is not None:
        code = _held(source)
        if code is None:
            code = _codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
            _new = True
        _used.add(source)
        source = code
    elif globals is None:  # exec's default would be this module's namespace
        globals = vars(dataclasses)
    return builtins.exec(source, globals, locals)


def _held(key: str):
    """The code kept for ``key``, read from its marshal bytes the first time; None when none is kept or what is
    kept cannot be read."""
    code = _codes.get(key)
    if type(code) is bytes:
        try:
            code = marshal.loads(code)
        except (ValueError, EOFError, TypeError):
            code = None
        if type(code) is not _CODE:
            del _codes[key]
            return None
        _codes[key] = code
    return code


def install(package_dir: str) -> None:
    """Read the cache of ``package_dir``'s ``__pycache__`` and route ``dataclasses``' compiling through it."""
    global _path
    tag = sys.implementation.cache_tag
    if tag is None or getattr(dataclasses, "exec", None) is _exec:
        return
    _path = os.path.join(package_dir, "__pycache__", f"dataclass-methods.{tag}.marshal")
    try:
        with open(_path, "rb") as handle:
            data = handle.read()
        if data.startswith(_HEADER):
            loaded = marshal.loads(data[len(_HEADER):])
            if isinstance(loaded, dict):
                _codes.update((k, v) for k, v in loaded.items() if type(k) is str and type(v) is bytes)
    except (OSError, ValueError, EOFError, TypeError):
        pass
    dataclasses.exec = _exec  # a module global: dataclasses looks it up before the builtin
    import atexit

    atexit.register(save)


def compile_kept(source: str, filename: str):
    """``compile(source, filename, "exec")`` through the same cache where the CLI installed it: for other code the
    checker writes and compiles on every run (``checker.models.record_build``'s shapes: ~5 ms a check)."""
    global _new
    if _path is None:
        return compile(source, filename, "exec", dont_inherit=True)
    key = f"{filename}\n{source}"  # (a dataclass method's source starts with "def ")
    code = _held(key)
    if code is None:
        code = _codes[key] = compile(source, filename, "exec", dont_inherit=True)
        _new = True
    _used.add(key)
    return code


def save() -> None:
    """Write the cache when this run compiled a method it did not hold (not in a worker: it exits without
    this, and not where bytecode is not written)."""
    if not _new or _path is None or sys.dont_write_bytecode:
        return
    # what this run used and what the file held, unless most of that is left from code that changed since
    kept = _codes if len(_codes) <= 2 * len(_used) + 500 else {k: _codes[k] for k in _used}
    try:
        blob = _HEADER + marshal.dumps({k: v if type(v) is bytes else marshal.dumps(v) for k, v in kept.items()})
        os.makedirs(os.path.dirname(_path), exist_ok=True)
        from checker.atomic_file import replace_file

        replace_file(_path, blob)  # (its temporary file is removed when the write fails)
    except (OSError, ValueError):
        pass
