"""A faster ``__init__`` for the frozen dataclasses made by the thousand (the load stage's contexts and records).

``@dataclass(frozen=True)`` writes an ``__init__`` that sets each field with ``object.__setattr__(self, name,
value)`` (the class's own ``__setattr__`` refuses): a call through a wrapper descriptor, which packs its
arguments in a tuple, for every field, about a thousand instructions each; a result's contexts have about a
hundred fields. :func:`fast_init` gives such a class an ``__init__`` of the same parameters, defaults and
default factories that sets every field in one call of ``checker._fields.set_fields`` (``PyObject_GenericSetAttr``
for each: what ``object.__setattr__`` does). The instances are the same: same attributes, equality, hash,
repr, pickling, and still frozen. Where the extension is not built (or ``MLPC_PURE_PYTHON`` is set), or for a
class this does not take (not a frozen dataclass, a ``__post_init__``, an ``InitVar`` or ``init=False`` field, a
field named ``self``), the class keeps the ``__init__`` dataclasses wrote.
"""

from __future__ import annotations

import builtins
import dataclasses
from operator import attrgetter

from checker.loaders.compiled import compiled

_SET_FIELDS = compiled("set_fields", "_fields")
_FACTORY = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", object())  # the default of a field with a factory


def fast_init(cls: type) -> type:
    """``cls`` (a frozen dataclass) with the one-call ``__init__`` where it can have it (see the module)."""
    if _SET_FIELDS is None or not _takes(cls):
        return cls
    fields = dataclasses.fields(cls)
    names = tuple(f.name for f in fields)
    env = {"__mlpc_set_fields": _SET_FIELDS, "__mlpc_names": names, "__mlpc_factory": _FACTORY}
    positional, keyword, values = [], [], []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            env[f"__mlpc_default_{f.name}"] = f.default
            param = f"{f.name}=__mlpc_default_{f.name}"
        elif f.default_factory is not dataclasses.MISSING:
            env[f"__mlpc_make_{f.name}"] = f.default_factory
            param = f"{f.name}=__mlpc_factory"
        else:
            param = f.name
        (keyword if f.kw_only else positional).append(param)
        values.append(f"__mlpc_make_{f.name}() if {f.name} is __mlpc_factory else {f.name}"
                      if f.default_factory is not dataclasses.MISSING else f.name)
    params = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = (f"def __create_init__({', '.join(env)}):\n"
              f" def __init__({params}):\n"
              f"  __mlpc_set_fields(self, __mlpc_names, {', '.join(values)})\n"
              f" return __init__\n")
    namespace: dict = {}
    # (dataclasses' own exec: the cache of compiled dataclass methods when the CLI installed it, see
    # checker.dataclass_code)
    getattr(dataclasses, "exec", builtins.exec)(source, {}, namespace)
    init = namespace["__create_init__"](**env)
    original = cls.__init__
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = original.__module__
    init.__annotations__ = dict(getattr(original, "__annotations__", {}))
    cls.__init__ = init
    _REPLACE[cls] = (names, attrgetter(*names) if len(names) > 1 else (lambda obj: (getattr(obj, names[0]),)),
                     {name: at for at, name in enumerate(names)})
    return cls


#: class given the one-call __init__ -> (its field names, what reads them all off an instance, name -> position)
_REPLACE: dict[type, tuple] = {}


def replace(obj, /, **changes):
    """``dataclasses.replace(obj, **changes)``: for an instance of a class :func:`fast_init` took, its fields read
    at once and set at once on a new instance (as its ``__init__`` would set them), without the walk over the
    class's fields and the call by keywords; for any other object, or a change of a name that is not a field,
    ``dataclasses.replace`` itself."""
    plan = _REPLACE.get(obj.__class__)
    if plan is None or not plan[2].keys() >= changes.keys():
        return dataclasses.replace(obj, **changes)
    names, read, position = plan
    values = list(read(obj))
    for name, value in changes.items():
        values[position[name]] = value
    new = object.__new__(obj.__class__)
    _SET_FIELDS(new, names, *values)
    return new


def _takes(cls: type) -> bool:
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or not params.init or hasattr(cls, "__post_init__"):
        return False
    plain, class_var = getattr(dataclasses, "_FIELD", None), getattr(dataclasses, "_FIELD_CLASSVAR", None)
    if plain is None:
        return False
    for f in cls.__dataclass_fields__.values():
        kind = getattr(f, "_field_type", None)
        if kind is class_var:
            continue
        if kind is not plain or not f.init or f.name == "self" or f.name.startswith("__mlpc_"):
            return False
    return True
