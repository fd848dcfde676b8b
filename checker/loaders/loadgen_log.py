"""Parse LoadGen logs: ``mlperf_log_detail.txt`` (``:::MLLOG {json}`` lines) and
``mlperf_log_summary.txt`` (``key : value`` text).

The detail log is parsed once, tolerantly: a malformed line is recorded as a
problem (with its line number) and skipped, so that checks can report it as a
coded diagnostic instead of the whole run aborting. Like the official parser,
the first occurrence of a duplicated key wins.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from checker.loaders.compiled import compiled

MARKER = ":::MLLOG"
MAX_LOG_BYTES = 64 * 1024 * 1024  # a detail log larger than this is not read
BINARY_PROBE_BYTES = 64 * 1024  # a NUL byte among a log's first bytes marks it binary: it is not read
#: whether the run used equal-issue mode; where a log does not give it, PF011 reads mlperf.conf and user.conf
EQUAL_ISSUE_KEY = "effective_sample_concatenate_permutation"


class LogReadError(Exception):
    """The file could not be read at all (missing, unreadable, too large, binary)."""


@dataclass(frozen=True)
class LogProblem:
    """A line of a LoadGen log that could not be read, with why."""

    line: int
    message: str


_SENTINEL = object()
_KEY_PREFIX = '{"key": "'
_KEY_TO_VALUE = '", "value": '  # between the key and the value of a line as LoadGen writes it
_DECODER = json.JSONDecoder()
_JSON_STRING = r'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'
_JSON_INT = r"-?(?:0|[1-9][0-9]*)"
#: what follows the value on every line LoadGen writes (all published v4.1-v6.1 logs): strictly valid JSON
_LINE_TAIL = re.compile(
    rf', "time_ms": {_JSON_INT}(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?, "namespace": {_JSON_STRING}, '
    rf'"event_type": {_JSON_STRING}, "metadata": {{"is_error": (?:true|false), "is_warning": (?:true|false), '
    rf'"file": {_JSON_STRING}, "line_no": {_JSON_INT}, "pid": {_JSON_INT}, "tid": {_JSON_INT}}}}}')


@dataclass
class DetailLog:
    """The parsed content of one ``mlperf_log_detail.txt``.

    Entries are decoded lazily: the key of every line is read at parse time, but the JSON of a
    line is only decoded when its value is asked for (``loaded_qsl_set`` lines can be megabytes;
    with the C extension, the first value asked decodes every plain scalar value of the log at once,
    see :meth:`_decode`). Lines flagged as errors or warnings, and lines that do not look like
    complete JSON objects, are decoded at once so that problems are known after parsing.
    """

    path: str
    # key -> (text holding the entry, start and end of its JSON object in that text, line number); the text
    # is a str, or the bytes of an all-ASCII log walked as bytes (parse_detail_bytes). The C walk puts the line
    # number alone, of a line of ``_text`` whose start and end ``_spans`` holds (no tuple and no int made for a
    # line: :meth:`entry` gives the tuple)
    raw: dict[str, tuple[str | bytes, int, int, int] | int] = field(default_factory=dict)
    errors: list[tuple[str, Any, int]] = field(default_factory=list)  # (key, value, line)
    warnings: list[tuple[str, Any, int]] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    problems: list[LogProblem] = field(default_factory=list)
    lines_total: int = 0
    foreign_lines: list[int] = field(default_factory=list)  # numbers of non-blank lines without the marker
    undecodable: bool = False  # the file held bytes that are not UTF-8 (read with replacement characters)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)
    _batched: bool = field(default=False, repr=False, compare=False)  # the plain values were decoded at once
    _undecoded: set | None = field(default=None, repr=False, compare=False)  # (get_many)
    _text: str | bytes | None = field(default=None, repr=False, compare=False)  # the text the C walk walked
    # (start, end) of the entry of each line of ``_text`` (by line number - 1), native Py_ssize_t pairs
    _spans: bytes | None = field(default=None, repr=False, compare=False)

    def get(self, key: str, default: Any = None) -> Any:
        value = self._cache.get(key, _SENTINEL)
        if value is not _SENTINEL:
            return value
        if key not in self.raw:
            return default
        return self._decode(key)

    def get_many(self, keys) -> list:
        """``[self.get(key) for key in keys]`` in one call (the record checks ask dozens of keys of every log):
        once the plain values are decoded (``_decode``), keys of none of the other entries are read straight
        from the cache (a key the log lacks gives None, as ``get``); the others one by one."""
        undecoded = self._undecoded
        if undecoded is None:
            if not self._batched:
                self._batched = True
                if _VALUES is not None:
                    _VALUES(self.raw, self._cache, self._text, self._spans)
            # (the entries without a value in the cache then; a value decoded later only makes this set wider
            # than it need be)
            undecoded = self._undecoded = self.raw.keys() - self._cache.keys()
        if _LOOKUP is not None:
            found = _LOOKUP(self._cache, keys, undecoded)  # (None: a key not decoded yet)
            if found is not None:
                return found
        elif undecoded.isdisjoint(keys):
            return list(map(self._cache.get, keys))
        look, raw, decode = self._cache.get, self.raw, self._decode
        return [value if (value := look(key, _SENTINEL)) is not _SENTINEL else decode(key) if key in raw else None
                for key in keys]

    def _decode(self, key: str) -> Any:
        """The value of the entry ``key`` (in ``raw``, not yet in ``_cache``), decoded and kept. The first
        time, every plain value of the log (a string without escapes, a number, true, false, null, followed by
        the tail LoadGen writes) is decoded at once in C (``checker._detail_scan.values``: the checks ask
        about twenty values of a log, one at a time); the others, and every value without the extension, are
        decoded alone here when asked."""
        if not self._batched:
            self._batched = True
            if _VALUES is not None:
                _VALUES(self.raw, self._cache, self._text, self._spans)
                value = self._cache.get(key, _SENTINEL)
                if value is not _SENTINEL:
                    return value
        text, start, end, number = self.entry(key)
        if text.__class__ is bytes:  # (an ASCII log walked as bytes: its line, as the str walk would hold it)
            text, start, end = text[start:end].decode("ascii"), 0, end - start
        try:
            value = _SENTINEL
            at = start + len(_KEY_PREFIX) + len(key)
            if text.startswith(_KEY_TO_VALUE, at) and key.isprintable():
                value = _value_alone(text, at + len(_KEY_TO_VALUE), end)
            if value is _SENTINEL:
                decoded = json.loads(text[start:end])
                value = decoded.get("value") if isinstance(decoded, dict) else None
        except (ValueError, RecursionError):
            self.problems.append(LogProblem(number, f"invalid JSON in the '{key}' entry"))
            value = None
        self._cache[key] = value
        return value

    def entry(self, key: str) -> tuple[str | bytes, int, int, int]:
        """(text holding the entry ``key``, start and end of its JSON object in that text, line number)."""
        item = self.raw[key]
        if item.__class__ is not int:
            return item
        at = 2 * (item - 1)
        spans = memoryview(self._spans).cast("n")
        return self._text, spans[at], spans[at + 1], item

    @property
    def values(self) -> dict[str, Any]:
        return {key: self.get(key) for key in self.raw}

    def __contains__(self, key: str) -> bool:
        return key in self.raw

    @cached_property
    def scenario(self) -> str | None:
        """``effective_scenario`` when it is a string (read once: the checks of a result ask it often)."""
        value = self.get("effective_scenario")
        return value if isinstance(value, str) else None

    @property
    def loadgen_version(self) -> str | None:
        value = self.get("loadgen_version")
        return value if isinstance(value, str) else None


def _value_alone(text: str, at: int, end: int) -> Any:
    """The value starting at ``at`` of a line `{"key": "K", "value": V<tail>}` ending at ``end``, decoded
    alone when the tail is the one LoadGen writes (strictly valid JSON without another "value", so V is
    what json.loads of the whole line gives); otherwise _SENTINEL."""
    try:
        found, stop = _DECODER.raw_decode(text, at)
    except (ValueError, RecursionError):
        return _SENTINEL  # the caller decodes the whole line and reports it
    return found if _TAIL_OK(text, stop, end) else _SENTINEL


def _tail_matches(text: str, stop: int, end: int) -> bool:
    """Whether ``text[stop:end]`` is the tail LoadGen writes after a value (``_LINE_TAIL``)."""
    return _LINE_TAIL.fullmatch(text, stop, end) is not None


def _read_bytes(path: str, limit: int = MAX_LOG_BYTES) -> bytes:
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise LogReadError(f"cannot stat file: {exc.strerror or exc}") from None
    if size > limit:
        raise LogReadError(f"file is {size} bytes, larger than the {limit}-byte limit")
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        raise LogReadError(f"cannot read file: {exc.strerror or exc}") from None
    if raw.find(b"\x00", 0, BINARY_PROBE_BYTES) >= 0:
        raise LogReadError("file is binary (contains NUL bytes), not a LoadGen text log")
    return raw


def _read_text(path: str, limit: int = MAX_LOG_BYTES) -> str:
    return _read_bytes(path, limit).decode("utf-8", errors="replace")


def _decode_full(log: DetailLog, payload: str, number: int) -> dict | None:
    try:  # (a str: json.loads' own decoder, called without json.loads' checks of the argument's type)
        entry = _DECODER.decode(payload) if payload.__class__ is str else json.loads(payload)
    except (ValueError, RecursionError) as exc:
        log.problems.append(LogProblem(number, f"invalid JSON after {MARKER}: {exc}"))
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
        log.problems.append(LogProblem(number, "log entry is not an object with a string 'key'"))
        return None
    return entry


_FAST_PREFIX = MARKER + " " + _KEY_PREFIX


_SCAN = compiled("scan")  # the line walk in C (checker.loaders.compiled)
_TAIL_OK = compiled("tail_ok") or _tail_matches
_VALUES = compiled("values")  # the plain values of a log decoded at once (DetailLog._decode)
_SUMMARY = compiled("summary")  # parse_summary_text in C
_LOOKUP = compiled("lookup")  # get_many's values at once, in C


def parse_detail_text(text: str, path: str = "<memory>") -> DetailLog:
    """One pass over the lines. Well-formed lines (`:::MLLOG {"key": "...", ...}`) only have their key
    read; flagged (error / warning) and odd-looking marker lines are decoded at once.

    The walk is done in C (``checker/_detail_scan.c``) when the extension is built and the log is one it
    takes (one-byte characters, every line empty or a marker line, CRLF logs included: every published
    log but the odd ones), else by :func:`_walk_lines`; both give the same log, line for line."""
    log = DetailLog(path=path)
    counted = None
    if _SCAN is not None:
        counted = _SCAN(text, log.raw, log.duplicates, lambda payload, number: _slow_line(log, payload, number),
                        log.errors, log.warnings, log._cache)
        if counted is not None:
            log._text = text
    if counted is None:
        counted = _walk_lines(log, text)
    return _walked(log, counted, text.find("\ufffd") >= 0)


def parse_detail_bytes(data: bytes, path: str = "<memory>") -> DetailLog:
    """``parse_detail_text(data.decode("utf-8", errors="replace"), path)``: the same log, without decoding a
    log the C walk takes as bytes (all ASCII, as every published log is; its entries then hold the bytes,
    which are the decoded text character for character)."""
    if _SCAN is not None:
        log = DetailLog(path=path)
        counted = _SCAN(data, log.raw, log.duplicates, lambda payload, number: _slow_line(log, payload, number),
                        log.errors, log.warnings, log._cache)
        if counted is not None:
            log._text = data
            return _walked(log, counted, False)  # (ASCII: nothing to replace)
    return parse_detail_text(data.decode("utf-8", errors="replace"), path)


def _walked(log: DetailLog, counted: tuple, undecodable: bool) -> DetailLog:
    """``log`` once walked; ``counted``: (lines, marker lines) of the Python walk, (lines, marker lines, spans)
    of the C walk."""
    log.lines_total, markers = counted[0], counted[1]
    if len(counted) > 2:
        log._spans = counted[2]
    log.undecodable = undecodable
    if markers == 0:
        log.problems.append(LogProblem(0, f"no '{MARKER}' lines: not a LoadGen detail log"))
    return log


def _walk_lines(log: DetailLog, text: str) -> tuple[int, int]:
    """The lines of ``text`` into ``log``, walked with ``str.find`` (lines are not copied out of the text: a
    log line can hold a megabyte); (lines, marker lines)."""
    raw = log.raw
    find, startswith = text.find, text.startswith
    head, key_at = len(MARKER) + 1, len(MARKER) + 1 + len(_KEY_PREFIX)
    markers = number = pos = 0
    size = len(text)
    duplicates = log.duplicates
    while pos < size:
        end = find("\n", pos)
        if end < 0:
            end = size
        number += 1
        if startswith(_FAST_PREFIX, pos):
            markers += 1
            start = pos + head
            close = find('"', pos + key_at, end)
            key = text[pos + key_at:close] if close > 0 else ""
            last = end
            odd = text[last - 1] != "}"
            if odd:  # (the official parser strips the line)
                while last > pos and text[last - 1] in _TRAILING_SPACE:
                    last -= 1
                odd = text[last - 1] != "}"
            window = last - 300  # flags sit in the metadata at the end of the line
            if window < start:
                window = start
            if (odd or not key or "\\" in key
                    or (find('": true', window, last) >= 0
                        and (find('"is_error": true', window, last) >= 0
                             or find('"is_warning": true', window, last) >= 0))):
                _slow_line(log, text[start:last], number)
            elif key in raw:
                duplicates.append(key)
            else:
                raw[key] = (text, start, last, number)
        elif find(MARKER, pos, end) >= 0:
            stripped = text[pos:end].strip()
            if stripped.startswith(MARKER):
                markers += 1
                _slow_line(log, stripped[len(MARKER):].strip(), number)
            else:
                log.foreign_lines.append(number)
        elif not text[pos:end].isspace() and end > pos:
            log.foreign_lines.append(number)
        pos = end + 1
    return number, markers


#: What ``str.rstrip()`` removes from a line end, "\n" excepted (lines are cut at "\n").
_TRAILING_SPACE = " \t\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006" \
                  "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def _slow_line(log: DetailLog, payload: str, number: int) -> None:
    entry = _decode_full(log, payload, number)
    if entry is None:
        return
    key = entry["key"]
    metadata = entry.get("metadata")
    if isinstance(metadata, dict):
        if metadata.get("is_error") is True:
            log.errors.append((key, entry.get("value"), number))
        elif metadata.get("is_warning") is True:
            log.warnings.append((key, entry.get("value"), number))
    if key in log.raw:
        log.duplicates.append(key)
        return
    log.raw[key] = (payload, 0, len(payload), number)
    log._cache[key] = entry.get("value")


_RECENT: dict[tuple, DetailLog] = {}  # (path, size, mtime_ns) -> parsed log, the last few only


def _identity(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (os.path.abspath(path), st.st_size, st.st_mtime_ns)


def remember(path: str, log: DetailLog) -> None:
    """Keep a parsed log so that a later parse of the same unchanged file is free (the compliance
    verification reads the result's own performance log again)."""
    key = _identity(path)
    if key is None:
        return
    if len(_RECENT) >= 64:
        _RECENT.pop(next(iter(_RECENT)))
    _RECENT[key] = log


def forget_logs() -> None:
    """Drop the parsed logs kept by :func:`remember` (the pipeline calls this between submitters)."""
    _RECENT.clear()


def parse_detail_log(path: str) -> DetailLog:
    """Parse a detail log; raises LogReadError if the file cannot be read."""
    key = _identity(path)
    if key is not None and key in _RECENT:
        return _RECENT[key]
    log = parse_detail_bytes(_read_bytes(path), path)
    if key is not None:
        remember(path, log)
    return log


#: how much of a detail log ``parse_detail_head`` reads first: LoadGen writes its version and seeds within
#: the first 20 KB (line 1 and lines 28-57 of every published v4.1-v6.1 log), before the sample set lines,
#: which can be megabytes
HEAD_BYTES = 64 * 1024


def parse_detail_head(path: str, keys: tuple[str, ...], head: int = HEAD_BYTES) -> DetailLog:
    """The log for reading ``keys``: parsed from its complete lines within the first ``head`` bytes when
    they hold every one of ``keys``, else parsed whole (``parse_detail_log``). A key's value is the same
    either way (the first occurrence wins, and the first occurrence of a key found in the head is in the
    head); the other fields (line count, problems) describe the head only. Raises LogReadError as
    ``parse_detail_log`` does."""
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size > MAX_LOG_BYTES:
                return parse_detail_log(path)  # (which refuses it)
            raw = handle.read(max(head, BINARY_PROBE_BYTES) + 1)  # (the whole probe, as parse_detail_log's)
    except OSError as exc:
        raise LogReadError(f"cannot read file: {exc.strerror or exc}") from None
    if len(raw) > head and raw.find(b"\x00", 0, BINARY_PROBE_BYTES) < 0:  # (else parse_detail_log refuses the file)
        cut = raw.rfind(b"\n", 0, head)
        if cut > 0:
            log = parse_detail_bytes(raw[:cut], path)
            if all(key in log for key in keys):
                return log
    return parse_detail_log(path)


def parse_summary_text(text: str) -> dict[str, str]:
    """``key : value`` pairs of ``mlperf_log_summary.txt`` (first occurrence wins).

    Recommendation lines such as `` * Early stopping 90th percentile estimate: 123``
    are kept with the leading ``* `` removed. Read in C (``checker._detail_scan.summary``) when the
    extension is built and the text is of one-byte characters, else by :func:`_summary_lines`.
    """
    if _SUMMARY is not None:
        values = _SUMMARY(text)
        if values is not None:
            return values
    return _summary_lines(text)


def _summary_lines(text: str) -> dict[str, str]:
    """:func:`parse_summary_text` in Python, line by line."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("* "):
            stripped = stripped[2:]
        if ":" not in stripped:
            continue
        key, _, value = stripped.partition(":")
        key = key.strip()
        if key and key not in values:
            values[key] = value.strip()
    return values


def parse_summary_log(path: str) -> dict[str, str]:
    return parse_summary_text(_read_text(path))
