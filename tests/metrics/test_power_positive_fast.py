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


def test_epoch_utc_is_the_aware_timestamp():
    from datetime import datetime, timedelta, timezone

    from checker.metrics.power import epoch_utc

    rng = random.Random(3)
    stamps = [parse_stamp("07-25-2024 18:26:24.892"), datetime(1970, 1, 1), datetime(1969, 12, 31, 23, 59, 59, 999999),
              datetime(1, 1, 1), datetime(9999, 12, 31, 23, 59, 59, 999999), datetime(2024, 2, 29, 12, 0, 0, 1)]
    stamps += [datetime(1970, 1, 1) + timedelta(microseconds=rng.randrange(-6 * 10 ** 16, 6 * 10 ** 16)) for _ in range(2000)]
    for stamp in stamps:
        for zone in (None, timezone.utc, timezone(timedelta(hours=-7)), timezone(timedelta(hours=5, minutes=30))):
            dated = stamp.replace(tzinfo=zone)
            assert epoch_utc(dated) == dated.replace(tzinfo=timezone.utc).timestamp(), dated


def test_ptd_messages_of_each_server_json():
    from checker.metrics.ptd_log import identify, ptd_messages

    one = {"ptd_messages": [{"cmd": "Identify", "reply": "WT310,version=1.10.0-abc"}, {"cmd": "x", "reply": 1}]}
    two = {"ptd_messages": [[{"cmd": "Identify", "reply": "WT333,version=1.11.1-def"}], "odd"]}
    for _ in range(2):
        assert ptd_messages(one) == [{"cmd": "Identify", "reply": "WT310,version=1.10.0-abc"}]
        assert identify(one).version == "1.10.0"
        assert ptd_messages(two) == [{"cmd": "Identify", "reply": "WT333,version=1.11.1-def"}]
        assert identify(two).model == "WT333"
        assert ptd_messages(None) == [] and ptd_messages({}) == []
