"""Reading `ptd_logs.txt` into a `PtdLog`: the lines the PTD walk (``ptd_log.walk_ptd_log``) looks at,
parsed once, in the load stage, from the file's bytes. No IO: the loader passes the bytes.

What the walk needs of a log does not depend on the session: the lines with a keyword it reacts to
(WARNING:, ERROR:, Go with mark, Completed test, Uncertainty) and the lines whose timestamp has the
right shape but an impossible value, each with its stamp read as a UTC epoch. The WARNING/ERROR lines,
most of a log, are kept as groups of lines with the same text after the stamp (numpy columns); the
text of a member line is rebuilt only for the few lines a finding shows. A log as PTD writes it is read
in C where the extension is built (``checker/_power_scan.c``), else with numpy; any other line by line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from checker.loaders.compiled import compiled
from checker.metrics.power import minute_epoch, newline, offsets_where, stamp_columns, word_view

PTD_STAMP_RE = re.compile(r"^\d\d-\d\d-\d\d\d\d \d\d:\d\d:\d\d.\d\d\d")
UNCERTAINTY_ACTIVE_RE = re.compile(r"Uncertainty checking for Yokogawa\S+ is activated")
BAD = "bad"  # the stamp of a line whose timestamp has the right shape but an impossible value
KEYWORDS = ("WARNING:", "ERROR:", "Go with mark", "Completed test", "Uncertainty")
MARK_PREFIX = ": Go with mark '"
COMPLETED = ": Completed test"
_MISS = object()


class PtdItem(NamedTuple):
    """A line the walk looks at one at a time (a tuple: a careful read keeps thousands)."""

    line: int  # 1-based
    text: str  # its first 300 characters (all the official check keeps of a line)
    stamp: float | str | None  # UTC epoch of its stamp; None without one; BAD when it does not parse
    mark: str | None  # the stripped text after the stamp when it is a `Go with mark '...` or `Completed test` line
    active: bool  # the "Uncertainty checking for Yokogawa... is activated" line
    events: tuple[tuple[str, str], ...]  # its (kind, message) WARNING/ERROR events


class PtdGroup(NamedTuple):
    """Stamped lines with the same text after the stamp and one WARNING/ERROR event, nothing else."""

    kind: str
    message: str
    rest: str  # the text after the stamp, up to the 300th character of the line
    numbers: Any  # line numbers (int32, ascending: memoryviews from the C reading, numpy arrays from numpy's)
    minute: Any  # per line: index of its stamp's minute in PtdLog.minutes
    milli: Any  # per line: seconds * 1000 + milliseconds of its stamp


@dataclass(frozen=True, eq=False)
class PtdLog:
    """A PTD log read line by line into its items, with the lines that could not be decoded."""

    lines_total: int
    undecodable: tuple[int, ...]  # lines with non-UTF-8 bytes
    items: tuple[PtdItem, ...]  # in line order
    groups: tuple[PtdGroup, ...] = ()
    minutes: tuple[str, ...] = ()  # `MM-DD-YYYY HH:MM` of the groups' stamps
    bases: Any = None  # their UTC epochs (a tuple from the C reading, numpy float64 from numpy's; None without groups)

    def epochs(self, group: PtdGroup, offset: float = 0.0) -> list[float]:
        """The UTC epochs of a group's stamps plus ``offset``, added as the line-by-line reading adds them."""
        if _EPOCHS is not None and isinstance(group.milli, memoryview):  # columns read in C
            return _EPOCHS(group.minute, group.milli, self.bases, offset)
        return ((self._numpy_epochs(group)) + offset).tolist()

    def _numpy_epochs(self, group: PtdGroup):
        return (self.bases[group.minute] + group.milli // 1000) + (group.milli % 1000) / 1000

    def window(self, group: PtdGroup, offset: float, lo: float | None, hi: float | None, keep_in: bool,
               keep_out: bool) -> tuple[Any, Any]:
        """(inside, outside): a group's lines whose epoch t (plus ``offset``) has lo < t < hi, and the
        others (all of them without a window). A side kept is a list of (index in the group, t), a side
        not kept is its count."""
        if _WINDOW is not None and isinstance(group.milli, memoryview):
            nan = float("nan")
            return _WINDOW(group.minute, group.milli, self.bases, offset, nan if lo is None else lo,
                           nan if hi is None else hi, keep_in, keep_out)
        stamps = self._numpy_epochs(group) + offset
        within = (lo < stamps) & (stamps < hi) if lo is not None else stamps != stamps  # all False (no NaN)
        sides = []
        for chosen, keep in ((within, keep_in), (~within, keep_out)):
            indices = chosen.nonzero()[0].tolist()
            sides.append([(i, float(stamps[i])) for i in indices] if keep else len(indices))
        return sides[0], sides[1]

    def text(self, group: PtdGroup, i: int) -> str:
        """The first 300 characters of the i-th line of a group."""
        milli = int(group.milli[i])
        return f"{self.minutes[int(group.minute[i])]}:{milli // 1000:02d}.{milli % 1000:03d}{group.rest}"


def interesting(raw: str) -> bool:
    return ("WARNING:" in raw or "ERROR:" in raw or "Go with mark" in raw or "Completed test" in raw
            or "Uncertainty" in raw)


def _epoch(stamp: str) -> float | None:
    """UTC epoch of `MM-DD-YYYY HH:MM:SS.fff` (shape already matched by PTD_STAMP_RE); None if invalid."""
    minute = minute_epoch(stamp[:16])
    second = int(stamp[17:19])
    if minute is None or second > 61:
        return None
    return minute + second + int(stamp[20:23]) / 1000


def stamp_epoch(head: str) -> float | str | None:
    """UTC epoch of the stamp that starts a line (its first 23 characters); None without a stamp,
    BAD when the stamp does not parse (the official check raises there)."""
    if not PTD_STAMP_RE.match(head):
        return None
    epoch = _epoch(head)
    return BAD if epoch is None else epoch


def describe(text: str, window: str) -> tuple[bool, str | None, bool, tuple[tuple[str, str], ...]]:
    """What the walk needs from a line's text (after its stamp), computed once per distinct text:
    (has a keyword the walk reacts to, the stripped text when it is a mark or `Completed test` line,
    is the "uncertainty checking activated" line, its (kind, message) WARNING/ERROR events).
    ``window`` is the part of the text that falls in the first 300 characters of the line, which is
    all the official check keeps of a line."""
    specs = []
    for kind, key in (("WARNING", "WARNING:"), ("ERROR", "ERROR:")):
        at = window.find(key)
        if at >= 0 and at + len(key) < len(window):  # same as `(?<=KIND:).+` finding something
            specs.append((kind, window[at + len(key):].strip()))
    active = "Uncertainty" in window and UNCERTAINTY_ACTIVE_RE.search(window) is not None
    msg = text.strip()
    mark = msg if msg.startswith(MARK_PREFIX) or msg == COMPLETED else None
    return interesting(text), mark, active, tuple(specs)


def read_ptd_log(data: bytes) -> PtdLog:
    """A `ptd_logs.txt` from its bytes: the vectorised reading when the log has the form PTD writes,
    else the text (UTF-8, undecodable bytes replaced) line by line."""
    return _read_fast(data) or read_ptd_text(data.decode("utf-8", errors="replace"), fast=False)


def read_ptd_text(text: str, fast: bool = True) -> PtdLog:
    """A `ptd_logs.txt` from its text (the general path; the vectorised one first when ``fast``)."""
    if fast and text.isascii():
        found = _read_fast(text.encode("ascii"))
        if found is not None:
            return found
    lines_total, candidates, undecodable = candidate_lines(text)
    items = []
    times: dict[str, float | str | None] = {}  # first 23 characters -> epoch, BAD or None
    stamped: dict[str, tuple] = {}  # text after a stamp -> describe(...)
    unstamped: dict[str, tuple] = {}  # whole text of a line without a stamp -> describe(...)
    for number, raw in candidates:
        head = raw[:23]
        t = times.get(head, _MISS)
        if t is _MISS:
            t = times[head] = stamp_epoch(head)
        if t is None:
            info = unstamped.get(raw) or unstamped.setdefault(raw, describe(raw, raw[:300]))
        else:
            rest = raw[23:]
            info = stamped.get(rest) or stamped.setdefault(rest, describe(rest, rest[:277]))
        if t is BAD or info[0]:  # only bad stamps, marks, completed tests, the uncertainty line and events matter
            items.append(PtdItem(number, raw[:300], t, *info[1:]))
    return PtdLog(lines_total, tuple(undecodable), tuple(items))


#: Line breaks other than "\n" that ``str.splitlines`` also splits on ("\r\n" is handled apart); the
#: first five are the ASCII ones.
_OTHER_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_ODD_BYTES = tuple(c.encode("ascii") for c in _OTHER_BREAKS[:5]) + (b"\x00",)
_MINUTE_SHAPE_RE = re.compile(r"\d\d-\d\d-\d\d\d\d \d\d:\d\d")


def stamps_all_valid(lines: list[str]) -> bool:
    """True when no line has a timestamp of the right shape but an impossible value (month 13, second
    75...). Checked on the distinct minute prefixes and second fields, which a log has few of; a
    False may be a false alarm, which only costs the slow line-by-line walk."""
    for prefix in {line[:16] for line in lines}:
        if _MINUTE_SHAPE_RE.fullmatch(prefix) and minute_epoch(prefix) is None:
            return False
    for second in {line[16:19] for line in lines}:
        if len(second) == 3 and second[0] == ":" and second[1:].isdigit() and int(second[1:]) > 61:
            return False
    return True


def candidate_lines(text: str) -> tuple[int, list[tuple[int, str]], list[int]]:
    """The general path: (number of lines, the (1-based number, text) of every line the walk must look
    at, the lines with non-UTF-8 bytes). Lines as ``str.splitlines`` cuts them.

    When every timestamp in the file is valid and lines end in "\n" or "\r\n" only, only the lines
    with a keyword the walk reacts to are kept; otherwise every line is."""
    if not text:
        return 0, [], []
    breaks = _OTHER_BREAKS[:5] if text.isascii() else _OTHER_BREAKS
    if ("\r" not in text or text.count("\r") == text.count("\r\n")) and not any(c in text for c in breaks):
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        if stamps_all_valid(lines):
            keep = [(n, line[:-1] if line.endswith("\r") else line) for n, line in enumerate(lines, 1)
                    if interesting(line)]
            undecodable = [n for n, line in enumerate(lines, 1) if "\ufffd" in line] if "\ufffd" in text else []
            return len(lines), keep, undecodable
    lines = text.splitlines()
    return (len(lines), list(enumerate(lines, 1)), [n for n, line in enumerate(lines, 1) if "\ufffd" in line])


def _word(text: bytes) -> tuple[int, int]:
    """(value, mask) of up to 8 bytes read as a little-endian word."""
    return int.from_bytes(text, "little"), (1 << (8 * len(text))) - 1


#: Each keyword as its first 8 bytes as a word and mask, and the next bytes likewise.
_KEY_WORDS = tuple((_word(k.encode()[:8]), _word(k.encode()[8:16])) for k in KEYWORDS)
#: The first letters of the keywords (C, E, G, U, W) share these bits, which only A, Q and S share too:
#: one masked comparison finds every byte a keyword can start at.
_FIRST_MASK, _FIRST_BITS = 0xE9, 0x41
assert all(k.encode()[0] & _FIRST_MASK == _FIRST_BITS for k in KEYWORDS)


def _may_start_keyword(part):
    return (part & _FIRST_MASK) == _FIRST_BITS


def _keyword_lines(buf, words, starts):
    """Indices of the lines holding a keyword, found in one pass over the bytes: the offsets where a
    keyword can start, then a word comparison at each of them."""
    import numpy as np

    at = offsets_where(buf, _may_start_keyword)
    head, tail = words[at], words[at + 8]
    hit = np.zeros(len(at), dtype=bool)
    for (value, mask), (more, more_mask) in _KEY_WORDS:
        found = (head & np.uint64(mask)) == np.uint64(value)
        if more_mask:
            found &= (tail & np.uint64(more_mask)) == np.uint64(more)
        hit |= found
    lines = np.searchsorted(starts, at[hit], side="right") - 1
    return lines[np.concatenate(([True], lines[1:] != lines[:-1]))] if len(lines) else lines


#: Texts up to this many 8-byte words are grouped with numpy; longer ones (rare) by their bytes.
_GROUPED_WORDS = 40


def _same_text_groups(data: bytes, words, begin, length):
    """Group lines by their bytes ``[begin, begin + length)`` (numpy arrays, one entry per line): a
    list of index arrays (into ``begin``), each the lines of one text, in ascending order. The texts
    are read as the 8-byte words covering them (the last one ending with the text), hashed together
    with the length to group, then every word compared with the group's first line's; when a hash
    collision shows, or a text is longer than ``_GROUPED_WORDS`` words, the texts are compared as bytes."""
    import numpy as np

    if not len(begin):
        return []
    words_needed = (int(length.max()) + 7) // 8
    short = length < 8
    last = np.maximum(length - 8, 0)
    columns = []
    if words_needed <= _GROUPED_WORDS:
        # a text shorter than a word: its word masked to its bytes (each column reads the same word)
        mask = np.where(short, (np.uint64(1) << (8 * np.minimum(length, 7)).astype(np.uint64)) - np.uint64(1),
                        np.uint64(0xFFFFFFFFFFFFFFFF)) if short.any() else None
        for k in range(max(words_needed, 1)):
            column = words[begin + np.minimum(8 * k, last)]
            columns.append(column if mask is None else column & mask)
        key = length.astype(np.uint64)
        for column in columns:
            key *= np.uint64(0x9E3779B97F4A7C15)
            key ^= column
        _, first, which = np.unique(key, return_index=True, return_inverse=True)
        which = which.reshape(-1)
        lead = first[which]
        exact = bool((length == length[lead]).all()) and all(bool((c == c[lead]).all()) for c in columns)
    if not columns or not exact:
        texts: dict[bytes, int] = {}
        which = np.array([texts.setdefault(data[a:a + n], len(texts)) for a, n in zip(begin.tolist(), length.tolist())])
    order = np.argsort(which, kind="stable")
    cuts = np.flatnonzero(np.diff(which[order])) + 1
    return np.split(order, cuts)


def _return(part):
    return part == 13


#: The lines the walk looks at, found in C (``checker/_power_scan.c``; None where it is not built): what
#: ``_read_numpy`` finds, in one pass.
_PTD_LINES = compiled("ptd_lines", "_power_scan")
#: A group's epochs and its split by a time window, in C for the groups the C reading made (their columns
#: are memoryviews: no numpy is imported to read or walk a log); the numpy reading's groups use numpy.
_EPOCHS = compiled("epochs", "_power_scan")
_WINDOW = compiled("window", "_power_scan")


def _read_fast(data: bytes) -> PtdLog | None:
    """The common case, read from the bytes at once instead of line by line: ASCII, no NUL, "\n" or
    "\r\n" line ends and no other line break, every timestamp valid with a "." before its milliseconds
    (every published log). None otherwise. Read in C where the extension is built, else with numpy."""
    return _read_numpy(data) if _PTD_LINES is None else _read_compiled(data)


def _read_compiled(data: bytes) -> PtdLog | None:
    """``_read_numpy`` with the lines found and grouped in C (``_PTD_LINES``): the same log, but for the
    order of its groups (the order the texts first come in)."""
    found = _PTD_LINES(data)
    if found is None:
        return None
    lines_total, minutes, unstamped, grouped = found
    bases = [minute_epoch(prefix) for prefix in minutes]
    if None in bases:
        return None  # an impossible stamp: the walk must see every line
    items = []
    for number, line in unstamped:
        raw = line.decode("ascii")
        items.append(PtdItem(number, raw[:300], None, *describe(raw, raw[:300])[1:]))
    groups = []
    for text, numbers, runs, millis in grouped:
        rest = text.decode("ascii")
        _, mark, active, specs = describe(rest, rest[:277])
        if not specs and mark is None and not active:
            continue  # changes nothing (a reply that mentions "Uncertainty", ...)
        numbers, runs, millis = (memoryview(column).cast("i") for column in (numbers, runs, millis))
        if len(specs) == 1 and mark is None and not active:
            groups.append(PtdGroup(*specs[0], rest[:277], numbers, runs, millis))
            continue
        for number, run, milli in zip(numbers.tolist(), runs.tolist(), millis.tolist()):
            stamp = (bases[run] + milli // 1000) + (milli % 1000) / 1000  # as PtdLog.epochs adds them
            line = f"{minutes[run]}:{milli // 1000:02d}.{milli % 1000:03d}{rest}"  # "." at 19: the line itself
            items.append(PtdItem(number, line[:300], stamp, mark, active, specs))
    items.sort(key=lambda item: item.line)
    return PtdLog(lines_total, (), tuple(items), tuple(groups), tuple(minutes), tuple(bases) if grouped else None)


def _read_numpy(data: bytes) -> PtdLog | None:
    """``_read_fast`` found with numpy over the bytes."""
    if not data or not data.isascii() or any(odd in data for odd in _ODD_BYTES):
        return None
    import numpy as np  # only power results need it; kept out of start-up

    buf = np.frombuffer(data, dtype=np.uint8)
    words = word_view(data, 48)
    breaks = offsets_where(buf, newline)
    ended = data.endswith(b"\n")
    starts = np.concatenate(([0], breaks + 1))[:len(breaks) + (not ended)]
    ends = breaks if ended else np.append(breaks, len(buf))
    if b"\r" in data:  # "\r\n" line ends: the lines end before the "\r" (a lone "\r" is a line break)
        returns = offsets_where(buf, _return)
        if returns[-1] == len(buf) - 1 or (buf[returns + 1] != 10).any():
            return None
        ends = ends - (buf[np.maximum(ends - 1, 0)] == 13) * (ends > starts)
    n = len(starts)
    long_enough = np.flatnonzero(ends - starts >= 23)
    stamps = stamp_columns(data, words, starts[long_enough])
    if stamps.minutes is None or (stamps.seconds > 61).any():
        return None  # an impossible stamp: the walk must see every line
    stamped_lines = long_enough[stamps.shaped]
    if (buf[starts[stamped_lines] + 19] != 46).any():
        return None  # another character before the milliseconds (the text of a line is rebuilt with ".")
    minute = np.full(n, -1, dtype=np.int32)
    minute[stamped_lines] = stamps.run
    milli = np.zeros(n, dtype=np.int32)
    milli[stamped_lines] = stamps.seconds * 1000 + stamps.millis
    bases = np.array([minute_epoch(p) for p in stamps.prefixes], dtype=np.float64)

    def line_text(number: int) -> str:
        return data[int(starts[number - 1]):int(ends[number - 1])].decode("ascii")

    keyword = _keyword_lines(buf, words, starts)
    has_stamp = minute[keyword] >= 0
    items = []
    for i in keyword[~has_stamp].tolist():
        raw = line_text(i + 1)
        items.append(PtdItem(i + 1, raw[:300], None, *describe(raw, raw[:300])[1:]))
    stamped = keyword[has_stamp]
    groups = []
    for members in _same_text_groups(data, words, starts[stamped] + 23, ends[stamped] - starts[stamped] - 23):
        if not len(members):
            continue
        lines = stamped[members]
        rest = data[int(starts[lines[0]]) + 23:int(ends[lines[0]])].decode("ascii")
        _, mark, active, specs = describe(rest, rest[:277])
        if not specs and mark is None and not active:
            continue  # changes nothing (a reply that mentions "Uncertainty", ...)
        if len(specs) == 1 and mark is None and not active:
            groups.append(PtdGroup(*specs[0], rest[:277], (lines + 1).astype(np.int32), minute[lines], milli[lines]))
            continue
        epochs = ((bases[minute[lines]] + milli[lines] // 1000) + (milli[lines] % 1000) / 1000).tolist()
        items.extend(PtdItem(number + 1, line_text(number + 1)[:300], t, mark, active, specs)
                     for number, t in zip(lines.tolist(), epochs))
    items.sort(key=lambda item: item.line)
    return PtdLog(n, (), tuple(items), tuple(groups), stamps.prefixes, bases)
