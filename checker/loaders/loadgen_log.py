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
from typing import Any

MARKER = ":::MLLOG"
MAX_LOG_BYTES = 64 * 1024 * 1024  # a detail log larger than this is not read


class LogReadError(Exception):
    """The file could not be read at all (missing, unreadable, too large, binary)."""


@dataclass(frozen=True)
class LogProblem:
    line: int
    message: str


_SENTINEL = object()
_KEY_PREFIX = '{"key": "'


@dataclass
class DetailLog:
    """The parsed content of one ``mlperf_log_detail.txt``.

    Entries are decoded lazily: the key of every line is read at parse time, but the JSON of a
    line is only decoded when its value is asked for (``loaded_qsl_set`` lines can be megabytes).
    Lines flagged as errors or warnings, and lines that do not look like complete JSON objects,
    are decoded at once so that problems are known after parsing.
    """

    path: str
    raw: dict[str, tuple[str, int]] = field(default_factory=dict)  # key -> (json payload, line number)
    errors: list[tuple[str, Any, int]] = field(default_factory=list)  # (key, value, line)
    warnings: list[tuple[str, Any, int]] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    problems: list[LogProblem] = field(default_factory=list)
    lines_total: int = 0
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def get(self, key: str, default: Any = None) -> Any:
        value = self._cache.get(key, _SENTINEL)
        if value is not _SENTINEL:
            return value
        entry = self.raw.get(key)
        if entry is None:
            return default
        try:
            decoded = json.loads(entry[0])
            value = decoded.get("value") if isinstance(decoded, dict) else None
        except (ValueError, RecursionError):
            self.problems.append(LogProblem(entry[1], f"invalid JSON in the '{key}' entry"))
            value = None
        self._cache[key] = value
        return value

    @property
    def values(self) -> dict[str, Any]:
        return {key: self.get(key) for key in self.raw}

    def __contains__(self, key: str) -> bool:
        return key in self.raw

    @property
    def scenario(self) -> str | None:
        value = self.get("effective_scenario")
        return value if isinstance(value, str) else None

    @property
    def loadgen_version(self) -> str | None:
        value = self.get("loadgen_version")
        return value if isinstance(value, str) else None


def _read_text(path: str, limit: int = MAX_LOG_BYTES) -> str:
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
    if b"\x00" in raw[:65536]:
        raise LogReadError("file is binary (contains NUL bytes), not a LoadGen text log")
    return raw.decode("utf-8", errors="replace")


def _decode_full(log: DetailLog, payload: str, number: int) -> dict | None:
    try:
        entry = json.loads(payload)
    except (ValueError, RecursionError) as exc:
        log.problems.append(LogProblem(number, f"invalid JSON after {MARKER}: {exc}"))
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
        log.problems.append(LogProblem(number, "log entry is not an object with a string 'key'"))
        return None
    return entry


_WELL_FORMED = re.compile(r'^[ \t]*:::MLLOG[ \t]+(\{"key": "([^"\\]+)".*\})[ \t]*\r?$', re.M)


def parse_detail_text(text: str, path: str = "<memory>") -> DetailLog:
    log = DetailLog(path=path)
    starts: list[int] = []
    line_no = 1
    last = 0
    well_formed = 0
    for match in _WELL_FORMED.finditer(text):
        well_formed += 1
        line_no += text.count("\n", last, match.start())
        last = match.start()
        payload, key = match.group(1), match.group(2)
        tail = payload[-300:]
        if '"is_error": true' in tail or '"is_warning": true' in tail:
            entry = _decode_full(log, payload, line_no)
            if entry is None:
                continue
            metadata = entry.get("metadata")
            if isinstance(metadata, dict):
                if metadata.get("is_error") is True:
                    log.errors.append((key, entry.get("value"), line_no))
                elif metadata.get("is_warning") is True:
                    log.warnings.append((key, entry.get("value"), line_no))
            if key not in log.raw:
                log._cache[key] = entry.get("value")
        if key in log.raw:
            log.duplicates.append(key)
            continue
        log.raw[key] = (payload, line_no)
        starts.append(match.start())
    total_markers = text.count(MARKER)
    if total_markers != well_formed:
        # rare: locate the malformed marker lines and report each one
        for number, line in enumerate(text.splitlines(), start=1):
            stripped = line.strip()
            if stripped.startswith(MARKER) and not _WELL_FORMED.match(line):
                _decode_full(log, stripped[len(MARKER):].strip(), number)
    log.lines_total = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if total_markers == 0:
        log.problems.append(LogProblem(0, f"no '{MARKER}' lines: not a LoadGen detail log"))
    return log


def parse_detail_log(path: str) -> DetailLog:
    """Parse a detail log; raises LogReadError if the file cannot be read."""
    return parse_detail_text(_read_text(path), path)


def parse_summary_text(text: str) -> dict[str, str]:
    """``key : value`` pairs of ``mlperf_log_summary.txt`` (first occurrence wins).

    Recommendation lines such as `` * Early stopping 90th percentile estimate: 123``
    are kept with the leading ``* `` removed.
    """
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
