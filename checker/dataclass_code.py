"""A bytecode cache for the methods ``@dataclass`` writes.

``@dataclass`` writes the source text of each class's ``__init__``, ``__repr__``, ``__eq__``, ... and compiles
it with ``exec`` every time the module is imported: about 700 small functions for mlpc's dataclasses, a fifth
of what importing the checker costs, paid before a check can start. As Python keeps the bytecode of modules in
``__pycache__``, :func:`install` keeps the bytecode of those functions, by their source text (an entry is
right or unused, never stale), in ``checker/__pycache__/dataclass-methods.<cache tag>.marshal``, with the
code of the record shapes (:func:`compile_kept`).

Only the compiling is skipped: ``exec`` runs the same code, compiled as ``dataclasses`` compiles it (no
inherited ``__future__`` flags), in the same namespaces. The file is read and written as ``checker.kept_file``
says (each entry's code read when first asked for; written after a run that compiled something new, at exit).
The CLI installs it (``checker.cli``), before it imports the checker: a program that imports ``checker`` as a
library keeps its ``dataclasses`` as they are.
"""

from __future__ import annotations

import builtins
import dataclasses

from checker import kept_file

_HEADER = kept_file.header("per entry")
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
    """The code kept for ``key`` (read from its bytes the first time); None when none is, or it cannot be read."""
    return kept_file.entry(_codes, key, _CODE)


def install(package_dir: str) -> None:
    """Read the cache of ``package_dir``'s ``__pycache__`` and route ``dataclasses``' compiling through it."""
    global _path
    path = kept_file.path_of(package_dir, "dataclass-methods")
    if path is None or getattr(dataclasses, "exec", None) is _exec:
        return
    _path = path
    _codes.update((k, v) for k, v in kept_file.read(path, _HEADER).items() if type(k) is str)
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
    if _new and _path is not None:
        kept_file.write(_path, _HEADER, _codes, _used)
