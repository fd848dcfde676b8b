"""JSON objects with a key written twice: parsed as every JSON reader of the MLPerf tools parses them
(the last value is used), with each duplicate recorded so that checks can report it and judge whether
the other value would change a verdict. Pure: no disk access (the Sandbox reads the text).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from checker.loaders.compiled import compiled

#: (whether no object of a JSON text can hold a key twice, how deep its brackets nest) of an ASCII text, in C
#: (``checker/_json_scan.c``); None where it is not built
shape = compiled("shape", "_json_scan")


@dataclass(frozen=True, eq=False)
class DuplicateKey:
    """A key written more than once in one JSON object."""

    pointer: str  # JSON pointer of the object holding the key ("" = the top-level object)
    key: str
    values: tuple[str, ...]  # every value written, as compact JSON text, in file order (the last is used)
    first: Any  # the first value, decoded

    @property
    def disagree(self) -> bool:
        return len(set(self.values)) > 1

    def describe(self) -> str:
        where = f" in {self.pointer}" if self.pointer else ""
        return (f"key {self.key!r}{where} written {len(self.values)} times with values "
                f"{', '.join(self.values)}; the last ({self.values[-1]}) is used")


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def loads_recording(text: str, unique: bool = False) -> tuple[Any, tuple[DuplicateKey, ...]]:
    """``json.loads`` (last value wins) plus the duplicate keys it met. Raises as ``json.loads``. ``unique``: the
    caller knows that no object of the text holds a key twice (:data:`shape`): json.loads alone then gives the
    value, without a call per object to record the keys."""
    if unique:
        return json.loads(text), ()
    seen: dict[int, list[tuple[str, list[Any]]]] = {}

    def hook(pairs: list[tuple[str, Any]]) -> dict:
        out = dict(pairs)  # the last value of a key wins, as in json.loads
        if len(out) == len(pairs):
            return out
        values: dict[str, list[Any]] = {}
        for key, value in pairs:
            values.setdefault(key, []).append(value)
        seen[id(out)] = [(key, found) for key, found in values.items() if len(found) > 1]
        return out

    value = json.loads(text, object_pairs_hook=hook)
    if not seen:
        return value, ()
    found: list[DuplicateKey] = []
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:  # find where each object holding a duplicate sits
        item, pointer = stack.pop()
        if isinstance(item, dict):
            for key, values in seen.get(id(item), ()):
                found.append(DuplicateKey(pointer, key, tuple(_text(v) for v in values), values[0]))
            stack.extend((v, f"{pointer}/{_escape(k)}") for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{pointer}/{i}") for i, v in enumerate(item))
    found.sort(key=lambda d: (d.pointer, d.key))
    return value, tuple(found)


def _escape(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def with_first_values(value: Any, duplicates: tuple[DuplicateKey, ...]) -> Any:
    """A copy of ``value`` as a reader that keeps the first of each duplicated key would see it."""
    if not duplicates:
        return value
    copy = json.loads(json.dumps(value))
    for dup in duplicates:
        node = copy
        for part in [p for p in dup.pointer.split("/")[1:]]:
            node = node[int(part)] if isinstance(node, list) else node[_unescape(part)]
        node[dup.key] = json.loads(json.dumps(dup.first))
    return copy
