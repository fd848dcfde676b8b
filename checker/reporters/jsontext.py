"""JSON text for large reports: objects one key per line (indented), and the record lists named by the
caller (``results``, ``findings``, ...) one compact record per line, written by ``json``'s C encoder.
(``json.dumps`` with ``indent`` falls back to its pure-Python encoder, which took most of the time of
rendering a whole round.) The data is that of ``json.dumps(value, default=str)``; only the whitespace
differs."""

from __future__ import annotations

import json
from itertools import chain
from collections.abc import Callable, Collection, Iterator

_encode = json.JSONEncoder(default=str).encode


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
