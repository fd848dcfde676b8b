"""The PW checks' window tests (any sample, any positive reading, mean of the positive readings) equal the
plain reading of ``window_watts`` on ordered and unordered logs with zero, negative and NaN readings."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from checker.metrics import power
from checker.metrics.power import (POSITIVE, SplParse, from_us, to_us, window_average, window_has_positive,
                                   window_has_samples, window_watts)

T0 = datetime(2024, 5, 1, 12, 0, 0)


def _plain_average(spl, begin, end):
    values = list(filter(POSITIVE, window_watts(spl, begin, end)))
    return sum(values) / len(values) if values else None


def _spl(rng, n, ordered, kinds):
    base = to_us(T0)
    us = sorted(base + rng.randrange(0, 60_000_000) for _ in range(n))
    if not ordered:
        rng.shuffle(us)
    watts = []
    for _ in range(n):
        kind = rng.choice(kinds)
        watts.append({"pos": rng.uniform(100, 900), "zero": 0.0, "neg": -rng.uniform(0, 5),
                      "nan": float("nan"), "negzero": -0.0}[kind])
    return SplParse(tuple(us), tuple(watts), tuple(range(1, n + 1)), ordered=ordered)


def _same(a, b):
    assert (a is None and b is None) or repr(a) == repr(b), (a, b)


def test_windows_agree_with_the_plain_reading():
    rng = random.Random(11)
    for case in range(600):
        kinds = rng.choice([["pos"], ["pos", "zero"], ["pos", "neg", "nan", "negzero"], ["zero", "nan"], ["pos"] * 20 + ["zero"]])
        spl = _spl(rng, rng.choice([0, 1, 2, 5, 50, 400]), ordered=case % 3 != 0, kinds=kinds)
        for _ in range(12):
            a = T0 + timedelta(microseconds=rng.randrange(-5_000_000, 65_000_000))
            b = a + timedelta(microseconds=rng.randrange(-3_000_000, 70_000_000))
            if spl.us and rng.random() < 0.3:  # a bound exactly on a sample
                a = from_us(rng.choice(spl.us))
            assert window_has_samples(spl, a, b) == bool(window_watts(spl, a, b))
            assert window_has_positive(spl, a, b) == any(map(POSITIVE, window_watts(spl, a, b)))
            _same(window_average(spl, a, b), _plain_average(spl, a, b))
    assert len(power._UNUSABLE) <= 16


def test_a_window_with_one_bad_reading_drops_it():
    us = tuple(to_us(T0) + i * 1_000_000 for i in range(10))
    watts = (100.0, 200.0, 0.0, 300.0, float("nan"), 400.0, -1.0, 500.0, 600.0, 700.0)
    spl = SplParse(us, watts, tuple(range(1, 11)), ordered=True)
    begin, end = from_us(us[1]), from_us(us[8])  # strictly inside: indices 2..7
    assert window_average(spl, begin, end) == (300.0 + 400.0 + 500.0) / 3
    assert window_has_positive(spl, begin, end)
    assert not window_has_positive(spl, from_us(us[1]), from_us(us[3]))  # only the 0.0
    assert window_average(spl, from_us(us[0]), from_us(us[2])) == 200.0
