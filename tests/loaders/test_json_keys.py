"""Keys written twice in JSON: the last value is used, every duplicate is recorded with where it sits."""

import json

from checker.loaders.fs import parse_json_keys, parse_json_text
from checker.loaders.json_keys import loads_recording, with_first_values


def test_last_value_used_and_duplicate_recorded():
    value, dups = loads_recording('{"a": 1, "b": {"c": "x", "c": "y", "c": "z"}, "a": 2}')
    assert value == {"a": 2, "b": {"c": "z"}}
    assert [(d.pointer, d.key, d.values, d.first) for d in dups] == [
        ("", "a", ("1", "2"), 1), ("/b", "c", ('"x"', '"y"', '"z"'), "x")]
    assert all(d.disagree for d in dups)
    assert "the last (2) is used" in dups[0].describe()


def test_same_value_twice_does_not_disagree():
    _, dups = loads_recording('{"k": [1, {"v": 0}], "k": [1, {"v": 0}]}')
    assert len(dups) == 1 and not dups[0].disagree


def test_pointer_inside_lists_and_escaped_keys():
    text = '{"x/y": [{"q": 1, "q": 2}], "t~": {"q": 3, "q": 4}}'
    value, dups = loads_recording(text)
    assert sorted(d.pointer for d in dups) == ["/t~0", "/x~1y/0"]
    first = with_first_values(value, dups)
    assert first == {"x/y": [{"q": 1}], "t~": {"q": 3}}
    assert value == json.loads(text)  # the parsed value itself is untouched


def test_parse_json_text_no_longer_rejects_duplicates():
    assert parse_json_text('{"a": 1, "a": 2}') == ({"a": 2}, None)
    value, error, dups = parse_json_keys('{"a": 1, "a": 2}')
    assert (value, error, [d.key for d in dups]) == ({"a": 2}, None, ["a"])
    assert parse_json_keys('{"a": 1,')[1].startswith("invalid JSON")
