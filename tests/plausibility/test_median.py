"""The peer median (checker.metrics.plausibility.median) is ``statistics.median``, to the bit."""

import statistics

from hypothesis import given, strategies as st

from checker.metrics.plausibility import median

FLOATS = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


@given(st.lists(FLOATS | st.integers(-10**6, 10**6), min_size=1, max_size=40))
def test_median_is_the_statistics_median(values):
    got, expected = median(values), statistics.median(values)
    assert got == expected and type(got) is type(expected)


def test_median_of_even_and_odd_counts():
    assert median([3.0, 1.0, 2.0]) == 2.0 and median([4.0, 1.0, 3.0, 2.0]) == 2.5 and median([5.0]) == 5.0
