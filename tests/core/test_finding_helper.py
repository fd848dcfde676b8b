"""checks.base.finding makes its Finding without the dataclass __init__: the same object as the constructor's."""

import dataclasses
import pickle

import pytest

from checker.checks.base import finding
from checker.diagnostics import Finding, Location


def _plain(path, message, expected=None, actual=None, hint=None, line=None, pointer=None, result_id=None, **data):
    return Finding(result_id=result_id, message=f"{path}: {message}", location=Location(path, line, pointer),
                   expected=None if expected is None else str(expected),
                   actual=None if actual is None else str(actual), hint=hint, data=tuple(sorted(data.items())))


@pytest.mark.parametrize("args,kwargs", [
    (("a/b.txt", "bad"), {}),
    (("a/b.txt", "bad"), {"expected": 3, "actual": 2.5, "hint": "fix", "line": 4, "pointer": "/x", "result_id": "r"}),
    (("p", "m"), {"key": "k", "run": "performance", "keys": ["a", "b"], "expected": ""}),
])
def test_finding_is_the_constructed_one(args, kwargs):
    made, plain = finding(*args, **kwargs), _plain(*args, **kwargs)
    assert made == plain and repr(made) == repr(plain) and hash(made.location) == hash(plain.location)
    assert list(made.__dict__) == [f.name for f in dataclasses.fields(Finding)] == list(plain.__dict__)
    assert list(made.location.__dict__) == list(plain.location.__dict__)
    assert dataclasses.asdict(made) == dataclasses.asdict(plain)
    assert pickle.loads(pickle.dumps(made)) == plain
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.message = "x"
    assert dataclasses.replace(made, code="PF001") == dataclasses.replace(plain, code="PF001")
