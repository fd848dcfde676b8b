"""reporters/jsontext: the same data as json.dumps, objects indented, named record lists one per line."""

import json

from hypothesis import given
from hypothesis import strategies as st

from checker.reporters import jsontext

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.sampled_from(["a", "results", "b", "é"]), inner, max_size=4), max_leaves=20)


@given(values)
def test_same_data_as_json_dumps(value):
    assert json.loads(jsontext.dumps(value, records=("results",))) == json.loads(json.dumps(value))


def test_layout():
    data = {"version": "1", "results": [{"id": 1, "x": [1, 2]}, {"id": 2}], "other": [{"k": 1}], "empty": [],
            "nested": {}}
    assert jsontext.dumps(data, records=("results",)) == "\n".join([
        "{",
        '  "version": "1",',
        '  "results": [',
        '    {"id": 1, "x": [1, 2]},',
        '    {"id": 2}',
        "  ],",
        '  "other": [',
        "    {",
        '      "k": 1',
        "    }",
        "  ],",
        '  "empty": [],',
        '  "nested": {}',
        "}"])
