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


def _reference(text: str):
    """The duplicates of every object, found the plain way: each pair of the object in file order."""
    import json

    found = []

    def walk(pairs_tree, pointer):
        if isinstance(pairs_tree, _Pairs):
            values: dict = {}
            for key, value in pairs_tree:
                values.setdefault(key, []).append(value)
            for key, vals in values.items():
                if len(vals) > 1:
                    found.append((pointer, key, tuple(json.dumps(_plain(v), sort_keys=True, separators=(",", ":"),
                                                                 ensure_ascii=False) for v in vals)))
            last = {key: vals[-1] for key, vals in values.items()}
            for key, value in last.items():
                walk(value, f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}")
        elif isinstance(pairs_tree, list):
            for i, value in enumerate(pairs_tree):
                walk(value, f"{pointer}/{i}")

    walk(json.loads(text, object_pairs_hook=_Pairs), "")
    return sorted(found)


class _Pairs(list):
    pass


def _plain(value):
    if isinstance(value, _Pairs):
        return {k: _plain(v) for k, v in value}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def test_duplicates_match_a_pair_by_pair_reading_on_random_objects():
    import json
    import random

    rng = random.Random(11)
    for _ in range(400):
        def make(depth):
            if depth > 3 or rng.random() < 0.3:
                return json.dumps(rng.choice([1, "a", None, 2.5, True, [], {}]))
            if rng.random() < 0.3:
                return "[" + ",".join(make(depth + 1) for _ in range(rng.randrange(0, 4))) + "]"
            keys = [rng.choice("abc/~") for _ in range(rng.randrange(0, 6))]
            return "{" + ",".join(f"{json.dumps(k)}:{make(depth + 1)}" for k in keys) + "}"
        text = make(0)
        value, dups = loads_recording(text)
        assert value == json.loads(text)
        assert sorted((d.pointer, d.key, d.values) for d in dups) == _reference(text), text
