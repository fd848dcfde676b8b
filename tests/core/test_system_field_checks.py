"""SY005, SY006 and SY007 pick their fields in C and keep the round's field lists per round: the same findings, in
the same order, as walking the fields one by one."""

import random
from types import SimpleNamespace

import pytest

from checker.checks import system
from checker.checks.base import finding
from checker.loaders.rules import load_rules


def _required(ctx, rules):
    data = system._data(ctx)
    if data is None:
        return
    fields = list(rules.system_fields.required)
    if ctx.is_network():
        fields += [f for f in rules.system_fields.network if f not in fields]
    for name in fields:
        if name not in data:
            yield finding(ctx.rel, f"field {name} is missing", expected=name, actual="absent", pointer=f"/{name}",
                          hint=f"add \"{name}\"")


def _meaningful(ctx, rules):
    data = system._data(ctx)
    if data is None:
        return
    for name in rules.system_fields.meaningful:
        if name in data and system.is_empty(data[name]):
            yield finding(ctx.rel, f"field {name} requires a meaningful response but is empty",
                          expected="a non-empty value", actual=repr(data[name]), pointer=f"/{name}",
                          hint="integer 0 counts as empty; write the string \"0\"")


def _unknown(ctx, rules):
    data = system._data(ctx)
    if data is None:
        return
    known = set(rules.system_fields.required) | set(rules.system_fields.power) | set(rules.system_fields.optional)
    if ctx.is_network():
        known |= set(rules.system_fields.network)
    for name in data:
        if name not in known:
            yield finding(ctx.rel, f"field {name} is unknown", expected="a field of the round", actual=name,
                          pointer=f"/{name}", hint="remove it or describe it in hw_notes / sw_notes")


@pytest.mark.parametrize("round_name", ["v4.1", "v5.1", "v6.0"])
def test_field_checks_are_the_field_by_field_ones(round_name):
    rules = load_rules(round_name)
    names = sorted(set(rules.system_fields.required) | set(rules.system_fields.meaningful)
                   | set(rules.system_fields.network) | set(rules.system_fields.optional)) + ["bogus", "x_y"]
    values = ["", None, False, 0, 0.0, [], {}, "0", "N/A", 1, "ok", [1], True]
    rng = random.Random(5)
    for count in range(400):
        data = {name: rng.choice(values) for name in rng.sample(names, rng.randrange(0, len(names)))}
        network = count % 3 == 0
        ctx = SimpleNamespace(rel="closed/X/systems/s.json", exists=count % 17 != 0, data=data,
                              is_network=lambda network=network: network)
        for fast, plain in ((system.required_field_missing, _required), (system.field_not_meaningful, _meaningful),
                            (system.unknown_field, _unknown)):
            assert list(fast.func(ctx, rules)) == list(plain(ctx, rules))
