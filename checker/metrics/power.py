"""Power metrics (official checker I2-I4): average watts over the run window, energy per query.

Pure functions over the text of `spl.txt` and the LoadGen `power_begin` / `power_end` stamps.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

STAMP = "%m-%d-%Y %H:%M:%S.%f"


class PowerError(ValueError):
    """The power inputs cannot give a metric (bad stamps, no samples in the window)."""


def parse_stamp(value) -> datetime:
    if not isinstance(value, str):
        raise PowerError(f"power timestamp {value!r} is not a string")
    try:
        return datetime.strptime(value.strip(), STAMP)
    except ValueError:
        raise PowerError(f"power timestamp {value!r} is not in MM-DD-YYYY HH:MM:SS.mmm form") from None


@dataclass(frozen=True)
class PowerWindow:
    samples: int
    average_watts: float
    begin: datetime
    end: datetime
    bad_lines: int

    @property
    def seconds(self) -> float:
        return (self.end - self.begin).total_seconds()


def average_power(spl_text: str, begin_stamp, end_stamp) -> PowerWindow:
    """Average of the positive `Watts` readings strictly inside (begin, end)."""
    begin, end = parse_stamp(begin_stamp), parse_stamp(end_stamp)
    total, count, bad = 0.0, 0, 0
    for line in spl_text.splitlines():
        if not line.startswith("Time"):
            continue
        fields = line.split(",")
        try:
            stamp = datetime.strptime(fields[1], STAMP)
            watts = float(fields[3])
        except (IndexError, ValueError):
            bad += 1
            continue
        if begin < stamp < end and watts > 0:
            total += watts
            count += 1
    if count == 0:
        raise PowerError(f"no power samples between {begin_stamp} and {end_stamp}")
    return PowerWindow(count, total / count, begin, end, bad)


def power_metric(scenario: str, window: PowerWindow, query_count: float | None, samples_per_query: int,
                 performance: float | None, multiplier: float = 1.0) -> tuple[float, float | None]:
    """(metric, efficiency): watts for Offline/Server/Interactive, millijoules per query for
    SingleStream/MultiStream. ``samples_per_query`` is 8 for MultiStream (also when inferred);
    ``multiplier`` is 8 for a MultiStream result inferred from SingleStream (official I4)."""
    if scenario in ("Offline", "Server", "Interactive"):
        efficiency = performance / window.average_watts if performance else None
        return window.average_watts, efficiency
    if scenario in ("SingleStream", "MultiStream"):
        if not query_count:
            raise PowerError("result_query_count missing or zero")
        energy = window.average_watts * window.seconds * 1000 / query_count * multiplier
        efficiency = samples_per_query * 1000 / energy if energy else None
        return energy, efficiency
    raise PowerError(f"no power metric for scenario {scenario}")
