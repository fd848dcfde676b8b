"""The one-call ``__init__`` of frozen dataclasses (checker.fast_init, checker/_fields.c) makes the instances the
``__init__`` dataclasses writes makes: same parameters, defaults and factories, same fields, equality, repr,
pickling, errors for wrong arguments, still frozen; classes it does not take keep their ``__init__``."""

from __future__ import annotations

import dataclasses
import inspect
import os
import pickle
from dataclasses import dataclass, field

import pytest

from checker import fast_init as fi
from checker.context import (AccuracyCtx, MeasurementCtx, ModelCtx, ParsedLog, PowerCtx, ResultCtx, SubmitterCtx,
                             SystemCtx)
from checker.loaders import compliance_folder as cf
from checker.loaders.fs import Listing

needs_fields = pytest.mark.skipif(fi._SET_FIELDS is None and not os.environ.get("CI"),
                                  reason="the C extension checker._fields is not built here")
DECORATED = (ParsedLog, SubmitterCtx, SystemCtx, ModelCtx, MeasurementCtx, AccuracyCtx, PowerCtx, ResultCtx, Listing,
             cf.LogPass, cf.TestFolder, cf.ComplianceRecord)


def _pair():
    """The same class twice: with the one-call __init__ and with the one dataclasses wrote."""
    def make():
        @dataclass(frozen=True)
        class Sample:
            a: int
            b: tuple = ()
            c: dict = field(default_factory=dict)
            d: str = field(default="x", kw_only=True)
            e: list = field(default_factory=list, kw_only=True)
        return Sample
    return fi.fast_init(make()), make()


def test_the_extension_is_built_on_ci():
    if os.environ.get("CI") and fi._SET_FIELDS is None:
        pytest.fail("checker._fields was not built (is a C compiler and Python.h installed?)")


@needs_fields
def test_instances_are_those_dataclasses_makes():
    fast, plain = _pair()
    assert fast.__init__ is not plain.__init__ and fast.__init__.__code__.co_name == "__init__"
    assert str(inspect.signature(fast)) == str(inspect.signature(plain))
    assert fast.__init__.__qualname__ == plain.__init__.__qualname__
    for args, kwargs in (((1,), {}), ((1, (2,), {"k": 3}), {"d": "y", "e": [4]}), ((), {"a": 5, "c": {}})):
        one, other = fast(*args, **kwargs), plain(*args, **kwargs)
        assert vars(one) == vars(other) and repr(one).replace("fast", "") == repr(other).replace("plain", "")
        assert dataclasses.replace(one, a=9) == fast(**{**vars(one), "a": 9})
    assert fast(1).c is not fast(1).c and fast(1).e == []  # (a new value of each factory for each instance)
    listing = Listing(True, ("a",), dirs=("b",))
    assert pickle.loads(pickle.dumps(listing)) == listing and hash(listing) == hash(Listing(True, ("a",), ("b",)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast(1).a = 2
    for args, kwargs in (((), {}), ((1, 2, 3, 4), {}), ((1,), {"f": 1}), ((1,), {"a": 2})):
        with pytest.raises(TypeError) as got:
            fast(*args, **kwargs)
        with pytest.raises(TypeError) as want:
            plain(*args, **kwargs)
        assert str(got.value) == str(want.value)


@needs_fields
def test_every_decorated_class_has_the_parameters_dataclasses_gives_it():
    for cls in DECORATED:
        assert cls.__init__.__code__.co_filename == "<string>" and "__mlpc_set_fields" in cls.__init__.__code__.co_freevars
        again = dataclasses.make_dataclass(cls.__name__, [
            (f.name, f.type, field(default=f.default, default_factory=f.default_factory, kw_only=f.kw_only))
            for f in dataclasses.fields(cls)], frozen=True)
        assert str(inspect.signature(cls)) == str(inspect.signature(again)), cls


def test_classes_it_does_not_take_keep_their_init():
    @dataclass
    class Mutable:
        a: int

    @dataclass(frozen=True)
    class Posted:
        a: int

        def __post_init__(self):
            pass

    @dataclass(frozen=True)
    class Hidden:
        a: int
        b: int = field(default=0, init=False)

    @dataclass(frozen=True)
    class Late:
        a: int
        b: dataclasses.InitVar[int] = 0

    for cls in (Mutable, Posted, Hidden, Late):
        init = cls.__init__
        assert fi.fast_init(cls).__init__ is init


def test_without_the_extension_the_class_is_left_as_it_is(monkeypatch):
    monkeypatch.setattr(fi, "_SET_FIELDS", None)
    fast, plain = _pair()
    init = plain.__init__
    assert fi.fast_init(plain).__init__ is init


@needs_fields
def test_set_fields_refuses_what_it_cannot_set():
    fast, _ = _pair()
    one = fast(1)
    with pytest.raises(TypeError):
        fi._SET_FIELDS(one, ("a", "b"), 1)
    with pytest.raises(TypeError):
        fi._SET_FIELDS(one, ["a"], 1)
    with pytest.raises(TypeError):
        fi._SET_FIELDS(one, (1,), 1)
    with pytest.raises(AttributeError):
        fi._SET_FIELDS(object(), ("a",), 1)
    fi._SET_FIELDS(one, ("a", "z"), 5, 6)
    assert (one.a, one.z) == (5, 6)


@needs_fields
def test_replace_is_dataclasses_replace():
    fast, plain = _pair()
    one = fast(1, (2,), {"k": 3}, d="y")
    for changes in ({}, {"a": 5}, {"c": {}, "e": [1]}, {"a": 0, "b": (), "c": {}, "d": "z", "e": []}):
        got, want = fi.replace(one, **changes), dataclasses.replace(one, **changes)
        assert got is not one and type(got) is fast and vars(got) == vars(want) and got == want
    assert fi.replace(one).c is one.c  # (the values themselves, as dataclasses.replace gives them)
    with pytest.raises(TypeError):
        fi.replace(one, f=1)  # (not a field: dataclasses.replace says so)
    other = plain(1)
    assert fi.replace(other, a=2) == plain(2)  # (a class fast_init did not take: dataclasses.replace)
    listing = Listing(True, ("a",))
    assert fi.replace(listing, dirs=("d",)) == Listing(True, ("a",), ("d",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        fi.replace(listing).exists = False
