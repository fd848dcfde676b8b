"""``jsontext._encode`` keeps one C encoder for every record instead of the one ``json.JSONEncoder.encode`` makes
per call: its text must be exactly that of ``json.JSONEncoder(default=str).encode``, for the records of a real
report and for any JSON-like value, and a value it fails on must fail as before without spoiling the next."""

from __future__ import annotations

import decimal
import json
import pathlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checker.api import check
from checker.reporters import jsontext
from tests.conftest import real_tree

PLAIN = json.JSONEncoder(default=str).encode

scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
           | st.text() | st.builds(pathlib.PurePosixPath, st.text(min_size=1)))
keys = st.text() | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner)
                      | st.dictionaries(keys, inner, max_size=5), max_leaves=30)


@given(values)
def test_any_value_is_encoded_as_the_plain_encoder_does(value):
    assert jsontext._encode(value) == PLAIN(value)


@pytest.mark.parametrize("value", [float("nan"), float("-inf"), -0.0, 1e300, 5e-324, 2**70, "\ud800", "é\n\t\"",
                                   {1: "a", 2.5: "b", None: "c", True: "d"}, {"s": {1, 2}},
                                   decimal.Decimal("1.10"), [(), {}, [[]]]])
def test_edge_values(value):
    assert jsontext._encode(value) == PLAIN(value)


def test_the_records_of_a_real_report():
    report = check(real_tree("v6.0"), round="v6.0", jobs=1, cache=False)
    records = [r.to_dict() for r in report.results] + [f.to_dict() for f in report.findings]
    assert records and [jsontext._encode(r) for r in records] == [PLAIN(r) for r in records]


class _Unprintable:
    def __str__(self):
        raise RuntimeError("no text")


def test_a_failure_fails_as_before_and_spoils_nothing():
    circular: list = []
    circular.append({"again": circular})
    for _ in range(2):
        with pytest.raises(ValueError, match="Circular reference"):
            jsontext._encode({"x": circular})
        with pytest.raises(RuntimeError, match="no text"):
            jsontext._encode([1, {"y": _Unprintable()}])
        shared = [1]
        assert jsontext._encode({"a": shared, "b": shared, "c": [shared]}) == PLAIN({"a": shared, "b": shared,
                                                                                   "c": [shared]})
    # the containers a failed call was in are encoded again: the C encoder keeps them as "being encoded"
    # (then it takes them for a circular reference), so it is made again after a failure
    held = {"y": _Unprintable()}
    outer = [held, (held,)]
    with pytest.raises(RuntimeError, match="no text"):
        jsontext._encode(outer)
    assert jsontext._c is None or jsontext._c.markers == {}
    held["y"] = 1
    assert jsontext._encode(outer) == PLAIN(outer) == '[{"y": 1}, [{"y": 1}]]'


def test_without_the_c_encoder(monkeypatch):
    monkeypatch.setattr(jsontext, "_c", None)
    value = {"a": [1.5, None, "é"], "b": {"c": float("nan")}}
    assert jsontext._encode(value) == PLAIN(value)
    assert jsontext.dumps({"results": [value, value]}, records=("results",)) == \
        '{\n  "results": [\n    ' + PLAIN(value) + ",\n    " + PLAIN(value) + "\n  ]\n}"
