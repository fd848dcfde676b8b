"""The parsed content of mlpc's own data files (``rules/``, ``audits/``), kept as Python keeps bytecode.

A check reads the same YAML files every time: its round file, ``audits/rounds.yaml`` and the compliance tests'
``spec.yaml`` files, the Appendix B table. Parsing them takes about 10 ms, and importing PyYAML as long again.
As Python keeps the bytecode of a module in ``__pycache__``, :func:`read_yaml` keeps what ``yaml_text.safe_load``
made of a data file, as marshal data, in ``checker/__pycache__/data.<folder>.<file>.<cache tag>.marshal``, with
the SHA-256 of the file's bytes: an entry is used only for the bytes it was made from (a changed file is parsed
again, and its entry replaced), so a check of an unchanged install does not import yaml at all.

The file is read as bytes once; the text parsed is decoded from those bytes as ``open(path, encoding="utf-8")``
decodes a file (the same errors; the same stream name in a YAML error when ``stream``). Only the checker's own
data folders are cached (a file elsewhere, as an ``audits_dir`` given by a test, is parsed every time). An entry
is written, as ``.pyc`` files are, unless ``sys.dont_write_bytecode`` is set (``PYTHONDONTWRITEBYTECODE``,
``python -B``) or the folder is not writable; data that marshal cannot hold (a YAML date) is not cached; an
entry that cannot be read, or that another Python wrote, is ignored.

:func:`cached_object` keeps, the same way, what a loader validates from data files (the round's ``RoundRules``,
its audit spec, the Appendix B and hardware tables): pydantic builds a model's validator on its first use, which
costs more than validating (about 6 ms for ``RoundRules``, 10 ms for the audit spec), and a pickled object is
loaded without either. The round file, the audit spec, the Appendix B and the hardware tables are kept, and
returned, as records (``checker.models.record``: the models' fields and methods in plain classes), so that a check
loads them without importing pydantic at all. An entry is keyed by the bytes of every data file it is made from
and of the source of every module whose code makes it (the models, the loader, the records), and by the Python
and pydantic versions.
"""

from __future__ import annotations

import io
import marshal
import os
import sys

from checker.loaders import yaml_text

_HEADER = f"mlpc-data/1\n{sys.version}\n{marshal.version}\n".encode()
_FOLDERS = ("rules", "audits")
_roots: list[tuple[str, str]] | None = None  # (data folder with a trailing separator, its name)


def cache_dir() -> str:
    """``checker/__pycache__`` (where ``checker.dataclass_code`` keeps its file too)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "__pycache__")


def _own_roots() -> list[tuple[str, str]]:
    global _roots
    if _roots is None:
        from checker.loaders.data_files import data_dir

        roots = []
        for name in _FOLDERS:
            try:
                roots.append((os.path.join(os.fspath(data_dir(name)), ""), name))
            except Exception:  # noqa: BLE001 - a missing folder is reported by its loader
                continue
        _roots = roots
    return _roots


def entry_path(path) -> str | None:
    """The cache file of the data file ``path``, or None when it is not one of the checker's own."""
    full = os.path.abspath(os.fspath(path))
    for root, name in _own_roots():
        if full.startswith(root):
            rel = full[len(root):].replace(os.sep, ".")
            tag = sys.implementation.cache_tag
            return None if tag is None else os.path.join(cache_dir(), f"data.{name}.{rel}.{tag}.marshal")
    return None


class _Named(io.BytesIO):
    """Bytes with the ``name`` an open file has (PyYAML names the stream in its errors)."""

    def __init__(self, raw: bytes, name: str) -> None:
        super().__init__(raw)
        self.name = name


def _text(raw: bytes, name: str) -> io.TextIOWrapper:
    # the text ``open(path, encoding="utf-8")`` gives: strict UTF-8, universal newlines
    return io.TextIOWrapper(_Named(raw, name), encoding="utf-8")


def parse(raw: bytes, path, stream: bool = False):
    """``yaml_text.safe_load`` of the file ``path`` whose bytes are ``raw``: of its text (``Path.read_text``),
    or, with ``stream``, of the open file (as ``with open(path, encoding="utf-8") as f: safe_load(f)``)."""
    handle = _text(raw, os.fspath(path))
    if stream:
        return yaml_text.safe_load(handle)
    return yaml_text.safe_load(handle.read())


def digest(raw: bytes) -> bytes:
    import hashlib

    return hashlib.sha256(raw).digest()


def read_yaml(path, stream: bool = False):
    """The parsed YAML of the data file ``path``: what :func:`parse` gives, from the cache when it holds the
    parse of these very bytes. Raises what reading and parsing the file raise."""
    with open(path, "rb") as handle:
        raw = handle.read()
    entry = entry_path(path)
    if entry is None:
        return parse(raw, path, stream)
    key = digest(raw)
    held = _read_entry(entry)
    if held is not None and held[0] == key:
        return held[1]
    data = parse(raw, path, stream)
    _write_entry(entry, key, data)
    return data


def _file_digest(path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return digest(handle.read())
    except OSError:
        return None


def _pydantic_version() -> bytes:
    """What names the installed pydantic: the SHA-256 of its ``version.py`` (found without importing it)."""
    module = sys.modules.get("pydantic")
    if module is not None and getattr(module, "__file__", None):
        folder = os.path.dirname(module.__file__)
    else:
        import importlib.util

        spec = importlib.util.find_spec("pydantic")
        folders = list(spec.submodule_search_locations or ()) if spec is not None else []
        folder = folders[0] if folders else ""
    return (_file_digest(os.path.join(folder, "version.py")) if folder else None) or b"?"


def _module_file(module) -> str:
    """The source file of ``module`` (a module object, or the dotted name of one of the checker's modules, found
    without importing it)."""
    if not isinstance(module, str):
        return getattr(module, "__file__", None) or ""
    loaded = sys.modules.get(module)
    if loaded is not None and getattr(loaded, "__file__", None):
        return loaded.__file__
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # (the checker package)
    head, _, rest = module.partition(".")
    return os.path.join(package, *rest.split(".")) + ".py" if head == "checker" and rest else ""


#: the code that makes a record of a validated model (a part of every record's key)
_RECORD_CODE = ("checker.models.record", "checker.models.record_methods")


def object_key(inputs, modules) -> bytes | None:
    """The key of an object made from the data files ``inputs`` by the code of ``modules`` (module objects, or
    dotted names of the checker's modules): the SHA-256 of their names and contents; None when one of them
    cannot be read (the object is then not kept)."""
    parts = [_HEADER, _pydantic_version()]
    for kind, paths in (("data", [os.fspath(p) for p in inputs]), ("code", [_module_file(m) for m in modules])):
        for path in paths:
            found = _file_digest(path)
            if found is None:
                return None
            parts += [kind.encode(), os.path.basename(path).encode(), found]
    return digest(b"\0".join(parts))


def cached_object(name: str, inputs, modules, build, kind):
    """``build()``, or the object it returned last for the same ``inputs`` (data file paths) and ``modules`` (the
    modules whose code makes it), unpickled from ``checker/__pycache__/object.<name>.<cache tag>.pickle``.

    ``kind``: the type the object has; or the name of the pydantic model class ``build`` returns (a tuple of names:
    a tuple of such models), which is then kept and returned as its record (``checker.models.record.mirror``;
    loading it imports no pydantic). What ``build`` raises is raised (and nothing kept)."""
    import pickle

    if isinstance(kind, (str, tuple)):
        modules = [*modules, *_RECORD_CODE]
        made_by = build

        def build():
            from checker.models.record import mirror

            return mirror(made_by())

        def right(held) -> bool:
            from checker.models.record import Record

            if isinstance(kind, str):
                return isinstance(held, Record) and type(held).__name__ == kind
            return type(held) is tuple and len(held) == len(kind) and all(
                isinstance(h, Record) and type(h).__name__ == k for h, k in zip(held, kind))
    else:
        def right(held) -> bool:
            return type(held) is kind

    tag = sys.implementation.cache_tag
    plain = name == os.path.basename(name) and not name.startswith(".")  # (a round name comes from the command line)
    entry = os.path.join(cache_dir(), f"object.{name}.{tag}.pickle") if tag is not None and plain else None
    key = object_key(inputs, modules) if entry is not None else None
    if key is None:
        return build()
    body = _body(entry)
    if body is not None and body[:len(key)] == key:
        try:
            held = pickle.loads(body[len(key):])
        except Exception:  # noqa: BLE001 - an entry it cannot load is made again
            held = None
        if right(held):
            return held
    made = build()
    if right(made) and not sys.dont_write_bytecode and object_key(inputs, modules) == key:
        try:
            _write(entry, key + pickle.dumps(made, protocol=pickle.HIGHEST_PROTOCOL))
        except (pickle.PicklingError, TypeError, AttributeError):
            pass
    return made


def _body(entry: str) -> memoryview | None:
    """What the cache file ``entry`` holds after the header; None when it cannot be read or another Python (or
    another version of this code) wrote it."""
    try:
        with open(entry, "rb") as handle:
            blob = handle.read()
    except OSError:
        return None
    return memoryview(blob)[len(_HEADER):] if blob.startswith(_HEADER) else None


def _read_entry(entry: str):
    body = _body(entry)
    if body is None:
        return None
    try:
        held = marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return None
    if type(held) is not tuple or len(held) != 2 or type(held[0]) is not bytes:
        return None
    return held


def _write_entry(entry: str, key: bytes, data) -> None:
    if sys.dont_write_bytecode:
        return
    try:
        blob = marshal.dumps((key, data))
    except ValueError:  # a type marshal cannot hold (a YAML date): this file is parsed each time
        return
    _write(entry, blob)


def _write(entry: str, blob: bytes) -> None:
    """``entry`` holds ``blob`` after the header, replaced atomically; nothing is written where it cannot be."""
    from checker.atomic_file import replace_file

    try:
        os.makedirs(os.path.dirname(entry), exist_ok=True)
        replace_file(entry, _HEADER + blob)  # (its temporary file is removed when the write fails)
    except OSError:
        pass
