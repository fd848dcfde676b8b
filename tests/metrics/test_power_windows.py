"""The window readings of spl.txt (average_power, window_average, coverage_gaps) filter and add in C: the same
values, bit for bit, as the plain loops over the readings."""

import random

import pytest

from checker.metrics.power import (
    CoverageGap, PowerError, SplParse, average_power, coverage_gaps, from_us, parse_stamp, to_us, window_average,
    window_watts,
)


def _plain_average(spl, begin, end):
    total, count = 0.0, 0
    for watts in window_watts(spl, begin, end):
        if watts > 0:
            total += watts
            count += 1
    return total, count


def _plain_gaps(spl, begin, end, max_gap_s):
    low, high = to_us(begin), to_us(end)
    inside = sorted(u for u in spl.us if low < u < high)
    points = [low, *inside, high]
    return [CoverageGap(from_us(a), from_us(b)) for a, b in zip(points, points[1:]) if b - a > max_gap_s * 1_000_000]


def _spls():
    rng = random.Random(7)
    start = to_us(parse_stamp("01-15-2024 10:00:00.000"))
    for ordered in (True, False):
        for size in (0, 1, 5, 400):
            us = sorted(start + rng.randrange(0, 60_000_000) for _ in range(size))
            if not ordered:
                rng.shuffle(us)
            watts = [rng.choice([0.0, -1.5, 1e-300, float("nan"), rng.uniform(100, 900), 0.1 + rng.random()])
                     for _ in range(size)]
            yield SplParse(tuple(us), tuple(watts), tuple(range(1, size + 1)),
                           ordered=all(a <= b for a, b in zip(us, us[1:])))


@pytest.mark.parametrize("window", [("01-15-2024 10:00:01.000", "01-15-2024 10:00:59.000"),
                                    ("01-15-2024 10:00:20.500", "01-15-2024 10:00:21.000"),
                                    ("01-15-2024 11:00:00.000", "01-15-2024 11:00:01.000")])
def test_window_readings_match_the_plain_loops(window):
    begin, end = parse_stamp(window[0]), parse_stamp(window[1])
    for spl in _spls():
        total, count = _plain_average(spl, begin, end)
        if count:
            found = average_power(spl, *window)
            assert (found.samples, found.average_watts) == (count, total / count)
            assert window_average(spl, begin, end) == sum(w for w in window_watts(spl, begin, end) if w > 0) / count
        else:
            with pytest.raises(PowerError):
                average_power(spl, *window)
            assert window_average(spl, begin, end) is None
        for gap in (0.0, 0.2, 1.0, 100.0):
            assert coverage_gaps(spl, begin, end, gap) == _plain_gaps(spl, begin, end, gap)
