"""The system description is validated with a pydantic-core schema written out by hand
(``checker.models.system_core``); it must be the schema pydantic generates from ``system_model`` for every
round, and validate every real and made-up description the same way as the model."""

from __future__ import annotations

import glob
import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from checker.loaders.rules import load_rules
from checker.models.system import system_model
from checker.models.system_core import CONFIG, fields_schema, system_validator
from tests.conftest import REAL

ROUNDS = ("v4.1", "v5.0", "v5.1", "v6.0", "v6.1")


def _strip(node):
    """A core schema without what only serialisation and the JSON Schema read."""
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k not in ("metadata", "serialization_alias")}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


@pytest.mark.parametrize("round_name", ROUNDS)
def test_schema_is_the_models(round_name):
    rules = load_rules(round_name)
    generated = system_model(rules).__pydantic_core_schema__
    assert generated["type"] == "model"
    fields = _strip(generated["schema"])
    fields.pop("model_name", None)
    assert fields_schema(rules) == fields
    config = generated["config"]
    assert {k: config.get(k) for k in CONFIG} == CONFIG
    assert set(config) - set(CONFIG) <= {"title"}


def _errors(call, data):
    try:
        call(data)
    except ValidationError as exc:
        return sorted((tuple(map(str, e["loc"])), e["type"]) for e in exc.errors())
    return []


def _both(rules, data):
    model = system_model(rules)
    return _errors(model.model_validate, data), _errors(system_validator(rules).validate_python, data)


def _descriptions():
    out = []
    for path in sorted(glob.glob(os.path.join(REAL, "*", "*", "*", "systems", "*.json"))):
        with open(path, encoding="utf-8") as handle:
            try:
                data = json.load(handle)
            except ValueError:
                continue
        if isinstance(data, dict):
            out.append((os.path.basename(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(path))))),
                        data))
    return out


def test_real_descriptions_validate_alike():
    found = _descriptions()
    if not found:
        pytest.skip("no real submissions")
    for round_name, data in found:
        rules = load_rules(round_name if round_name in ROUNDS else "v4.1")
        model, fast = _both(rules, data)
        assert model == fast, round_name


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**12), st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from(["", " 8 ", "8", "-1", "1.5", " 2.5 ", "10x 400GbE", "N/A", " tbd ", "undefined",
                                    "True", "false", "available", "Preview", "datacenter", "edge", "closed", "8\n",
                                    "８", "8\x1c", "\u00a08", "yes"]),
                   st.text(max_size=6), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
                   st.lists(st.integers(), max_size=2))


@settings(max_examples=300)
@given(st.sampled_from(ROUNDS), st.data())
def test_made_up_descriptions_validate_alike(round_name, data):
    rules = load_rules(round_name)
    sf = rules.system_fields
    names = list(dict.fromkeys([*sf.required, *sf.power, *sf.network, *sf.optional, "accelerator_on_chip_memories",
                                "unknown_field"]))
    chosen = data.draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    description = {name: data.draw(VALUES) for name in chosen}
    model, fast = _both(rules, description)
    assert model == fast
