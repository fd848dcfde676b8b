"""Power metrics (official checker I2-I4): average watts over the run window, energy per query.

Pure functions over the text of `spl.txt` and the LoadGen `power_begin` / `power_end` stamps.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

STAMP = "%m-%d-%Y %H:%M:%S.%f"


def fast_stamp(text: str) -> datetime:
    """Parse `MM-DD-YYYY HH:MM:SS[.fff]` by reordering it into ISO form for the C-level
    `datetime.fromisoformat` (strptime dominated checking time on power logs of tens of thousands of
    lines). Anything that does not have exactly that shape falls back to strptime, so errors stay
    ValueError."""
    if (len(text) in (19, 23, 26) and text[2] == "-" and text[5] == "-" and text[10] == " "
            and text[13] == ":" and text[16] == ":" and (len(text) == 19 or text[19] == ".")
            and text[:2].isdigit() and text[3:5].isdigit()):
        try:
            return datetime.fromisoformat(f"{text[6:10]}-{text[0:2]}-{text[3:5]}T{text[11:]}")
        except ValueError:
            pass
    return datetime.strptime(text, STAMP)


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


def _sort_key(stamp: str) -> str | None:
    """`MM-DD-YYYY HH:MM:SS.fff` rewritten as `YYYYMMDD HH:MM:SS.fff`, which sorts like time."""
    if len(stamp) < 19 or stamp[2] != "-" or stamp[5] != "-" or stamp[10] != " ":
        return None
    return stamp[6:10] + stamp[0:2] + stamp[3:5] + stamp[10:]


def average_power(spl_text: str, begin_stamp, end_stamp) -> PowerWindow:
    """Average of the positive `Watts` readings strictly inside (begin, end)."""
    begin, end = parse_stamp(begin_stamp), parse_stamp(end_stamp)
    low, high = _sort_key(begin.strftime(STAMP)[:-3]), _sort_key(end.strftime(STAMP)[:-3])
    total, count, bad = 0.0, 0, 0
    for line in spl_text.splitlines():
        if not line.startswith("Time"):
            continue
        fields = line.split(",", 5)
        key = _sort_key(fields[1]) if len(fields) > 3 else None
        if key is None:
            bad += 1
            continue
        try:
            watts = float(fields[3])
        except ValueError:
            bad += 1
            continue
        if low < key < high and watts > 0:
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


# --- spl.txt parsing for the power checks (PW) ------------------------------------------------------


@dataclass(frozen=True)
class SplSample:
    line: int  # 1-based line number in spl.txt
    stamp: datetime
    watts: float


@dataclass(frozen=True)
class SplParse:
    """Every `Time,` record of a `spl.txt`, plus the lines that are not usable records.

    ``bad`` holds `Time` lines whose timestamp (field 1) or watts (field 3) does not parse, and lines
    with bytes that are not UTF-8: the official tools raise on them. ``stray`` holds other non-blank
    lines (no `Time` prefix), which the submission checker skips. Blank lines are ignored (every
    published `spl.txt` ends with one)."""

    samples: tuple[SplSample, ...]
    bad: tuple[tuple[int, str], ...]
    stray: tuple[tuple[int, str], ...]


def parse_spl(text: str) -> SplParse:
    samples: list[SplSample] = []
    bad: list[tuple[int, str]] = []
    stray: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if "\ufffd" in line:
            bad.append((number, line[:120]))
            continue
        if not line.startswith("Time"):
            stray.append((number, line[:120]))
            continue
        fields = line.split(",")
        try:
            stamp = fast_stamp(fields[1])
            watts = float(fields[3])
        except (IndexError, ValueError):
            bad.append((number, line[:120]))
            continue
        samples.append(SplSample(number, stamp, watts))
    return SplParse(tuple(samples), tuple(bad), tuple(stray))


def window_samples(samples, begin: datetime, end: datetime) -> list[SplSample]:
    """Samples strictly inside (begin, end), in file order (official I2)."""
    return [s for s in samples if begin < s.stamp < end]


def window_average(samples, begin: datetime, end: datetime) -> float | None:
    """Mean of the positive readings strictly inside (begin, end); None when there is none."""
    values = [s.watts for s in window_samples(samples, begin, end) if s.watts > 0]
    return sum(values) / len(values) if values else None


@dataclass(frozen=True)
class CoverageGap:
    start: datetime
    end: datetime

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()


def coverage_gaps(samples, begin: datetime, end: datetime, max_gap_s: float) -> list[CoverageGap]:
    """Stretches of the run window (begin, end) longer than ``max_gap_s`` without a sample: before
    the first sample, between two samples, after the last one. The whole window when no sample."""
    stamps = sorted(s.stamp for s in window_samples(samples, begin, end))
    points = [begin, *stamps, end]
    return [CoverageGap(a, b) for a, b in zip(points, points[1:]) if (b - a).total_seconds() > max_gap_s]


def ranging_delta_percent(ranging_watts: float, testing_watts: float) -> float:
    """Testing vs ranging average power in percent, rounded as the Power WG checker does
    (averages to 5 decimals, the delta to 2)."""
    ranging, testing = round(ranging_watts, 5), round(testing_watts, 5)
    return round((testing / ranging - 1) * 100, 2)


def epoch_utc(stamp: datetime) -> float:
    """A LoadGen / spl timestamp as seconds since the epoch, read as UTC (official: offset 0)."""
    return stamp.replace(tzinfo=timezone.utc).timestamp()
