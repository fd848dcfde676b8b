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


def test_implementation_fields_are_the_field_by_field_ones():
    from checker.checks import measurements

    def plain(ctx, rules):
        meas = ctx.measurements
        rel = f"{meas.rel}/{meas.impl_json_name}"
        for name in rules.implementation_fields:
            if name not in meas.impl_json:
                yield finding(rel, f"field {name} is missing", expected=name, actual="absent", pointer=f"/{name}")
            elif system.is_empty(meas.impl_json[name]):
                yield finding(rel, f"field {name} is missing a meaningful value", expected="non-empty",
                              actual=repr(meas.impl_json[name]), pointer=f"/{name}")

    rules = load_rules("v4.1")
    names = list(rules.implementation_fields) + ["other"]
    values = ["", None, False, 0, [], {}, "0", "int8", 1, ["x"], True]
    rng = random.Random(9)
    found = 0
    for _ in range(500):
        impl = {name: rng.choice(values) for name in rng.sample(names, rng.randrange(0, len(names) + 1))}
        if rng.random() < 0.5:  # (a full description, with at most one field changed)
            impl = {name: "int8" for name in names}
            if rng.random() < 0.5:
                impl[rng.choice(names)] = rng.choice(values)
        meas = SimpleNamespace(rel="closed/X/measurements/s/m/Offline", listing=SimpleNamespace(exists=True),
                               impl_json_name="s.json", impl_json_error=None, impl_json=impl)
        ctx = SimpleNamespace(measurements=meas, scenario="Offline", rel="closed/X/results/s/m/Offline")
        if measurements._meas(ctx) is not meas:
            pytest.skip("the measurement context is not read from ctx.measurements")
        fast = list(measurements.implementation_json_missing.func(ctx, rules))
        assert fast == list(plain(ctx, rules))
        found += not fast
    assert found  # (some descriptions had every field)
