"""JSON text for large reports: objects one key per line (indented), and the record lists named by the
caller (``results``, ``findings``, ...) one compact record per line, written by ``json``'s C encoder.
(``json.dumps`` with ``indent`` falls back to its pure-Python encoder, which took most of the time of
rendering a whole round.) The data is that of ``json.dumps(value, default=str)``; only the whitespace
differs."""

from __future__ import annotations

import json
from itertools import chain
from collections.abc import Callable, Collection, Iterator

_plain = json.JSONEncoder(default=str).encode


def _c_encoder():
    """The C encoder ``_plain`` makes on every call (``JSONEncoder.iterencode``, one-shot, no indent), made
    once; None where ``json`` has no C speedups."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    model = json.JSONEncoder(default=str)
    return make({}, model.default, json.encoder.encode_basestring_ascii, None, model.key_separator,
                model.item_separator, model.sort_keys, model.skipkeys, model.allow_nan)


_c = _c_encoder()


def _encode(value) -> str:
    """``json.JSONEncoder(default=str).encode(value)``, through one C encoder kept for every call (the plain
    call makes a new one, and its Python set-up cost a round's report about a fifth of its encoding). A value
    it fails on is encoded the plain way (which raises as before) and the encoder made again (its record of
    the containers being encoded may hold those of the failed call)."""
    global _c
    if _c is None:
        return _plain(value)
    try:
        return "".join(_c(value, 0))
    except Exception:
        _c = _c_encoder()
        return _plain(value)


class Records:
    """A record list whose records are turned into objects by ``convert`` one at a time while the text is
    written, so that the objects of a whole round's records are never all in memory at once. Written
    exactly as the list of the converted records would be under a key in ``records``."""

    def __init__(self, items: Collection, convert: Callable[[object], dict]) -> None:
        self.items, self.convert = items, convert


def dumps(value, records: Collection[str] = (), indent: int = 2) -> str:
    """``value`` as indented JSON, except that a list of objects under a key in ``records`` has one
    object per line."""
    return "".join(chunks(value, records, indent))


def chunks(value, records: Collection[str] = (), indent: int = 2) -> Iterator[str]:
    """The text of ``dumps`` in pieces of at most one record each, for writing a large report to a file
    without holding all of its text."""
    def walk(item, level: int, key: str | None) -> Iterator[str]:
        pad, close = " " * (indent * (level + 1)), " " * (indent * level)
        if isinstance(item, Records):
            if not item.items:
                yield "[]"
                return
            rows = ((pad + _encode(item.convert(inner)),) for inner in item.items)
        elif isinstance(item, dict) and item:
            rows = (chain((f"{pad}{_encode(str(name))}: ",), walk(inner, level + 1, str(name)))
                    for name, inner in item.items())
        elif isinstance(item, (list, tuple)) and item:
            if key in records and all(isinstance(inner, dict) for inner in item):
                rows = ((pad + _encode(inner),) for inner in item)
            else:
                rows = (chain((pad,), walk(inner, level + 1, None)) for inner in item)
        else:
            yield _encode(item)
            return
        opening, ending = ("{", "}") if isinstance(item, dict) else ("[", "]")
        yield opening + "\n"
        for index, row in enumerate(rows):
            if index:
                yield ",\n"
            yield from row
        yield "\n" + close + ending

    yield from walk(value, 0, None)
