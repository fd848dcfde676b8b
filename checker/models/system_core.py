"""The validator of a round's system description, built straight from its pydantic-core schema.

``checker.models.system.system_model`` builds the pydantic model of a round's system description (its JSON
Schema is exported from it); pydantic's schema generation takes about 12 ms per round and process, most of
the check stage of a small tree. Validation needs only the core schema pydantic derives from that model,
which is simple (per field: a union of strict ints and floats, strings with a pattern, literals, a dict,
nullable with a default when optional), so it is written out here from the same field kinds and handed to
``pydantic_core.SchemaValidator`` (a fraction of a millisecond). The same engine then validates the same
schema: the errors are the model's. ``tests/system/test_system_core.py`` compares this schema with the one
pydantic generates from ``system_model`` for every round, so the two cannot drift apart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from checker.models.core_module import SchemaValidator  # (pydantic-core without its package: about 12 ms)

from checker.models.system import (
    BOOL_FIELDS, COUNT_FIELDS, COUNT_TEXT_FIELDS, NUMBER_FIELDS, OBJECT_TEXT_FIELDS, _py, placeholder_pattern,
)

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.rules import RoundRules

_INT = {"type": "int", "strict": True}
_FLOAT = {"type": "float", "strict": True}
_COUNT = {"type": "int", "strict": True, "ge": 0}
_TEXT = [{"type": "str"}, _INT, _FLOAT]


def field_schema(name: str, rules: RoundRules, optional: bool, placeholder: str | None = None) -> dict[str, Any]:
    """The core schema of field ``name`` (as ``checker.models.system._field_type`` types it); ``placeholder``:
    the round's placeholder pattern, when the caller made it already."""
    if placeholder is None:
        placeholder = placeholder_pattern(rules.system_fields.placeholders)
    extra: list = [{"type": "str", "pattern": placeholder}] + ([{"type": "str", "max_length": 0}] if optional else [])
    if name in COUNT_FIELDS:
        base = [_COUNT, {"type": "str", "pattern": r"^\s*\d+\s*$"}]
    elif name in COUNT_TEXT_FIELDS:
        base = [_COUNT, {"type": "str", "pattern": r"^\s*\d+"}]
    elif name in NUMBER_FIELDS:
        base = [_COUNT, {"type": "float", "strict": True, "ge": 0}, {"type": "str", "pattern": r"^\s*\d+(\.\d+)?\s*$"}]
    elif name == "status":
        base, extra = [{"type": "str", "pattern": placeholder_pattern(rules.availabilities)}], []
    elif name == "system_type":
        base, extra = [_literal(rules.system_types)], []
    elif name == "division":
        base, extra = [_literal(rules.divisions)], []
    elif name in BOOL_FIELDS:
        base = [{"type": "bool", "strict": True}, {"type": "str", "pattern": placeholder_pattern(["true", "false"])}]
    elif name in OBJECT_TEXT_FIELDS:
        base, extra = [*_TEXT, {"type": "dict", "keys_schema": {"type": "str"}, "values_schema": {"type": "any"}}], []
    else:
        base, extra = list(_TEXT), []
    options = base + extra
    schema = options[0] if len(options) == 1 else {"type": "union", "choices": options}
    if optional:
        schema = {"type": "default", "schema": {"type": "nullable", "schema": schema}, "default": None}
    return schema


def _literal(values) -> dict[str, Any]:
    return {"type": "literal", "expected": list(dict.fromkeys(values))}


def fields_schema(rules: RoundRules) -> dict[str, Any]:
    """The ``model-fields`` core schema of the round's system description (``system_model``'s fields)."""
    sf = rules.system_fields
    placeholder = placeholder_pattern(sf.placeholders)
    fields: dict[str, tuple[str, dict]] = {}
    for name in sf.required:
        fields[name] = (name, field_schema(name, rules, optional=False, placeholder=placeholder))
    for group in (sf.power, sf.network, sf.optional):
        for name in group:
            if name not in fields:
                fields[name] = (name, field_schema(name, rules, optional=True, placeholder=placeholder))
    return {"type": "model-fields", "computed_fields": [],
            "fields": {_py(name): {"type": "model-field", "schema": schema, "validation_alias": alias}
                       for name, (alias, schema) in fields.items()}}


#: the configuration ``system_model`` gives its schema (unknown fields allowed, fields found by name or alias)
CONFIG = {"extra_fields_behavior": "allow", "validate_by_alias": True, "validate_by_name": True}

_VALIDATORS: dict[tuple, SchemaValidator] = {}


def system_validator(rules: RoundRules) -> SchemaValidator:
    """The validator of a system description for ``rules.round`` (cached per round content, as ``system_model``)."""
    sf = rules.system_fields
    key = (rules.round, tuple(sf.required), tuple(sf.power), tuple(sf.network), tuple(sf.optional),
           tuple(sf.placeholders), tuple(rules.availabilities), tuple(rules.system_types), tuple(rules.divisions))
    validator = _VALIDATORS.get(key)
    if validator is None:
        validator = _VALIDATORS[key] = SchemaValidator(fields_schema(rules), CONFIG)
    return validator
