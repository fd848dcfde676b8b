"""The readings test of the power windows (``_all_positive``: a sum and a minimum in C) says what
``all(map(POSITIVE, watts))`` says, and the windows read through it (average_power, window_has_positive,
window_average) give the plain loops' answers on logs whose readings are all positive, as published ones are."""

import itertools
import random

import pytest

from checker.metrics import power
from checker.metrics.power import (
    POSITIVE, SplParse, average_power, parse_stamp, to_us, window_average, window_has_positive, window_watts,
)

NAN, INF = float("nan"), float("inf")
SPECIAL = [0.0, -0.0, 1e-300, -1e-300, 5e-324, NAN, -NAN, INF, -INF, 1e308, -1.5, 537.0, 3, 0, -2]


@pytest.mark.parametrize("size", [0, 1, 2, 3])
def test_every_small_sequence_of_special_readings(size):
    for watts in itertools.product(SPECIAL, repeat=size):
        assert power._all_positive(watts) == all(map(POSITIVE, watts)), watts


def test_one_odd_reading_anywhere_in_a_long_log():
    rng = random.Random(5)
    base = [rng.uniform(1, 900) for _ in range(500)]
    assert power._all_positive(tuple(base))
    for odd in (0.0, -0.0, NAN, -INF, -1e-300, -7):
        for at in (0, 1, 250, 498, 499):
            watts = list(base)
            watts[at] = odd
            assert not power._all_positive(tuple(watts)), (odd, at)
    assert power._all_positive(tuple(base + [INF]))
    assert not power._all_positive(tuple(base + [INF, -INF]))
    assert power._unusable(SplParse((), tuple(base + [1e308] * 3), ())) == []  # (a sum that overflows to inf)


def _positive_spl(size, rng, ordered=True):
    start = to_us(parse_stamp("01-15-2024 10:00:00.000"))
    us = sorted(start + rng.randrange(0, 60_000_000) for _ in range(size))
    watts = [rng.uniform(100, 900) for _ in range(size)]
    return SplParse(tuple(us), tuple(watts), tuple(range(1, size + 1)), ordered=ordered)


@pytest.mark.parametrize("size", [1, 7, 1000])
def test_all_positive_logs_read_as_the_plain_loops(size):
    rng = random.Random(size)
    for ordered in (True, False):
        spl = _positive_spl(size, rng, ordered)
        for window in (("01-15-2024 10:00:01.000", "01-15-2024 10:00:59.000"),
                       ("01-15-2024 10:00:00.000", "01-15-2024 10:01:00.000")):
            begin, end = parse_stamp(window[0]), parse_stamp(window[1])
            inside = window_watts(spl, begin, end)
            total = 0.0
            for watts in inside:  # (added in file order)
                total += watts
            if not inside:
                continue
            found = average_power(spl, *window)
            assert (found.samples, found.average_watts) == (len(inside), total / len(inside))
            assert window_has_positive(spl, begin, end)
            assert window_average(spl, begin, end) == sum(inside) / len(inside)


def test_coverage_gaps_at_the_limit():
    from checker.metrics.power import CoverageGap, coverage_gaps, from_us

    start = to_us(parse_stamp("01-15-2024 10:00:00.000"))
    begin, end = parse_stamp("01-15-2024 10:00:00.000"), parse_stamp("01-15-2024 10:00:10.000")
    for steps, limit, expected in (
            ([1_000_000] * 9, 1.0, []),  # every gap exactly the limit: none longer
            ([1_000_000] * 4 + [1_000_001] + [1_000_000] * 4, 1.0, [(4_000_000, 5_000_001)]),
            ([1_000_000] * 9, float("nan"), []),
            ([], 10.0, []), ([], 9.999999, [(0, 10_000_000)])):
        us, at = [], start
        for step in steps:
            at += step
            us.append(at)
        spl = SplParse(tuple(us), tuple(1.0 for _ in us), tuple(range(1, len(us) + 1)), ordered=True)
        found = coverage_gaps(spl, begin, end, limit)
        assert found == [CoverageGap(from_us(start + a), from_us(start + b)) for a, b in expected], (steps, limit)
