"""Pure parsing of the PTD session files: `ptd_logs.txt`, `client.json`, `server.json`.

Mirrors what the Power WG `power_checker.py` reads (official-checker.md section I, sub-checks 3-11),
including its quirks, so that the power checks (PW) can reproduce its verdicts exactly and report
separately what it misses. No IO: callers pass the file texts and parsed JSON.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import count, repeat
from typing import Any, NamedTuple

from checker.metrics.power import minute_epoch as _minute_epoch, stamp_columns, word_view

PTD_STAMP = "%m-%d-%Y %H:%M:%S.%f"
PTD_STAMP_RE = re.compile(r"^\d\d-\d\d-\d\d\d\d \d\d:\d\d:\d\d.\d\d\d")
SESSION_KEYS = ("version", "timezone", "modules", "sources", "messages", "uuid", "session_name", "results",
                "phases")
UNCERTAINTY_ACTIVE_RE = re.compile(r"Uncertainty checking for Yokogawa\S+ is activated")


# --- client.json / server.json ---------------------------------------------------------------------


def missing_session_keys(data: Any) -> list[str]:
    """Required keys (sub-check 1) absent from a client/server JSON; all of them when not an object."""
    if not isinstance(data, dict):
        return list(SESSION_KEYS)
    return [k for k in SESSION_KEYS if k not in data]


def ptd_messages(server: Any) -> list[dict]:
    """The PTD command/reply pairs of server.json (`ptd_messages`); a per-analyzer list of lists is
    flattened. Entries that are not {cmd, reply} objects are skipped."""
    raw = server.get("ptd_messages") if isinstance(server, dict) else None
    out: list[dict] = []
    stack = list(raw) if isinstance(raw, list) else []
    for item in stack:
        if isinstance(item, list):
            out.extend(m for m in item if isinstance(m, dict))
        elif isinstance(item, dict):
            out.append(item)
    return [m for m in out if isinstance(m.get("cmd"), str) and isinstance(m.get("reply"), str)]


@dataclass(frozen=True)
class Identity:
    """What the `Identify` reply says: meter model (first field) and PTD version (`version=X-...`)."""

    reply: str
    model: str
    version: str


def identify(server: Any) -> Identity | None:
    for msg in ptd_messages(server):
        if msg["cmd"] == "Identify" and msg["reply"]:
            reply = msg["reply"]
            found = re.search(r"(?<=version=)(.+?)-", reply)
            return Identity(reply, reply.split(",")[0], found.group(1) if found else "")
    return None


def ptd_configs(server: Any) -> list[dict]:
    """`ptd_config` of server.json: one object (v4.1 client) or a list of them (one per analyzer)."""
    raw = server.get("ptd_config") if isinstance(server, dict) else None
    if isinstance(raw, dict):
        return [raw]
    if isinstance(raw, list):
        return [c for c in raw if isinstance(c, dict)]
    return []


def reply_problems(server: Any, restore_command: int = 3) -> list[str]:
    """Sub-check 3 (replies): SR,A / SR,V / Go,1000, / Stop replies, and the SR command number
    ``restore_command`` (1-based, -1 = the last one; official v4.1/v5.0: the third) restoring the
    initial ranges read from the `RR` reply (the third message)."""
    msgs = ptd_messages(server)
    problems: list[str] = []
    expected = (("SR,A", "Range A changed"), ("SR,V", "Range V changed"),
                ("Go,1000,", "Starting untimed measurement, maximum 500000 samples at 1000ms with 0 rampup samples"),
                ("Stop", "Stopping untimed measurement"))
    for prefix, reply in expected:
        stops = 0
        for msg in msgs:
            if not msg["cmd"].startswith(prefix):
                continue
            want = reply
            if msg["cmd"] == "Stop":
                if stops == 2:
                    want = "Error: no measurement to stop"
                stops += 1
            if msg["reply"] != want:
                problems.append(f"reply to {msg['cmd']!r} is {msg['reply']!r}, expected {want!r}")
    if len(msgs) < 3:
        return problems + ["fewer than three PTD messages (no initial ranges)"]
    ranges = msgs[2]["reply"].split(",")

    def initial(index: int) -> str | None:
        try:
            if ranges[index] == "0" and float(ranges[index + 1]) > 0:
                return ranges[index + 1]
        except (ValueError, IndexError):
            return None
        return "Auto"

    for letter, index in (("A", 1), ("V", 3)):
        value = initial(index)
        if value is None:
            problems.append(f"cannot read the initial ranges from {msgs[2]['reply']!r}")
            continue
        cmds = [m["cmd"] for m in msgs if m["cmd"].startswith(f"SR,{letter}")]
        which = "last" if restore_command < 0 else f"#{restore_command}"
        index = restore_command - 1 if restore_command > 0 else restore_command
        if not cmds or (restore_command > 0 and len(cmds) < restore_command):
            problems.append(f"no 'SR,{letter}' command {which} restoring the initial range")
        elif cmds[index] != f"SR,{letter},{value}":
            problems.append(f"'SR,{letter}' command {which} is {cmds[index]!r}, expected 'SR,{letter},{value}'")
    return problems


def message_problems(client: dict, server: dict) -> list[str]:
    """Sub-check 7: identical command lists (and replies, except to `time`), equal protocol versions."""
    mc, ms = client.get("messages"), server.get("messages")
    if not isinstance(mc, list) or not isinstance(ms, list):
        return ["messages is not a list"]
    if len(mc) != len(ms):
        return [f"client has {len(mc)} messages, server has {len(ms)}"]
    for i, (c, s) in enumerate(zip(mc, ms)):
        if not isinstance(c, dict) or not isinstance(s, dict):
            return [f"message {i} is not an object"]
        if c.get("cmd") != s.get("cmd"):
            return [f"command {i} differs: client {c.get('cmd')!r}, server {s.get('cmd')!r}"]
        if c.get("cmd") != "time" and c.get("reply") != s.get("reply"):
            return [f"reply to {c.get('cmd')!r} differs: client {c.get('reply')!r}, server {s.get('reply')!r}"]
    if not ms:
        return ["no messages"]
    cv = re.search(r"mlcommons/power client v(\d+)$", str(ms[0].get("cmd")))
    sv = re.search(r"mlcommons/power server v(\d+)$", str(ms[0].get("reply")))
    if cv is None or sv is None:
        return [f"no client/server protocol version in {ms[0]!r}"]
    if cv.group(1) != sv.group(1):
        return [f"client protocol v{cv.group(1)} differs from server protocol v{sv.group(1)}"]
    return []


def phase_starts(data: dict, mode: str) -> list[float] | None:
    """The wall-clock start of each phase of `phases[mode]` (first element of each pair)."""
    phases = (data.get("phases") or {}).get(mode) if isinstance(data.get("phases"), dict) else None
    if not isinstance(phases, list):
        return None
    out = []
    for item in phases:
        if not isinstance(item, list) or not item or not isinstance(item[0], (int, float)):
            return None
        out.append(float(item[0]))
    return out


# --- ptd_logs.txt ----------------------------------------------------------------------------------


class PtdLine(NamedTuple):
    """One line of the PTD log (a tuple: thousands are made per log)."""

    line: int  # 1-based
    text: str
    time: float | None  # epoch seconds, PTD stamp read as UTC plus the session timezone (as official)


class PtdEvent(NamedTuple):
    """One WARNING:/ERROR: line and how the Power WG checker grades it.

    grade: "error-outside-ranging", "uncertainty-error", "warning" (load-window warning, uncommon
    ranging error, accepted testing error) or "ignored"."""

    line: PtdLine
    kind: str  # "WARNING" or "ERROR"
    message: str
    grade: str
    reason: str


@dataclass(frozen=True)
class PtdScan:
    lines_total: int
    ranging_start: float | None
    ranging_stop: float | None
    testing_start: float | None  # "Go with mark '<session>_testing'" .. next "Completed test"
    testing_stop: float | None
    uncertainty_line: PtdLine | None  # "Uncertainty checking for Yokogawa... is activated"
    # the graded WARNING/ERROR events a check can use: every one the official check would act on,
    # those without a timestamp, and ignored WARNINGs matching the uncertainty pattern (PW017)
    events: tuple[PtdEvent, ...]
    official: PtdEvent | None  # the event at which the official check stops (first non-ignored)
    crash: PtdLine | None  # the first line on which the official check raises (bad/missing stamp)
    bad_stamps: tuple[PtdLine, ...] = field(default_factory=tuple)  # every line it could raise on
    undecodable: tuple[int, ...] = field(default_factory=tuple)  # lines with non-UTF-8 bytes
    ignored_events: int = 0  # the other events: ignored by the official check and no use to any check


def _interesting(raw: str) -> bool:
    return ("WARNING:" in raw or "ERROR:" in raw or "Go with mark" in raw or "Completed test" in raw
            or "Uncertainty" in raw)


def _epoch(stamp: str) -> float | None:
    """UTC epoch of `MM-DD-YYYY HH:MM:SS.fff` (shape already matched by PTD_STAMP_RE); None if invalid.
    The day part is cached: a PTD log has thousands of lines and only a few distinct days."""
    minute = _minute_epoch(stamp[:16])
    second = int(stamp[17:19])
    if minute is None or second > 61:
        return None
    return minute + second + int(stamp[20:23]) / 1000


#: Line breaks other than "\n" that ``str.splitlines`` also splits on ("\r\n" is handled apart); the
#: first five are the ASCII ones.
_OTHER_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_MINUTE_SHAPE_RE = re.compile(r"\d\d-\d\d-\d\d\d\d \d\d:\d\d")


def _stamps_all_valid(lines: list[str]) -> bool:
    """True when no line has a timestamp of the right shape but an impossible value (month 13, second
    75...). Checked on the distinct minute prefixes and second fields, which a log has few of; a
    False may be a false alarm, which only costs the slow line-by-line walk."""
    for prefix in {line[:16] for line in lines}:
        if _MINUTE_SHAPE_RE.fullmatch(prefix) and _minute_epoch(prefix) is None:
            return False
    for second in {line[16:19] for line in lines}:
        if len(second) == 3 and second[0] == ":" and second[1:].isdigit() and int(second[1:]) > 61:
            return False
    return True


def _candidate_lines(text: str) -> tuple[int, list[tuple[int, str, object]], list[int]]:
    """The general path (any text ``_ascii_index`` does not take): (number of lines, the (1-based
    number, text, _MISS) of every line the walk must look at, the lines with non-UTF-8 bytes). Lines
    as ``str.splitlines`` cuts them.

    When every timestamp in the file is valid and lines end in "\n" or "\r\n" only, only the lines
    with a keyword the walk reacts to are kept; otherwise every line is."""
    if not text:
        return 0, [], []
    breaks = _OTHER_BREAKS[:5] if text.isascii() else _OTHER_BREAKS
    if ("\r" not in text or text.count("\r") == text.count("\r\n")) and not any(c in text for c in breaks):
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        if _stamps_all_valid(lines):
            keep = [(n, line[:-1] if line.endswith("\r") else line, _MISS) for n, line in enumerate(lines, 1)
                    if _interesting(line)]
            undecodable = [n for n, line in enumerate(lines, 1) if "\ufffd" in line] if "\ufffd" in text else []
            return len(lines), keep, undecodable
    lines = text.splitlines()
    return (len(lines), [(n, line, _MISS) for n, line in enumerate(lines, 1)],
            [n for n, line in enumerate(lines, 1) if "\ufffd" in line])




class _Index(NamedTuple):
    """What ``_ascii_index`` finds in a log: the number of lines, the keyword lines without a stamp
    ((number, text, None), in line order), the stamped keyword lines grouped by their text after the
    stamp ((that text, line numbers, stamps as UTC epochs), numpy arrays in line order), and the text
    of a line by its number."""

    lines_total: int
    loose: list[tuple[int, str, None]]
    groups: list[tuple[str, Any, Any]]
    line_text: Any


def _find_all(text: str, word: str) -> list[int]:
    """Offsets in ``text`` where ``word`` starts."""
    found = []
    at = text.find(word)
    while at >= 0:
        found.append(at)
        at = text.find(word, at + 1)
    return found


def _word(text: str) -> int:
    return int.from_bytes(text.encode("ascii"), "little")


#: An event where PTD writes it, right after the stamp: `<stamp>: WARNING:` / `<stamp>: ERROR:`.
_AFTER_STAMP = (("WARNING:", _word(": WARNIN"), _word("G:"), 0xFFFF), ("ERROR:", _word(": ERROR:"), 0, 0))


def _keyword_lines(text: str, words, starts, ends):
    """Indices of the lines holding a keyword of ``_interesting``. The WARNING:/ERROR: lines are
    found where PTD writes the keyword (right after the stamp), and only when the whole text holds no
    other occurrence (counted) is that taken as all of them; otherwise, and for the other keywords,
    every occurrence is looked up."""
    import numpy as np

    found = []
    after = words[starts + 23]
    for word, head, tail, mask in _AFTER_STAMP:
        there = (after == head) & (ends - starts >= 25 + len(word))  # the whole ": WORD" inside the line
        if mask:
            there &= (words[starts + 31] & mask) == tail
        lines = np.flatnonzero(there)
        if text.count(word) == len(lines):
            found.append(lines)
        else:
            found.append(np.searchsorted(starts, _find_all(text, word), side="right") - 1)
    # "Uncertainty" fills every "WARNING: Uncertainty ..." line, all found above: only the others are
    # looked up, in a copy of the text (same length, same offsets) where those read "uncertainty"
    others = text.replace(": WARNING: Uncertainty", ": WARNING: uncertainty") if "Uncertainty" in text else ""
    for word, where in (("Go with mark", text), ("Completed test", text), ("Uncertainty", others)):
        found.append(np.searchsorted(starts, _find_all(where, word), side="right") - 1)
    return np.unique(np.concatenate(found))


def _ascii_index(text: str) -> _Index | None:
    """The common case, found with numpy over the bytes of the log instead of line by line: ASCII, no
    NUL, "\n" or "\r\n" line ends and no other line break, every timestamp valid (every published log).
    None otherwise (the walk then goes line by line). Stamps are decoded by ``stamp_columns`` and the
    seconds added as ``_epoch`` adds them, so the floats are those of the line-by-line path."""
    if not text or not text.isascii() or "\x00" in text or any(c in text for c in _OTHER_BREAKS[:5]):
        return None
    if "\r" in text:  # "\r\n" line ends: the same lines without the "\r" (a lone "\r" is a line break)
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None
    import numpy as np  # only power results need it; kept out of start-up

    data = text.encode("ascii")
    buf = np.frombuffer(data, dtype=np.uint8)
    words = word_view(data, 48)
    starts = np.concatenate(([0], np.flatnonzero(buf == 10) + 1))
    if text.endswith("\n"):
        starts = starts[:-1]
    n = len(starts)
    ends = np.append(starts[1:] - 1, len(buf) - 1 if text.endswith("\n") else len(buf))
    long_enough = np.flatnonzero(ends - starts >= 23)
    offsets = starts[long_enough]
    stamps = stamp_columns(text, words, offsets)
    if stamps.minutes is None or (stamps.seconds > 61).any():
        return None  # an impossible stamp: the walk must see every line
    epoch = np.full(n, np.nan)
    epoch[long_enough[stamps.shaped]] = (stamps.minutes + stamps.seconds) + stamps.millis / 1000

    keyword_lines = _keyword_lines(text, words, starts, ends)

    def line_text(number: int) -> str:
        return text[int(starts[number - 1]):int(ends[number - 1])]

    unstamped = np.isnan(epoch[keyword_lines])
    loose = [(i + 1, line_text(i + 1), None) for i in keyword_lines[unstamped].tolist()]
    stamped = keyword_lines[~unstamped]
    rests = [text[a:b] for a, b in zip((starts[stamped] + 23).tolist(), ends[stamped].tolist())]
    last = {r: i for i, r in enumerate(rests)}  # one representative per distinct text
    which = np.array([last[r] for r in rests], dtype=np.int64)
    order = np.argsort(which, kind="stable")  # lines of one text together, in line order
    cuts = (np.flatnonzero(np.diff(which[order])) + 1).tolist()
    groups: list[tuple[str, Any, Any]] = []
    for lo, hi in zip([0] + cuts, cuts + [len(order)]) if len(order) else ():
        members = stamped[order[lo:hi]]
        groups.append((rests[int(order[lo])], members + 1, epoch[members]))
    return _Index(n, loose, groups, line_text)


_MISS = object()
_BAD = "bad"  # a line whose timestamp has the right shape but an impossible value


def _stamp_epoch(head: str) -> float | str | None:
    """UTC epoch of the stamp that starts a line (its first 23 characters); None without a stamp,
    _BAD when the stamp does not parse (the official check raises there)."""
    if not PTD_STAMP_RE.match(head):
        return None
    epoch = _epoch(head)
    return _BAD if epoch is None else epoch


def _describe(text: str, window: str) -> tuple[bool, str, bool, tuple[tuple[str, str], ...]]:
    """What the walk needs from a line's text (after its stamp), computed once per distinct text:
    (has a keyword the walk reacts to, the stripped message, is the "uncertainty checking activated"
    line, its (kind, message) WARNING/ERROR events). ``window`` is the part of the text that falls
    in the first 300 characters of the line, which is all the official check keeps of a line."""
    specs = []
    for kind, key in (("WARNING", "WARNING:"), ("ERROR", "ERROR:")):
        at = window.find(key)
        if at >= 0 and at + len(key) < len(window):  # same as `(?<=KIND:).+` finding something
            specs.append((kind, window[at + len(key):].strip()))
    active = "Uncertainty" in window and UNCERTAINTY_ACTIVE_RE.search(window) is not None
    return _interesting(text), text.strip(), active, tuple(specs)


def scan_ptd_log(text: str, session_name: str, timezone_offset: float, load_begin: float | None,
                 load_end: float | None, tolerance: float, common_ranging_errors: list[str],
                 testing_errors_as_warnings: list[str], uncertainty_error_re: str) -> PtdScan:
    """Walk `ptd_logs.txt` like `check_ptd_logs` of the Power WG checker.

    ``load_begin``/``load_end`` are the run_1 `power_begin`/`power_end` as UTC epochs. ``tolerance`` is
    the checker's TIME_DELTA_TOLERANCE *number* (milliseconds), which it adds to epoch seconds when it
    trims the load window for WARNING lines: that quirk is reproduced here on purpose."""
    bad: list[PtdLine] = []
    parsed: list[tuple] = []  # lines with WARNING/ERROR events: (PtdLine or None, number, line, time, events)
    crash: PtdLine | None = None
    ranging_mark = f": Go with mark '{session_name}_ranging'"
    testing_mark = f": Go with mark '{session_name}_testing'"
    r_start = r_stop = t_start = t_stop = None
    loop1_done = False  # official loop 1: stops at the first "Completed test" after ranging start
    seen_testing = False  # testing window (not used by the official check; for the stricter checks)
    uncertainty: PtdLine | None = None
    times: dict[str, float | str | None] = {}  # first 23 characters -> epoch, _BAD or None (no stamp)
    stamped: dict[str, tuple] = {}  # text after a stamp -> _describe(...)
    unstamped: dict[str, tuple] = {}  # whole text of a line without a stamp -> _describe(...)
    specials = (ranging_mark, testing_mark, ": Completed test")
    # stamped lines with a single event that do nothing else (no mark, no "Completed test", not the
    # uncertainty line), most of a log: (kind, message, line numbers, times) per distinct text, graded
    # a whole group at a time below
    plain_groups: list[tuple[str, str, list[int], Any]] = []
    index = _ascii_index(text)
    if index is None:
        lines_total, candidates, undecodable = _candidate_lines(text)
    else:
        lines_total, undecodable = index.lines_total, []
        candidates = list(index.loose)
        for rest, numbers, epochs in index.groups:
            info = stamped.get(rest) or stamped.setdefault(rest, _describe(rest, rest[:277]))
            interesting, msg, uncertainty_active, specs = info
            special = uncertainty_active or msg in specials
            if not interesting or not (specs or special):
                continue  # changes nothing (a reply that mentions "Uncertainty", ...)
            if special:  # walked line by line below
                candidates.extend(zip(numbers.tolist(), map(index.line_text, numbers.tolist()), epochs.tolist()))
            elif len(specs) == 1:
                plain_groups.append((*specs[0], numbers.tolist(), epochs + timezone_offset))
            else:
                parsed.extend((None, n, index.line_text(n), t, specs)
                              for n, t in zip(numbers.tolist(), (epochs + timezone_offset).tolist()))
        candidates.sort(key=lambda c: c[0])
    for number, raw, t in candidates:
        if t is _MISS:
            head = raw[:23]
            t = times.get(head, _MISS)
            if t is _MISS:
                t = times[head] = _stamp_epoch(head)
        if t is None:
            info = unstamped.get(raw) or unstamped.setdefault(raw, _describe(raw, raw[:300]))
        else:
            rest = raw[23:]
            info = stamped.get(rest) or stamped.setdefault(rest, _describe(rest, rest[:277]))
        interesting, msg, uncertainty_active, specs = info
        is_bad = t is _BAD
        if not is_bad and not interesting:
            continue  # only bad stamps, marks, completed tests, the uncertainty line and events matter
        line = None
        if is_bad:
            t = None
            line = PtdLine(number, raw[:300], None)
            bad.append(line)
        elif t is not None:
            t += timezone_offset
        if not loop1_done:
            if is_bad:
                crash = crash or line
                loop1_done = True
            elif t is not None:
                if r_start is None and msg == ranging_mark:
                    r_start = t
                if r_stop is None and r_start is not None and msg == ": Completed test":
                    r_stop = t
                    loop1_done = True
        if t is not None:
            if t_start is None and msg == testing_mark:
                t_start, seen_testing = t, True
            elif seen_testing and t_stop is None and msg == ": Completed test":
                t_stop = t
        if uncertainty is None and uncertainty_active:
            uncertainty = line or PtdLine(number, raw[:300], t)
        if specs:
            parsed.append((line, number, raw, t, specs))

    uncertainty_re = re.compile(uncertainty_error_re)
    accepted = set(testing_errors_as_warnings)
    common_prefixes = tuple(common_ranging_errors)
    trimmed = (load_begin + tolerance, load_end - tolerance) if load_begin is not None and load_end is not None \
        else None
    events: list[PtdEvent] = []
    official: PtdEvent | None = None
    dropped = 0
    ranged = r_start is not None and r_stop is not None
    low, high = trimmed if trimmed is not None else (None, None)

    graded: dict[tuple[str, str], tuple] = {}

    def grade(kind: str, message: str) -> tuple:
        """How an event with this text is graded: (kept inside the window, kept outside it) as
        (grade, reason) or None (dropped); the window is the ranging one for ERRORs, the trimmed load
        one for WARNINGs. Worked out once per distinct event."""
        known = graded.get((kind, message))
        if known is None:
            known = graded[(kind, message)] = _grade(kind, message)
        return known

    def _grade(kind: str, message: str) -> tuple:
        if kind == "ERROR":
            if message in accepted:
                both = ("warning", "accepted error during testing")
                return both, both
            inside = None if message.startswith(common_prefixes) else ("warning", "uncommon ERROR during ranging")
            return inside, ("error-outside-ranging", "ERROR outside the ranging window")
        hit = uncertainty_re.search(message) is not None
        inside = ("uncertainty-error", "uncertainty above the limit during the load") if hit else \
            ("warning", "WARNING during the load")
        return inside, ("ignored", "WARNING outside the (trimmed) load window") if hit else None

    # (line number, position in the line, PtdLine or None, line, time, kind, message, grade, reason) of
    # every kept event; graded first, then put in line order for the official check's first event
    kept: list[tuple] = []
    for line, number, raw, t, specs in parsed:
        for at, (kind, message) in enumerate(specs):
            if t is None:
                kept.append((number, at, line, raw, None, kind, message, "ignored", "no timestamp"))
                continue
            inside, outside = grade(kind, message)
            if kind == "ERROR":
                within = ranged and r_start < t < r_stop
            else:
                within = low is not None and low < t < high
            verdict = inside if within else outside
            if verdict is None:
                dropped += 1
                continue
            kept.append((number, at, line, raw, t, kind, message, *verdict))
    for kind, message, numbers, stamps in plain_groups:
        inside, outside = grade(kind, message)
        if kind == "ERROR":
            lo, hi = (r_start, r_stop) if ranged else (None, None)
        else:
            lo, hi = low, high
        within = (lo < stamps) & (stamps < hi) if lo is not None else stamps != stamps  # all False (no NaN)
        for chosen, verdict in ((within, inside), (~within, outside)):
            if verdict is None:
                dropped += int(chosen.sum())
                continue
            values = stamps.tolist()
            for i in chosen.nonzero()[0].tolist():
                kept.append((numbers[i], 0, None, index.line_text(numbers[i]), values[i], kind, message, *verdict))
    kept.sort(key=lambda item: (item[0], item[1]))
    made: dict[int, PtdLine] = {}
    for number, _, line, raw, t, kind, message, grade_, reason in kept:
        if line is None:
            line = made.get(number) or made.setdefault(number, PtdLine(number, raw[:300], t))
        event = PtdEvent(line, kind, message, grade_, reason)
        events.append(event)
        if official is None and crash is None:
            if t is None:
                crash = line
            elif grade_ != "ignored":
                official = event
    return PtdScan(lines_total=lines_total, ranging_start=r_start, ranging_stop=r_stop, testing_start=t_start,
                   testing_stop=t_stop, uncertainty_line=uncertainty, events=tuple(events), official=official,
                   crash=crash, bad_stamps=tuple(bad), undecodable=tuple(undecodable), ignored_events=dropped)
