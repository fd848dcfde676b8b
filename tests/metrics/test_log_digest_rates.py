"""disagreements() compares a float detail value inline: the same verdict as _same on every text."""

from __future__ import annotations

import itertools
import random

from checker.metrics.log_digest import _same, disagreements

TEXTS = ["12.34", " 12.34 ", "12.34\n", "12.3", "12", "12.", ".5", "-0.0", "0", "+1e3", "1E+3", "1e", "nan", "inf",
         "-inf", "1_000", "", " ", "abc", "12.34 ms", "\u0661\u0662.\u0663", "1e400", "-1e400", "0.0051", "-0.0051",
         "1000000.00", "999999.99", "12,34"]
VALUES = [12.34, 12.3449, 12.345, 12.35, 12.0, 0.5, -0.0, 0.0, 1000.0, float("nan"), float("inf"), float("-inf"),
          0.0051, 0.00511, 1e6, 999999.995, 12.34 + 0.0051 + 5.1e-6 * 12.34 * 2, 1e300]


class _Log:
    def __init__(self, value):
        self.value = value

    def get(self, key, default=None):
        return self.value if key == "result_samples_per_second" else default


def test_every_text_against_every_float():
    for text, value in itertools.product(TEXTS, VALUES):
        found = disagreements({"Samples per second": text}, _Log(value))
        assert bool(found) == (not _same(text, value)), (text, value)


def test_random_rates_near_the_rounding():
    rng = random.Random(7)
    for _ in range(20000):
        value = float(f"{rng.uniform(0, 1e5):.6g}")
        text = f"{value + rng.uniform(-0.02, 0.02):.2f}"
        found = disagreements({"Samples per second": text}, _Log(value))
        assert bool(found) == (not _same(text, value)), (text, value)
