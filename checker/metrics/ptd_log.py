"""The PTD session files: `client.json`, `server.json` and the walk over `ptd_logs.txt`.

Mirrors what the Power WG `power_checker.py` reads (official-checker.md section I, sub-checks 3-11),
including its quirks, so that the power checks (PW) can reproduce its verdicts exactly and report
separately what it misses. No IO: callers pass the parsed JSON and the `PtdLog` record that
``ptd_read.read_ptd_log`` made of the log in the load stage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from checker.metrics.ptd_read import BAD, COMPLETED, PtdLog, read_ptd_text

SESSION_KEYS = ("version", "timezone", "modules", "sources", "messages", "uuid", "session_name", "results",
                "phases")


# --- client.json / server.json ---------------------------------------------------------------------


def missing_session_keys(data: Any) -> list[str]:
    """Required keys (sub-check 1) absent from a client/server JSON; all of them when not an object."""
    if not isinstance(data, dict):
        return list(SESSION_KEYS)
    return [k for k in SESSION_KEYS if k not in data]


_LAST_MESSAGES: list = [None, None]  # the server.json last asked about, and its messages


def ptd_messages(server: Any) -> list[dict]:
    """The PTD command/reply pairs of server.json (`ptd_messages`); a per-analyzer list of lists is
    flattened. Entries that are not {cmd, reply} objects are skipped. The list is shared by the callers
    asking about the same server.json one after the other (three checks and the replies' check of a
    result): read it, do not change it."""
    if _LAST_MESSAGES[0] is server and server is not None:
        return _LAST_MESSAGES[1]
    found = _ptd_messages(server)
    _LAST_MESSAGES[:] = [server, found]
    return found


def _ptd_messages(server: Any) -> list[dict]:
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
    """What a scan of a PTD log found: its line count, phases and messages."""

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


def scan_ptd_log(text: str, *args) -> PtdScan:
    """``walk_ptd_log`` over a log given as text (read here rather than in the load stage)."""
    return walk_ptd_log(read_ptd_text(text), *args)


def walk_ptd_log(log: PtdLog, session_name: str, timezone_offset: float, load_begin: float | None,
                 load_end: float | None, tolerance: float, common_ranging_errors: list[str],
                 testing_errors_as_warnings: list[str], uncertainty_error_re: str) -> PtdScan:
    """Walk a read `ptd_logs.txt` like `check_ptd_logs` of the Power WG checker.

    ``load_begin``/``load_end`` are the run_1 `power_begin`/`power_end` as UTC epochs. ``tolerance`` is
    the checker's TIME_DELTA_TOLERANCE *number* (milliseconds), which it adds to epoch seconds when it
    trims the load window for WARNING lines: that quirk is reproduced here on purpose."""
    bad: list[PtdLine] = []
    parsed: list[tuple] = []  # lines with WARNING/ERROR events: (PtdLine or None, number, text, time, events)
    crash: PtdLine | None = None
    ranging_mark = f": Go with mark '{session_name}_ranging'"
    testing_mark = f": Go with mark '{session_name}_testing'"
    r_start = r_stop = t_start = t_stop = None
    loop1_done = False  # official loop 1: stops at the first "Completed test" after ranging start
    seen_testing = False  # testing window (not used by the official check; for the stricter checks)
    uncertainty: PtdLine | None = None
    for number, text, t, mark, uncertainty_active, specs in log.items:
        is_bad = t is BAD
        line = None
        if is_bad:
            t = None
            line = PtdLine(number, text, None)
            bad.append(line)
        elif t is not None:
            t += timezone_offset
        if not loop1_done:
            if is_bad:
                crash = crash or line
                loop1_done = True
            elif t is not None:
                if r_start is None and mark == ranging_mark:
                    r_start = t
                if r_stop is None and r_start is not None and mark == COMPLETED:
                    r_stop = t
                    loop1_done = True
        if t is not None:
            if t_start is None and mark == testing_mark:
                t_start, seen_testing = t, True
            elif seen_testing and t_stop is None and mark == COMPLETED:
                t_stop = t
        if uncertainty is None and uncertainty_active:
            uncertainty = line or PtdLine(number, text, t)
        if specs:
            parsed.append((line, number, text, t, specs))

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

    # (line number, position in the line, PtdLine or None, text, time, kind, message, grade, reason) of
    # every kept event; graded first, then put in line order for the official check's first event
    kept: list[tuple] = []
    for line, number, text, t, specs in parsed:
        for at, (kind, message) in enumerate(specs):
            if t is None:
                kept.append((number, at, line, text, None, kind, message, "ignored", "no timestamp"))
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
            kept.append((number, at, line, text, t, kind, message, *verdict))
    for group in log.groups:
        inside, outside = grade(group.kind, group.message)
        if group.kind == "ERROR":
            lo, hi = (r_start, r_stop) if ranged else (None, None)
        else:
            lo, hi = low, high
        if inside is None and outside is None:
            dropped += len(group.numbers)
            continue
        sides = log.window(group, timezone_offset, lo, hi, inside is not None, outside is not None)
        for side, verdict in zip(sides, (inside, outside)):
            if verdict is None:
                dropped += side
                continue
            for i, t in side:
                kept.append((int(group.numbers[i]), 0, None, log.text(group, i), t, group.kind, group.message, *verdict))
    kept.sort(key=lambda item: (item[0], item[1]))
    made: dict[int, PtdLine] = {}
    for number, _, line, text, t, kind, message, grade_, reason in kept:
        if line is None:
            line = made.get(number) or made.setdefault(number, PtdLine(number, text, t))
        event = PtdEvent(line, kind, message, grade_, reason)
        events.append(event)
        if official is None and crash is None:
            if t is None:
                crash = line
            elif grade_ != "ignored":
                official = event
    return PtdScan(lines_total=log.lines_total, ranging_start=r_start, ranging_stop=r_stop, testing_start=t_start,
                   testing_stop=t_stop, uncertainty_line=uncertainty, events=tuple(events), official=official,
                   crash=crash, bad_stamps=tuple(bad), undecodable=log.undecodable, ignored_events=dropped)
