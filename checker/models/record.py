"""Plain frozen records: what a check holds of mlpc's own validated data files, without pydantic.

The round file, the audit spec, the Appendix B and the hardware tables are validated by strict pydantic models
(``checker.models.rules``, ``audit_spec``, ``appendix_b``, ``hardware_tables``) when a data file changes; a check
reads them from ``checker/__pycache__`` (``checker.loaders.data_cache.cached_object``). Keeping them there as
pydantic instances made every check import pydantic before its workers could start (about a quarter of the
start-up). What is kept, and what every loader returns, is instead the :func:`mirror` of the validated model: the
same class names, fields, values and methods, in classes made here from plain ``__slots__``. A model's methods
live in a plain mixin class that both the pydantic model and its record inherit (``checker.models.record_methods``,
``hardware_methods``), so they are written once. Records made straight from field values, checked as their model
would check them, are ``checker.models.record_build``'s.

A record reads as the model does (attributes, ``model_fields``, ``model_dump()``, ``model_copy(update=...)``,
equality, ``repr``); it is frozen; it pickles by its class's shape, so loading one needs this module and the
mixins only. A record is made from a validated model (:func:`mirror`) or by a shape that checks each value as
the model would and leaves any other to it (``checker.models.record_build``).
"""

from __future__ import annotations

import copy
from typing import Any

_CLASSES: dict[tuple, type] = {}  # (name, field names, mixin) -> the record class


class Record:
    """The base of every record class (see :func:`record_class`)."""

    __slots__ = ()
    model_fields: dict[str, None] = {}  # the field names, in the model's order
    _shape: tuple = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.model_fields)

    def __hash__(self) -> int:  # (as a frozen model's: a field holding a list or a dict makes it unhashable)
        return hash((type(self), *(getattr(self, name) for name in self.model_fields)))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.model_fields)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self):
        return _rebuild, (self._shape, tuple(getattr(self, name) for name in self.model_fields))

    def model_dump(self, mode: str = "python") -> dict[str, Any]:
        """The fields as plain data (records inside as dicts), as a model's ``model_dump()`` gives them; with
        ``mode="json"``, tuples as lists (the values of data files are JSON's otherwise)."""
        return {name: _dump(getattr(self, name), mode == "json") for name in self.model_fields}

    def model_copy(self, update: dict[str, Any] | None = None, deep: bool = False) -> Record:
        """A copy with the fields of ``update`` replaced (not validated, as a model's ``model_copy``)."""
        values = {name: getattr(self, name) for name in self.model_fields}
        if deep:
            values = copy.deepcopy(values)
        unknown = set(update or ()) - set(values)
        if unknown:
            raise AttributeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        values.update(update or {})
        return _make(type(self), values.values())


def _dump(value: Any, json: bool) -> Any:
    if isinstance(value, Record):
        return value.model_dump("json" if json else "python")
    if isinstance(value, list) or (json and isinstance(value, tuple)):
        return [_dump(v, json) for v in value]
    if isinstance(value, tuple):
        return tuple(_dump(v, json) for v in value)
    if isinstance(value, dict):
        return {k: _dump(v, json) for k, v in value.items()}
    return value


def record_class(name: str, fields: tuple[str, ...], mixin: type | None = None) -> type:
    """The record class named ``name`` with ``fields``, inheriting ``mixin``'s methods (one class per shape)."""
    shape = (name, fields, mixin)
    made = _CLASSES.get(shape)
    if made is None:
        bases = (mixin, Record) if mixin is not None else (Record,)
        made = type(name, bases, {"__slots__": fields, "__module__": __name__, "__qualname__": name,
                                  "model_fields": dict.fromkeys(fields), "_shape": shape})
        _CLASSES[shape] = made
    return made


def _make(cls: type, values) -> Record:
    made = object.__new__(cls)
    for name, value in zip(cls.model_fields, values):
        object.__setattr__(made, name, value)
    return made


def _rebuild(shape: tuple, values: tuple) -> Record:
    return _make(record_class(*shape), values)


def _methods(model_class: type) -> type | None:
    """The plain mixin of ``model_class`` (the first base that is neither a pydantic model nor ``object``)."""
    from pydantic import BaseModel

    for base in model_class.__mro__[1:]:
        if base is not object and not issubclass(base, BaseModel) and base.__module__ != "typing":
            return base
    return None


def mirror(value: Any) -> Any:
    """``value`` with every pydantic model in it (nested in lists, tuples and dicts too) made a record."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        model_class = type(value)
        cls = record_class(model_class.__name__, tuple(model_class.model_fields), _methods(model_class))
        return _make(cls, [mirror(getattr(value, name)) for name in cls.model_fields])
    if isinstance(value, list):
        return [mirror(v) for v in value]
    if isinstance(value, tuple):
        return tuple(mirror(v) for v in value)
    if isinstance(value, dict):
        return {k: mirror(v) for k, v in value.items()}
    return value
