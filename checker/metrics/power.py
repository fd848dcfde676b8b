"""Power metrics (official checker I2-I4): average watts over the run window, energy per query.

Pure functions over the text of `spl.txt` and the LoadGen `power_begin` / `power_end` stamps.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import lru_cache, partial, reduce
from itertools import compress, repeat
from operator import add, lt, sub
from typing import Any

from checker.loaders.compiled import compiled

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


#: The form LoadGen writes `power_begin` / `power_end` in: read by the C-level ``datetime.fromisoformat``
#: once reordered (anything else goes to strptime, which decides).
_LOADGEN_STAMP_RE = re.compile(r"\d\d-\d\d-\d\d\d\d \d\d:\d\d:\d\d\.\d\d\d", re.ASCII)


def parse_stamp(value) -> datetime:
    if not isinstance(value, str):
        raise PowerError(f"power timestamp {value!r} is not a string")
    text = value.strip()
    if _LOADGEN_STAMP_RE.fullmatch(text):
        try:
            return datetime.fromisoformat(f"{text[6:10]}-{text[0:2]}-{text[3:5]}T{text[11:]}")
        except ValueError:
            pass
    try:
        return datetime.strptime(text, STAMP)
    except ValueError:
        raise PowerError(f"power timestamp {value!r} is not in MM-DD-YYYY HH:MM:SS.mmm form") from None


@dataclass(frozen=True)
class PowerWindow:
    """The power samples inside a run's window: their count, average and time span."""

    samples: int
    average_watts: float
    begin: datetime
    end: datetime
    bad_lines: int

    @property
    def seconds(self) -> float:
        return (self.end - self.begin).total_seconds()


#: ``w > 0`` of a reading, as a filter that runs in C
POSITIVE = partial(lt, 0)


def average_power(spl: SplParse, begin_stamp, end_stamp) -> PowerWindow:
    """Average of the positive `Watts` readings of a parsed `spl.txt` strictly inside (begin, end)
    (official I2)."""
    begin, end = parse_stamp(begin_stamp), parse_stamp(end_stamp)
    if spl.ordered:
        low, high = _bounds(spl, begin, end)
        # (every reading of the window positive, as usual: the window's slice is what the filter keeps)
        inside = spl.watts[low:high]
        positive = inside if not _unusable_in(spl, low, high) else list(filter(POSITIVE, inside))
    else:
        positive = list(filter(POSITIVE, window_watts(spl, begin, end)))
    total, count = reduce(add, positive, 0.0), len(positive)  # (added in file order, as the official checker does)
    if count == 0:
        raise PowerError(f"no power samples between {begin_stamp} and {end_stamp}")
    return PowerWindow(count, total / count, begin, end, len(spl.bad))


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


_EPOCH = datetime(1970, 1, 1)
_ONE_US = timedelta(microseconds=1)


def to_us(stamp: datetime) -> int:
    """A naive (UTC-read) timestamp as integer microseconds since the epoch: exact, and cheap to compare."""
    return (stamp.replace(tzinfo=None) - _EPOCH) // _ONE_US


def from_us(us: int) -> datetime:
    return _EPOCH + timedelta(microseconds=us)


@lru_cache(maxsize=4096)
def _day_epoch(day: str) -> float | None:
    try:
        return datetime(int(day[6:10]), int(day[0:2]), int(day[3:5]), tzinfo=timezone.utc).timestamp()
    except ValueError:
        return None


@lru_cache(maxsize=8192)
def minute_epoch(prefix: str) -> float | None:
    """UTC epoch of `MM-DD-YYYY HH:MM` (digits in place; cached: a power log has few distinct minutes);
    None when the date or time is impossible."""
    day = _day_epoch(prefix[:10])
    hour, minute = int(prefix[11:13]), int(prefix[14:16])
    if day is None or hour > 23 or minute > 59:
        return None
    return day + hour * 3600 + minute * 60


@dataclass(frozen=True)
class SplParse:
    """Every `Time,` record of a `spl.txt` (as columns: a log has thousands), plus the lines that are
    not usable records.

    ``bad`` holds `Time` lines whose timestamp (field 1) or watts (field 3) does not parse, and lines
    with bytes that are not UTF-8: the official tools raise on them. ``stray`` holds other non-blank
    lines (no `Time` prefix), which the submission checker skips. Blank lines are ignored (every
    published `spl.txt` ends with one)."""

    us: tuple[int, ...]  # record timestamps, microseconds since the epoch (read as UTC), file order
    watts: tuple[float, ...]
    lines: tuple[int, ...]  # 1-based line numbers of the records
    bad: tuple[tuple[int, str], ...] = ()
    stray: tuple[tuple[int, str], ...] = ()
    ordered: bool = False  # the timestamps never go back (every published spl.txt): windows are found by bisection


def _byte_mask(positions, value: int) -> int:
    """A little-endian 8-byte word with ``value`` in each of the byte ``positions`` (0-7)."""
    return sum(value << (8 * p) for p in positions)


#: A stamp `MM-DD-YYYY HH:MM:SS?fff` read as three 8-byte words, at its offsets 0, 8 and 15: per word
#: the bytes that must be digits and the separators (offset 19, before the milliseconds, is checked
#: by each caller: PTD logs accept any character there).
_STAMP_WORDS = (
    (0, (0, 1, 3, 4, 6, 7), {2: "-", 5: "-"}),
    (8, (0, 1, 3, 4, 6, 7), {2: " ", 5: ":"}),
    (15, (0, 2, 3, 5, 6, 7), {1: ":"}),
)
#: The same as masks: (offset, high nibbles of the digits, their value 0x3, +6 per digit, separator
#: bytes, their value). A byte is a digit when its high nibble is 3 before and after adding 6.
_STAMP_MASKS = tuple(
    (at, _byte_mask(digits, 0xF0), _byte_mask(digits, 0x30), _byte_mask(digits, 0x06), _byte_mask(punct, 0xFF),
     sum(ord(c) << (8 * p) for p, c in punct.items()))
    for at, digits, punct in _STAMP_WORDS)


def word_view(data: bytes, pad: int = 8):
    """The 8-byte little-endian words of ``data`` at every offset (word i holds bytes i..i+7), as a
    numpy array over ``data`` padded with ``pad`` NUL bytes (so offsets up to len(data) + pad - 8 are
    valid). Lets numpy read eight bytes per line in one gather instead of one."""
    import numpy as np  # only power results need it; kept out of start-up

    padded = data + b"\0" * max(pad, 8)
    return np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))


#: Bytes scanned per numpy call by ``offsets_where``: its temporaries stay small (in cache, and
#: reused by the allocator instead of fresh pages for every log).
SCAN_CHUNK = 65536


def offsets_where(buf, test):
    """The offsets ``i`` of a uint8 array where ``test`` (a vectorised predicate on a slice) is true,
    scanned in ``SCAN_CHUNK`` slices."""
    import numpy as np

    if len(buf) <= SCAN_CHUNK:
        return np.flatnonzero(test(buf))
    return np.concatenate([np.flatnonzero(test(buf[lo:lo + SCAN_CHUNK])) + lo
                           for lo in range(0, len(buf), SCAN_CHUNK)])


@dataclass(frozen=True)
class StampColumns:
    """`MM-DD-YYYY HH:MM:SS?fff` stamps decoded column-wise (numpy arrays)."""

    shaped: Any  # bool per offset: digits and separators in place
    minutes: Any  # per shaped offset: epoch of its minute (float, as minute_epoch gives it); None if one is impossible
    seconds: Any  # per shaped offset
    millis: Any  # per shaped offset
    run: Any = None  # per shaped offset: index of its minute in ``prefixes``
    prefixes: tuple[str, ...] = ()  # the `MM-DD-YYYY HH:MM` text of each run of equal minutes, in order


def stamp_columns(data: bytes, words, offsets) -> StampColumns:
    """Decode the stamps starting at ``offsets`` (numpy int array) of ASCII bytes ``data``: thousands of
    log lines at once. ``words`` is ``word_view`` of ``data``. The minute of each run of consecutive
    stamps with the same minute (a log is in time order: one run per minute) goes through
    ``minute_epoch``, so the values are those of the line-by-line parsers."""
    import numpy as np  # only power results need it; kept out of start-up

    shaped = np.ones(len(offsets), dtype=bool)
    read = []
    for at, high, want, six, punct, fixed in _STAMP_MASKS:
        word = words[offsets + at]
        shaped &= (word & high) == want  # 0x30-0x3F ...
        shaped &= ((word + six) & high) == want  # ... and not 0x3A-0x3F (ASCII: no carry)
        shaped &= (word & punct) == fixed
        read.append(word)
    w0, w1, w2 = (w[shaped] for w in read)
    nibbles = np.uint64(0x0F0F0F0F0F0F0F0F)
    low = (w2 & nibbles).astype(np.int64)  # the digits of `M:SS.fff` (bytes 15-22) as values
    seconds = (low >> 16 & 0xF) * 10 + (low >> 24 & 0xF)
    millis = (low >> 40 & 0xF) * 100 + (low >> 48 & 0xF) * 10 + (low >> 56 & 0xF)
    if not len(w0):
        return StampColumns(shaped, np.zeros(0), seconds, millis, np.zeros(0, dtype=np.int32))
    # the 16 bytes of the minute (`MM-DD-YYYY HH:MM`), digits or fixed separators, as 16 nibbles
    key = _pack_nibbles(w0 & nibbles) << np.uint64(32) | _pack_nibbles(w1 & nibbles)
    change = np.flatnonzero(key[1:] != key[:-1]) + 1
    prefixes = tuple(data[start:start + 16].decode("ascii")
                     for start in offsets[shaped][np.concatenate(([0], change))].tolist())
    bases = [minute_epoch(prefix) for prefix in prefixes]
    step = np.zeros(len(key), dtype=np.int32)
    step[change] = 1
    run = np.cumsum(step, dtype=np.int32)
    if None in bases:
        return StampColumns(shaped, None, seconds, millis, run, prefixes)
    return StampColumns(shaped, np.array(bases, dtype=np.float64)[run], seconds, millis, run, prefixes)


def _pack_nibbles(x):
    """The low nibbles of the 8 bytes of each word, packed into its low 32 bits."""
    import numpy as np

    x = (x | (x >> np.uint64(4))) & np.uint64(0x00FF00FF00FF00FF)
    x = (x | (x >> np.uint64(8))) & np.uint64(0x0000FFFF0000FFFF)
    return (x | (x >> np.uint64(16))) & np.uint64(0x00000000FFFFFFFF)


def decimals(data: bytes, starts, ends) -> list[float] | None:
    """``float`` of each field ``data[starts[i]:ends[i]]`` (numpy int arrays), vectorised for the form
    PTD writes (`123.456000`: digits, a dot, as many decimals as the first field has, at most 15 digits
    in all): the digits are read as one integer and divided by a power of ten, which IEEE division
    rounds correctly, so the value is the one ``float`` gives. Other fields go through ``float``
    itself; None when one of them is not a number."""
    import numpy as np

    if not len(starts):
        return []
    lengths = ends - starts
    width = int(lengths.max())
    first = data[int(starts[0]):int(ends[0])]
    frac = len(first) - 1 - first.find(b".")
    if width > 16 or frac > len(first) - 2 or frac < 1:
        return _floats(data, starts, ends, range(len(starts)))
    columns = np.arange(width)
    chars = np.frombuffer(data, dtype=np.uint8)[np.maximum(ends[:, None] - width + columns, 0)]  # right-aligned
    values = chars.astype(np.int64) - 48
    inside = columns >= (width - lengths)[:, None]
    dot = width - 1 - frac
    digit = ((values >= 0) & (values <= 9)) | ~inside
    digit[:, dot] = chars[:, dot] == 46
    good = digit.all(axis=1) & (lengths >= frac + 2)  # a digit before the dot
    values[~inside] = 0
    values[:, dot] = 0
    weights = np.array([10 ** (width - 1 - j - (j < dot)) if j != dot else 0 for j in range(width)], dtype=np.int64)
    out = ((values @ weights) / _TENS[frac]).tolist()
    odd = np.flatnonzero(~good).tolist()
    if odd:
        redo = _floats(data, starts, ends, odd)
        if redo is None:
            return None
        for i, value in zip(odd, redo):
            out[i] = value
    return out


#: 1, 10, ... 1e16, each read from its decimal form (exact).
_TENS = tuple(float(f"1e{k}") for k in range(17))


def _floats(data: bytes, starts, ends, which) -> list[float] | None:
    begin, end = starts.tolist(), ends.tolist()
    try:
        return [float(data[begin[i]:end[i]]) for i in which]
    except ValueError:
        return None


#: A record line starts `Time,<stamp>,` (29 characters); the stamp sits at offset 5.
_HEAD = 29
_TIME = int.from_bytes(b"Time,", "little")


def newline(part):
    return part == 10


def _comma(part):
    return part == 44


#: Bytes ``str.splitlines`` cuts a line at (as "\n"), which the fast readings do not: a file with one is
#: read line by line.
_SPL_ODD_BREAKS = (b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")

#: The records read in C (``checker/_power_scan.c``; None where it is not built): ``_parse_spl_numpy`` in one
#: pass, same answers.
_SPL_RECORDS = compiled("spl_records", "_power_scan")


def _spl_body(text: bytes | str) -> bytes | None:
    """The bytes of a `spl.txt` as the fast readings take them: ASCII, "\n" line ends ("\r\n" made "\n"),
    without the line ends at the end of the file (PTD ends it with a blank line). None when the file has
    anything else (no text, another byte, a lone "\r", a line break other than "\n")."""
    body = text.rstrip("\r\n").encode("utf-8", "surrogatepass") if isinstance(text, str) else text.rstrip(b"\r\n")
    if not body or not body.isascii() or any(odd in body for odd in _SPL_ODD_BREAKS):
        return None
    if b"\r" in body:
        body = body.replace(b"\r\n", b"\n")
        if b"\r" in body:  # a "\r" that does not end a line
            return None
    return body


def _parse_spl_fast(text: bytes | str) -> SplParse | None:
    """The common case: every line a well-formed record (`Time,<stamp>,<field>,<watts>[,...]`, seconds
    00-59), ASCII only, "\n" or "\r\n" line ends, blank lines only at the end. None when anything else
    is in the file (the line-by-line path then reads it). Read in C where the extension is built
    (``_SPL_RECORDS``), else with numpy (``_parse_spl_numpy``)."""
    if _SPL_RECORDS is None:
        return _parse_spl_numpy(text)
    found = _SPL_RECORDS(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text, minute_epoch)
    if found is None:
        return None
    us, watts, ordered = found
    return SplParse(us, watts, tuple(range(1, len(us) + 1)), ordered=ordered)


def _parse_spl_numpy(text: bytes | str) -> SplParse | None:
    """``_parse_spl_fast`` vectorised with numpy over the bytes of the file (as ``_spl_body`` gives them).
    Watts are converted by ``decimals`` and the stamps by ``stamp_columns``, so the values are exactly
    those of the line-by-line path."""
    body = _spl_body(text)
    if body is None:
        return None
    import numpy as np  # only power results need it; kept out of start-up

    buf = np.frombuffer(body, dtype=np.uint8)
    words = word_view(body, _HEAD)
    breaks = offsets_where(buf, newline)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [len(buf)]))
    if int((ends - starts).min()) < _HEAD:
        return None
    if ((words[starts] & 0xFFFFFFFFFF) != _TIME).any() or (buf[starts + 24] != 46).any() \
            or (buf[starts + 28] != 44).any():  # "Time,", "." before the milliseconds, "," after them
        return None
    stamps = stamp_columns(body, words, starts + 5)
    if not stamps.shaped.all() or stamps.minutes is None or (stamps.seconds > 59).any():
        return None
    # field 2 runs to the next comma on the line; watts (field 3) from there to the comma after or the line end
    commas = offsets_where(buf, _comma)
    at = np.searchsorted(commas, starts + _HEAD)  # index of the comma after field 2
    if int(at.max()) >= len(commas):
        return None
    field_end = commas[at]
    if (field_end >= ends).any():
        return None
    after = np.append(commas, len(buf))[at + 1]
    watts = decimals(body, field_end + 1, np.minimum(after, ends))
    if watts is None:  # a watts field that is not a number
        return None
    us = (stamps.minutes.astype(np.int64) * 1_000_000 + stamps.seconds * 1_000_000 + stamps.millis * 1000)
    return SplParse(tuple(us.tolist()), tuple(watts), tuple(range(1, len(starts) + 1)),
                    ordered=bool((us[1:] >= us[:-1]).all()))


def parse_spl(data: bytes | str) -> SplParse:
    """A `spl.txt` from its bytes (decoded as UTF-8 with replacement where the line-by-line path needs
    text) or its text."""
    fast = _parse_spl_fast(data) if data else None
    if fast is not None:
        return fast
    return _parse_spl_lines(data if isinstance(data, str) else data.decode("utf-8", errors="replace"))


def _parse_spl_lines(text: str) -> SplParse:
    """Line by line: any content (the general path of ``parse_spl``)."""
    us: list[int] = []
    watts: list[float] = []
    lines: list[int] = []
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
            value = float(fields[3])
        except (IndexError, ValueError):
            bad.append((number, line[:120]))
            continue
        us.append(to_us(stamp))
        watts.append(value)
        lines.append(number)
    return SplParse(tuple(us), tuple(watts), tuple(lines), tuple(bad), tuple(stray),
                    ordered=all(a <= b for a, b in zip(us, us[1:])))


def window_watts(spl: SplParse, begin: datetime, end: datetime) -> list[float]:
    """Readings of the samples strictly inside (begin, end), in file order (official I2)."""
    low, high = to_us(begin), to_us(end)
    if spl.ordered:
        return list(spl.watts[bisect_right(spl.us, low):bisect_left(spl.us, high)])
    return [w for u, w in zip(spl.us, spl.watts) if low < u < high]


#: id(spl) -> (spl, the indices of its readings that are not > 0, ascending): a few per result's power logs
_UNUSABLE: dict[int, tuple[SplParse, list[int]]] = {}


def _unusable(spl: SplParse) -> list[int]:
    """The indices of the readings of ``spl`` that ``POSITIVE`` drops (0, negative, NaN), found once per parse
    (usually none: one pass in C); the PW checks ask about two or three windows of each."""
    known = _UNUSABLE.get(id(spl))
    if known is not None and known[0] is spl:
        return known[1]
    watts = spl.watts
    found = [] if _all_positive(watts) else [i for i, w in enumerate(watts) if not 0 < w]
    if len(_UNUSABLE) >= 16:
        _UNUSABLE.clear()
    _UNUSABLE[id(spl)] = (spl, found)
    return found


def _all_positive(watts) -> bool:
    """``all(map(POSITIVE, watts))`` of numbers, in two passes in C without a call per reading: a sum that is
    not NaN means no reading is NaN (NaN spreads through any sum), and then the smallest reading decides (the
    other numbers are ordered); a sum that is NaN (a NaN reading, or +inf with -inf) is told by ``POSITIVE``."""
    if not watts:
        return True
    total = sum(watts)
    if total != total:
        return all(map(POSITIVE, watts))
    return min(watts) > 0


def _bounds(spl: SplParse, begin: datetime, end: datetime) -> tuple[int, int]:
    """(first, last + 1) index of the samples strictly inside (begin, end) of an ordered ``spl`` (the slice
    ``window_watts`` takes)."""
    return bisect_right(spl.us, to_us(begin)), bisect_left(spl.us, to_us(end))


def _unusable_in(spl: SplParse, low: int, high: int) -> int:
    """How many of the readings ``low`` to ``high`` - 1 of ``spl`` are not > 0."""
    bad = _unusable(spl)
    return bisect_left(bad, high) - bisect_left(bad, low) if bad else 0


def window_has_samples(spl: SplParse, begin: datetime, end: datetime) -> bool:
    """``bool(window_watts(spl, begin, end))``, without making the window's list."""
    if spl.ordered:
        low, high = _bounds(spl, begin, end)
        return high > low
    return bool(window_watts(spl, begin, end))


def window_has_positive(spl: SplParse, begin: datetime, end: datetime) -> bool:
    """``any(map(POSITIVE, window_watts(spl, begin, end)))``: some reading > 0 strictly inside (begin, end)."""
    if spl.ordered:
        low, high = _bounds(spl, begin, end)
        return high > low and high - low > _unusable_in(spl, low, high)
    return any(map(POSITIVE, window_watts(spl, begin, end)))


def window_average(spl: SplParse, begin: datetime, end: datetime) -> float | None:
    """Mean of the positive readings strictly inside (begin, end); None when there is none."""
    if spl.ordered:
        low, high = _bounds(spl, begin, end)
        if high <= low:
            return None
        if not _unusable_in(spl, low, high):
            values = spl.watts[low:high]  # (every reading of the window is positive: the same values, in order)
            return sum(values) / len(values)
    values = list(filter(POSITIVE, window_watts(spl, begin, end)))
    return sum(values) / len(values) if values else None


@dataclass(frozen=True)
class CoverageGap:
    """A stretch of a run's window without power samples."""

    start: datetime
    end: datetime

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()


def coverage_gaps(spl: SplParse, begin: datetime, end: datetime, max_gap_s: float) -> list[CoverageGap]:
    """Stretches of the run window (begin, end) longer than ``max_gap_s`` without a sample: before
    the first sample, between two samples, after the last one. The whole window when no sample."""
    low, high = to_us(begin), to_us(end)
    if spl.ordered:
        inside = spl.us[bisect_right(spl.us, low):bisect_left(spl.us, high)]
    else:
        inside = sorted(u for u in spl.us if low < u < high)
    points = [low, *inside, high]
    limit = max_gap_s * 1_000_000
    if max(map(sub, points[1:], points)) <= limit:
        return []  # (no gap longer than the limit, as is usual: told by the longest gap, one pass in C)
    longer = map(lt, repeat(limit), map(sub, points[1:], points))  # (b - a > limit, for each gap a..b)
    return [CoverageGap(from_us(a), from_us(b)) for a, b in compress(zip(points, points[1:]), longer)]


def ranging_delta_percent(ranging_watts: float, testing_watts: float) -> float:
    """Testing vs ranging average power in percent, rounded as the Power WG checker does
    (averages to 5 decimals, the delta to 2)."""
    ranging, testing = round(ranging_watts, 5), round(testing_watts, 5)
    return round((testing / ranging - 1) * 100, 2)


def epoch_utc(stamp: datetime) -> float:
    """A LoadGen / spl timestamp as seconds since the epoch, read as UTC (official: offset 0):
    ``stamp.replace(tzinfo=timezone.utc).timestamp()``, which is the wall time's distance from the epoch in
    seconds (``timedelta.total_seconds``, the same division), computed without making an aware copy."""
    if stamp.tzinfo is not None:
        stamp = stamp.replace(tzinfo=None)
    return (stamp - _EPOCH).total_seconds()
