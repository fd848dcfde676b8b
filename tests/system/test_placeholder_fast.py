"""validate_system looks a field's value up in the round's placeholders before asking placeholder_reported:
the same placeholder findings as asking it for every field."""

from __future__ import annotations

import random

from checker.loaders.rules import load_rules
from checker.models import system
from checker.models.system import placeholder_reported, validate_system


def test_placeholder_findings_as_asking_every_field():
    rng = random.Random(21)
    for round_name in ("v4.1", "v6.0"):
        rules = load_rules(round_name)
        names = list(rules.system_fields.required) + list(rules.system_fields.power) + ["hw_notes", "odd_field", "status"]
        values = ["N/A", " tbd ", "Undefined", "none", "-", "8", "x", "", 0, 3, None, True, [], "DEFAULT", "Not Applicable"]
        for _ in range(400):
            data = {name: rng.choice(values) for name in rng.sample(names, rng.randint(1, len(names)))}
            if rng.random() < 0.3:
                data["accelerators_per_node"] = rng.choice([0, "0", 4])
            found = {(p, m) for p, m, k in validate_system(data, rules) if k == "placeholder"}
            types = {p for p, _, k in validate_system(data, rules) if k == "type"}
            plain = {("/" + name, f"field {name} holds the placeholder {value!r}") for name, value in data.items()
                     if placeholder_reported(name, value, data, rules) and "/" + name not in types}
            assert found == plain, data
    assert system.is_placeholder(" N/A ", rules) and not system.is_placeholder(5, rules)
