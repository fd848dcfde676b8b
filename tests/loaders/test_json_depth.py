"""JSON nested deeper than MAX_JSON_DEPTH is refused; the bracket count that lets most files skip the walk over
the parsed value must never let a too-deep value through."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from checker.loaders.fs import MAX_JSON_DEPTH, _depth, parse_json_keys


def _nested(containers: int, leaf: str = "1", kind: str = "[") -> str:
    close = "]" if kind == "[" else "}"
    opener = "[" if kind == "[" else '{"k":'
    return opener * containers + leaf + close * containers


def test_the_limit_itself():
    ok = _nested(MAX_JSON_DEPTH - 1)  # 63 arrays and a number: 64 levels
    assert parse_json_keys(ok)[1] is None
    too_deep = _nested(MAX_JSON_DEPTH)
    assert parse_json_keys(too_deep)[1] == f"JSON nesting deeper than {MAX_JSON_DEPTH} levels"
    assert parse_json_keys(_nested(MAX_JSON_DEPTH, kind="{"))[1] is not None
    assert parse_json_keys(_nested(MAX_JSON_DEPTH + 1, leaf="", kind="["))[1] is not None  # empty innermost


def test_brackets_inside_strings_do_not_hide_depth():
    text = json.dumps({"note": "[[[{{{" * 20, "v": json.loads(_nested(MAX_JSON_DEPTH))})
    assert parse_json_keys(text)[1] is not None
    shallow = json.dumps({"note": "[" * 200})
    assert parse_json_keys(shallow) == ({"note": "[" * 200}, None, ())


_values = st.recursive(st.none() | st.integers() | st.text(alphabet="[]{}ab", max_size=4),
                       lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
                       max_leaves=200)


@settings(max_examples=300, deadline=None)
@given(_values)
def test_same_verdict_as_the_walk(value):
    text = json.dumps(value)
    expected_error = _depth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH
    assert (parse_json_keys(text)[1] is not None) == expected_error
