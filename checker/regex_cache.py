"""Compiled regular expressions kept from one run of the command line to the next.

Importing the checker compiles about 70 regular expressions, and ``re``'s parser and compiler are written in
Python: ~7 ms before a check's workers can start. What that work produces is the arguments of one call,
``_sre.compile(pattern, flags, code, groups, groupindex, indexgroup)``. :func:`install` routes ``re``'s compiling
(``re._compiler.compile``, which ``re`` calls for a pattern its own cache does not hold) through this module:
for a (pattern, flags) it keeps, ``_sre.compile`` is called with the kept arguments; for any other, ``re``
compiles it as always and the arguments of its ``_sre.compile`` call are kept, if what they build equals what
``re`` built (patterns compare equal when their text, flags and code are). They are kept in
``checker/__pycache__/regex.<cache tag>.marshal`` (``checker.kept_file``: the header names the Python, and
``_sre``'s magic number, that wrote it), written at exit after a run that compiled something new.

The CLI installs it (``checker.cli_process``), with the dataclass method cache: a program that imports
``checker`` as a library keeps ``re`` as it is.
"""

from __future__ import annotations

import re
import threading

from checker import kept_file

_compiler = re._compiler  # (Python 3.11 on)
_sre = _compiler._sre
_HEADER = kept_file.header("sre", _sre.MAGIC, _sre.CODESIZE)
_DEBUG = int(re.DEBUG)
_held: dict = {}  # (pattern, flags) -> the arguments of _sre.compile after the pattern, or their marshal bytes
_used: set = set()
_new = False
_path: str | None = None
_plain = None  # re's own compile, while installed
_lock = threading.Lock()  # (one recording at a time: the recorder stands in for _sre in re's compiler)


class _Recorder:
    """Stands in for ``_sre`` in ``re``'s compiler while one pattern is compiled: keeps the arguments of the
    ``_sre.compile`` call that makes it."""

    def __init__(self) -> None:
        self.args: tuple | None = None

    def compile(self, *args):
        self.args = args
        return _sre.compile(*args)

    def __getattr__(self, name: str):
        return getattr(_sre, name)


def _compile(pattern, flags=0):
    """``re._compiler.compile(pattern, flags)`` through the kept arguments."""
    global _new
    if type(pattern) not in (str, bytes) or type(flags) is not int or flags & _DEBUG:
        return _plain(pattern, flags)
    key = (pattern, flags)
    args = kept_file.entry(_held, key, tuple)
    if args is not None:
        try:
            made = _sre.compile(pattern, *args)
        except Exception:  # noqa: BLE001 - not what this _sre takes: compiled the plain way below
            _held.pop(key, None)
        else:
            _used.add(key)
            return made
    with _lock:
        recorder = _Recorder()
        _compiler._sre = recorder
        try:
            made = _plain(pattern, flags)
        finally:
            _compiler._sre = _sre
    args = recorder.args
    if args is not None and len(args) == 6 and args[0] == pattern and type(args[0]) is type(pattern):
        try:  # (the code as plain ints: re's compiler writes named int constants, which marshal does not take)
            args = (pattern, args[1], [int(op) for op in args[2]], *args[3:])
            same = _sre.compile(*args) == made
        except Exception:  # noqa: BLE001 - then not kept
            same = False
        if same:
            _held[key] = args[1:]
            _used.add(key)
            _new = True
    return made


def install(package_dir: str) -> None:
    """Read the kept patterns of ``package_dir``'s ``__pycache__`` and route ``re``'s compiling through them."""
    global _path, _plain
    path = kept_file.path_of(package_dir, "regex")
    if path is None or _plain is not None or not hasattr(_compiler, "compile"):
        return
    _path = path
    _held.update((k, v) for k, v in kept_file.read(path, _HEADER).items()
                 if type(k) is tuple and len(k) == 2 and type(k[0]) in (str, bytes) and type(k[1]) is int)
    _plain = _compiler.compile
    _compiler.compile = _compile
    import atexit

    atexit.register(save)


def save() -> None:
    """Write the kept patterns when this run compiled one the file did not hold (not in a worker, which exits
    without this)."""
    if _new and _path is not None:
        kept_file.write(_path, _HEADER, _held, _used)
