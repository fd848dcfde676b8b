"""Records made straight from field values, checked as their pydantic model would check them.

The round checks build thousands of small models per round (``Submission``, ``ScenarioResult``, ``Assessment``,
``Flag``, ``Roofline``) from values the checker computed; building their validators and importing pydantic cost
more than the assessment itself. A :class:`Shape` lists a model's fields, each with a :data:`Kind` that accepts a
plain, unambiguous value and gives what the model would store (a stripped string, an int as a float, ...).
:meth:`Shape.make` builds the model's record (``checker.models.record``) from such values; any value a kind does
not take (a string where a number belongs, a value out of range, an unknown field) sends the whole call to the
model itself, whose validation then decides: its record, or its ``ValidationError``. A kind therefore never
accepts what the model would refuse, and never stores what the model would store differently
(``tests/plausibility/test_record_shapes.py`` holds every shape to its model).
"""

from __future__ import annotations

import math
from typing import Any, Callable

from checker.dataclass_code import compile_kept
from checker.models.record import Record, record_class


class Refused(Exception):
    """A value a kind leaves to the model's own validation."""


Kind = Callable[[Any], Any]
REQUIRED = object()  # (the default of a field without one)


def text(value: Any) -> str:
    if type(value) is not str:
        raise Refused
    return value


def stripped(value: Any) -> str:  # (a model with str_strip_whitespace)
    if type(value) is not str:
        raise Refused
    return value.strip()


def stripped_nonempty(value: Any) -> str:
    if type(value) is not str or not value.strip():
        raise Refused
    return value.strip()


def number(value: Any) -> float:
    if type(value) is float:
        return value
    if type(value) is int:
        return float(value)
    raise Refused


def positive_finite(value: Any) -> float:
    found = number(value)
    if not (found > 0 and math.isfinite(found)):
        raise Refused
    return found


def integer(value: Any) -> int:
    if type(value) is not int:
        raise Refused
    return value


def flag(value: Any) -> bool:
    if type(value) is not bool:
        raise Refused
    return value


def optional(kind: Kind) -> Kind:
    def check(value: Any) -> Any:
        return None if value is None else kind(value)

    return check


def one_of(*values: str) -> Kind:
    def check(value: Any) -> str:
        if type(value) is not str or value not in values:
            raise Refused
        return value

    return check


def records_of(shape: Shape) -> Kind:
    """A tuple (or list) of ``shape``'s records, as a tuple."""
    def check(value: Any) -> tuple:
        if type(value) not in (tuple, list) or any(type(v) is not shape.cls for v in value):
            raise Refused
        return tuple(value)

    return check


def record_of(shape: Shape) -> Kind:
    def check(value: Any) -> Record:
        if type(value) is not shape.cls:
            raise Refused
        return value

    return check


class Shape:
    """A model's fields, in its order, as ``(name, kind, default)``; ``model``: imports and returns the
    pydantic model class (called only for a value the kinds leave to it). A default is stored as it is (each
    kind takes its field's default unchanged)."""

    def __init__(self, name: str, mixin: type | None, fields: tuple[tuple[str, Kind, Any], ...],
                 model: Callable[[], type]) -> None:
        self.fields = fields
        self.model = model
        self.cls = record_class(name, tuple(f[0] for f in fields), mixin)
        self.make = self._compiled()

    def _compiled(self) -> Callable[..., Record]:
        """``make(**values)``: the record of ``model(**values)``; what the model's validation raises is raised.
        Written out for the shape's fields, as ``dataclasses`` writes an ``__init__`` (a loop over the fields cost
        the round plausibility twice as much): each value through its kind (a default as it is), any refusal, or
        an unknown field, to :meth:`_validated` with the values given."""
        scope = {"_R": REQUIRED, "_new": object.__new__, "_put": object.__setattr__, "_cls": self.cls,
                 "_Refused": Refused, "_given": self._given}
        params, body, given = [], [], []
        for i, (name, kind, default) in enumerate(self.fields):
            scope[f"_K{i}"], scope[f"_D{i}"] = kind, default
            params.append(f"{name}=_D{i}")
            given.append(f"{name!r}: {name}")
            if default is REQUIRED:
                body.append(f"        if {name} is _R: raise _Refused")
                body.append(f"        _put(_m, {name!r}, _K{i}({name}))")
            else:
                body.append(f"        _put(_m, {name!r}, {name} if {name} is _D{i} else _K{i}({name}))")
        source = "\n".join([
            f"def make(*, {', '.join(params)}, **_extra):",
            "    try:",
            "        if _extra: raise _Refused",
            "        _m = _new(_cls)",
            *body,
            "        return _m",
            "    except _Refused:",
            f"        return _given({{{', '.join(given)}}}, _extra)",
        ])
        exec(compile_kept(source, f"<shape {self.cls.__name__}>"), scope)  # noqa: S102 - our own field names
        return scope["make"]

    def _given(self, values: dict, extra: dict) -> Record:
        """:meth:`_validated` of the values a call gave (a field left at ``REQUIRED`` was not given)."""
        return self._validated({**{k: v for k, v in values.items() if v is not REQUIRED}, **extra})

    def _validated(self, values: dict) -> Record:
        from checker.models.record import mirror

        return mirror(self.model()(**{name: _plain(value) for name, value in values.items()}))


def _plain(value: Any) -> Any:
    """A value for a model: records as the dicts the model validates into its own nested models."""
    if isinstance(value, Record):
        return value.model_dump()
    if type(value) in (tuple, list) and any(isinstance(v, Record) for v in value):
        return type(value)(_plain(v) for v in value)
    return value
