"""PF019 takes LoadGen's t from the "Would discard" line of a SingleStream / MultiStream log when it checks out
(performance._stream_expectation): the same expectation as the search, for right, wrong and odd counts."""

import random

import pytest

from checker.checks.performance import _stream_expectation
from checker.metrics.early_stopping import expected_early_stopping, max_overlatency_allowed


def _texts(discarded):
    return [("early_stopping_result", f" * Processed at least 64 queries (N).\n * Would discard {discarded} highest "
                                      "latency queries.\n * Early stopping 90.0th percentile estimate: 1")]


@pytest.mark.parametrize("p", [0.9, 0.99, 0.95, 0.999])
@pytest.mark.parametrize("scenario", ["SingleStream", "MultiStream"])
def test_the_expectation_is_the_searched_one(scenario, p):
    rng = random.Random(int(p * 1000))
    counts = [0, 1, 63, 64, 65, 661, 662, 663, 1000, 4096, 24576, 270336]
    counts += [rng.randrange(1, 2_000_000) for _ in range(6)]
    for n in counts:
        expected = expected_early_stopping(scenario, n, None, p)
        t = max_overlatency_allowed(n, p)
        right = [] if t is None else [t - 1]
        for discarded in right + [0, 1, 2, -1 + (t or 0), (t or 0) + 1, n, n - 1, n - 2, 10 ** 30, "x"]:
            texts = [] if discarded == "x" else _texts(discarded) if discarded >= 0 else [("k", "no count")]
            assert _stream_expectation(scenario, n, p, texts) == expected, (n, discarded)
        assert _stream_expectation(scenario, n, p, _texts(5) + _texts(right[0] if right else 0)) == expected


def test_a_right_count_is_checked_without_the_search(monkeypatch):
    from checker.checks import performance
    expected = expected_early_stopping("SingleStream", 24576, None, 0.9)

    def searched(*args):
        raise AssertionError("searched")

    monkeypatch.setattr(performance, "expected_early_stopping", searched)
    assert _stream_expectation("SingleStream", 24576, 0.9, _texts(expected.discarded)) == expected
    with pytest.raises(AssertionError):
        _stream_expectation("SingleStream", 24576, 0.9, _texts(expected.discarded + 1))
