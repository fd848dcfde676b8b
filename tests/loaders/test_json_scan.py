"""The C shape of a JSON text (checker/_json_scan.c) lets parse_json_keys decode a text without recording the
keys of each object when no object can hold a key twice: the value, error and duplicate keys it gives are those
of the plain reading (every object's keys recorded, the brackets counted), on every real JSON file and on
generated texts of odd keys, escapes, nesting and invalid JSON; where the extension is not built the plain
reading is used."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings, strategies as st

from checker.loaders import fs, json_keys
from checker.loaders.compiled import compiled
from checker.loaders.fs import parse_json_keys
from tests.conftest import real_files

shape = compiled("shape", "_json_scan")
needs_shape = pytest.mark.skipif(shape is None and not os.environ.get("CI"),
                                 reason="the C extension checker._json_scan is not built here")


def _plain(text: str):
    """parse_json_keys(text) without the C shape: every object's keys recorded, the brackets counted."""
    saved, fs.json_shape = fs.json_shape, None
    try:
        return parse_json_keys(text)
    finally:
        fs.json_shape = saved


def _facts(parsed) -> tuple:
    value, error, duplicates = parsed
    return (json.dumps(value), error, [(d.pointer, d.key, d.values, json.dumps(d.first)) for d in duplicates])


def _same(text: str) -> None:
    assert _facts(parse_json_keys(text)) == _facts(_plain(text)), text


def test_the_extension_is_built_on_ci():
    if os.environ.get("CI") and shape is None:
        pytest.fail("checker._json_scan was not built (is a C compiler and Python.h installed?)")


@needs_shape
def test_shapes():
    assert shape('{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}') == (True, 3)
    assert shape('{"a": 1, "b": 2, "a": 3}') == (False, 1)
    assert shape('{"a":{"x":1,\n"x" :2}}') == (False, 2)
    assert shape('{"a\\u0062": 1, "ab": 2}') == (False, 1)  # (an escape in a key: not told apart here)
    assert shape('{"k": "a:", "v": ":"}') == (True, 1)  # (strings followed by a colon only are keys)
    assert shape('["a", "a"]') == (True, 1)
    assert shape('{"s": "[[{{\\"]]"}') == (True, 1)  # (brackets and an escaped quote inside a string)
    assert shape('"x"') == (True, 0) and shape("") == (True, 0)
    assert shape('{"\u00e9": 1}') is None  # (not ASCII: the plain reading)
    many = "{" + ", ".join(f'"k{i}": {i}' for i in range(40)) + "}"
    assert shape(many) == (True, 1) and shape(many[:-1] + ', "k7": 0}') == (False, 1)  # (the hash table)
    for odd in ('{"a": 1, "a"', '{"a": 1, "a": 2', '{"a": "x', "]]}}", '{"a": 1}}]', '{"a": [1, "a": 2}', "\\"):
        assert shape(odd) in ((True, shape(odd)[1]), (False, shape(odd)[1]))


@needs_shape
def test_every_real_json_file_reads_the_same():
    count = unique = 0
    for path in real_files(lambda name: name.endswith(".json") and name != "mlperf_log_accuracy.json"):
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", errors="replace")
        _same(text)
        count += 1
        found = shape(text)
        unique += found is not None and found[0]
    assert count > 100 and unique > count * 0.9, (count, unique)  # (nearly every real file takes the fast path)


_keys = st.sampled_from(["a", "b", "ab", "a\\u0062", "\\u0061", "k:", 'x\\"y', "[", "}", "", "a" * 20])
_scalars = st.sampled_from(["1", "-2.5e3", "true", "null", '"s"', '"a:"', '"[{"', '"\\\\"', '"\\""', "NaN"])


@st.composite
def _json(draw, depth: int = 0) -> str:
    """JSON text (valid but for the odd piece) of objects whose keys repeat now and then."""
    kind = draw(st.sampled_from(["scalar", "list", "object", "object"] if depth < 3 else ["scalar"]))
    if kind == "scalar":
        return draw(_scalars)
    if kind == "list":
        return "[" + ", ".join(draw(st.lists(_json(depth + 1), max_size=3))) + "]"
    pairs = draw(st.lists(st.tuples(_keys, _json(depth + 1)), max_size=20 if depth == 0 else 4))  # (20: a table)
    space = draw(st.sampled_from(["", " ", "\n  ", "\t"]))
    return "{" + ",".join(f'{space}"{k}"{space}:{space}{v}' for k, v in pairs) + space + "}"


@needs_shape
@settings(max_examples=300, deadline=None)
@given(_json(), st.sampled_from(["", "cut", "extra", "deep"]))
def test_generated_texts_read_the_same(text, odd):
    if odd == "cut":
        text = text[: len(text) // 2]
    elif odd == "extra":
        text = text + "]"
    elif odd == "deep":
        text = "[" * 70 + text + "]" * 70
    _same(text)


@needs_shape
def test_unique_keys_are_decoded_without_recording_them(monkeypatch):
    calls, loads = [], json.loads
    monkeypatch.setattr(json_keys.json, "loads", lambda *a, **k: calls.append(k) or loads(*a, **k))
    assert parse_json_keys('{"a": {"b": 1}, "b": 2}') == ({"a": {"b": 1}, "b": 2}, None, ())
    assert parse_json_keys('{"a": 1, "a": 2}')[0] == {"a": 2}
    assert [list(kwargs) for kwargs in calls] == [[], ["object_pairs_hook"]]
