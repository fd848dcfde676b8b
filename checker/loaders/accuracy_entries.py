"""The entries of an ``mlperf_log_accuracy.json``, read for the compliance-test verification.

LoadGen writes one entry per line: ``{ "seq_id" : N, "qsl_idx" : N, "data" : "HEX"[, "token_data" :
"HEX"][, "token_count" : N] },``. :class:`AccuracyEntries` reads a log in blocks of a few megabytes
(constant memory whatever its size). In a block of short lines (a vision or recommendation model's
outputs) every line of that exact shape becomes a row through one compiled regular expression over
the whole block, so that a log of 100,000 entries costs no Python call per entry; in a block of long
lines (an LLM's outputs, megabytes each) each line is cut at its quotes with ``bytes.find`` and its
data checked by ``binascii.unhexlify``, both in C, since a regular expression over the data would
cost several times more. Any other line (brackets, blank lines, the ``...`` of a truncated log, an entry
written another way, a malformed one) goes through :meth:`AccuracyEntries._line`, the careful reading
of one line, which decides what the line is the same way for every line.

A row is ``(qsl_idx, data, token_data, token_count, raw)``: ``data`` and ``token_data`` are the hex
digits as written (``bytes``, or a ``memoryview`` of the block for a long line's data; an even number of
them for ``data``; ``token_data`` None when absent or
empty), ``token_count`` None when absent, ``raw`` the decoded data when the reading decoded it
already (else None). Nothing here raises on bad input: problems are collected
on the reader (``error``, ``malformed``, ``truncated``).
"""

from __future__ import annotations

import binascii
import json
import re
from dataclasses import dataclass, field
from typing import BinaryIO, Callable, ContextManager, Iterator

from checker.loaders.compiled import compiled

MAX_LINE_BYTES = 256 * 1024 * 1024  # a longer line is read in pieces of this size (each a malformed line)
BLOCK_BYTES = 4 * 1024 * 1024
LONG_LINE_BYTES = 512  # a block whose lines are longer than this on average is read line by line

TRUNCATION_MARKER = "..."

Row = tuple[int, "bytes | memoryview", "bytes | None", "int | None", "bytes | None"]

#: A whole line as LoadGen writes an entry (group 1..4), or any other line (group 5). With re.M every line
#: of a block gives exactly one match. The data digits are checked for an even count afterwards: a
#: regular expression that counts pairs costs several times more.
_LINE_RE = re.compile(
    rb'^(?:\{ "seq_id" : (?:0|[1-9][0-9]*), "qsl_idx" : (0|[1-9][0-9]*), "data" : "([0-9A-Fa-f]*)"'
    rb'(?:, "token_data" : "([0-9A-Fa-f]*)")?(?:, "token_count" : (-?(?:0|[1-9][0-9]*)))? \},?|(.*))$',
    re.M)

#: The same entry shape in a line of a long-line block: up to the data, and after it.
_HEAD_BYTES_RE = re.compile(rb'\{ "seq_id" : (?:0|[1-9][0-9]*), "qsl_idx" : (0|[1-9][0-9]*), "data" : "')
_TAIL_BYTES_RE = re.compile(
    rb'(?:, "token_data" : "([0-9A-Fa-f]*)")?(?:, "token_count" : (-?(?:0|[1-9][0-9]*)))? \},?')

#: The same entry shape in a stripped line (the careful path): the data string is cut out with str.find
#: and checked by bytes.fromhex, both in C.
_ENTRY_HEAD_RE = re.compile(r'\{ "seq_id" : (?:0|[1-9]\d*), "qsl_idx" : (0|[1-9]\d*), "data" : "')
_ENTRY_TAIL_RE = re.compile(r'(?:, "token_data" : "([0-9A-Fa-f]*)")?(?:, "token_count" : (-?(?:0|[1-9]\d*)))? \}')
_HEX = re.compile(r"[0-9a-fA-F]*")


_ENTRY_LINES = compiled("entry_lines")  # the short-line block read in C (checker.loaders.compiled)
#: the length test of a block and, for long lines, their reading in one C call (None: not built)
_LONG_BLOCK = compiled("long_lines", module="_accuracy_scan")


def _long_lines(buf: bytes, end: int, width: int) -> bool:
    """Whether the lines of ``buf[:end]`` are longer than ``width`` on average."""
    return end > width * (buf.count(b"\n", 0, end) + 1)


def _unhex(data) -> bytes | None:
    """The bytes the hex digits ``data`` stand for; None unless they are only hex digits, in pairs."""
    try:
        return binascii.unhexlify(data)
    except binascii.Error:
        return None




def _parse_entry_line(line: str) -> tuple[tuple | None, str | None]:
    """(row, None) for an entry line (stripped), or (None, what is wrong with it)."""
    text = line[:-1] if line.endswith(",") else line
    if text.startswith("["):
        text = text[1:].strip()
    if text.endswith("]"):
        text = text[:-1].strip()
    head = _ENTRY_HEAD_RE.match(text)
    if head is not None:
        start = head.end()
        end = text.find('"', start)
        tail = _ENTRY_TAIL_RE.fullmatch(text, end + 1) if end >= 0 else None
        if tail is not None:
            data = text[start:end]
            try:
                raw = bytes.fromhex(data)
            except ValueError:
                raw = None
            if raw is not None and len(raw) * 2 == len(data):  # only hex digits, in pairs
                token_data, count = tail.groups()
                return (int(head.group(1)), data.encode("ascii"), token_data.encode("ascii") if token_data else None,
                        int(count) if count is not None else None, None), None
    return _parse_entry_json(text)


def _parse_entry_json(text: str) -> tuple[tuple | None, str | None]:
    """An entry line of any shape, through the JSON decoder (the general path)."""
    bare = text.strip(" \t\n\r")  # (JSON's white space)
    if not (bare.startswith("{") and bare.endswith("}")):
        # no object: what the decoder would say of it, without its exception (the lines the truncation of a
        # log cuts, foreign lines)
        return None, "not a JSON object"
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None, "not a JSON object"
    if not isinstance(obj, dict):
        return None, "not a JSON object"
    qsl = obj.get("qsl_idx")
    data = obj.get("data")
    if not isinstance(qsl, int) or isinstance(qsl, bool) or qsl < 0:
        return None, "qsl_idx missing or not a non-negative integer"
    if not isinstance(data, str) or len(data) % 2 or not _is_hex(data):
        return None, "data missing or not an even-length hex string"
    token_data = obj.get("token_data")
    if token_data is not None and (not isinstance(token_data, str) or not _is_hex(token_data)):
        return None, "token_data is not a hex string"
    count = obj.get("token_count")
    if count is not None and (not isinstance(count, int) or isinstance(count, bool)):
        return None, "token_count is not an integer"
    return (qsl, data.encode("ascii"), token_data.encode("ascii") if token_data else None, count, None), None


def _is_hex(text: str) -> bool:
    return _HEX.fullmatch(text) is not None


@dataclass
class _State:
    """The reading position of an accuracy log and what it has found malformed so far."""

    number: int = 0  # lines read
    pending: list[tuple[int, str]] = field(default_factory=list)  # malformed lines (number, problem)
    last_bad: bool = False  # the previous content line was malformed
    after_marker: bool = False  # the next content line is the first one of the tail


@dataclass
class AccuracyEntries:
    """The entries of one accuracy log, read once by :meth:`batches`.

    ``truncated``: the log holds the ``...`` line of a published (head + tail) log; an entry cut by the
    truncation (the last line of the head, the first line of the tail) is not malformed.
    ``malformed``: (line number, problem) of every other line that is not an entry, known once the
    whole log was read. ``error``: the file could not be opened or read (the rows stop there).
    ``opener``: how to open the log (a binary stream at its start, as a context manager) when the load
    stage reads it once for more than these rows; None: ``open(path, "rb")``."""

    path: str
    truncated: bool = False
    malformed: list[tuple[int, str]] = field(default_factory=list)
    error: str | None = None
    entries: int = 0
    opener: Callable[[], ContextManager[BinaryIO]] | None = field(default=None, repr=False, compare=False)

    def batches(self) -> Iterator[list[Row]]:
        """The rows of the log in file order, a list per block read."""
        try:
            opened = open(self.path, "rb") if self.opener is None else self.opener()
        except OSError as exc:
            self.error = f"cannot open: {exc.strerror or exc}"
            return
        state = _State()
        block_size = min(BLOCK_BYTES, MAX_LINE_BYTES)  # a line inside one block is never too long
        with opened as handle:
            pieces: list[bytes] = []  # the line begun by earlier blocks, not yet ended
            held = start = 0  # its length and offset
            while True:
                block = self._read(handle.read, block_size)
                if block is None:
                    return
                if not block:
                    if held:
                        yield self._take(b"".join(pieces), held, state)
                    break
                cut = block.rfind(b"\n")
                first = block.find(b"\n")
                if (first if first >= 0 else len(block)) + held >= MAX_LINE_BYTES:
                    # a line this long is read the way it always was, in MAX_LINE_BYTES pieces
                    yield from self._careful(handle, start, state)
                    return
                if cut < 0:
                    pieces.append(block)
                    held += len(block)
                    continue
                buf = b"".join((*pieces, block)) if pieces else block
                end = held + cut
                yield self._take(buf, end, state)
                pieces, held, start = [block[cut + 1:]], len(block) - cut - 1, start + end + 1
        self.malformed.extend(state.pending)

    def _take(self, buf: bytes, end: int, state: _State) -> list[Row]:
        """The rows of the lines of ``buf[:end]`` (complete lines, the last one without its newline)."""
        if _LONG_BLOCK is not None and buf.__class__ is bytes:
            read = _LONG_BLOCK(buf, end, LONG_LINE_BYTES)  # (None: a short-line block)
            if read is not None:
                return self._merge(read, state)
        elif _long_lines(buf, end, LONG_LINE_BYTES):
            return self._take_long(buf, end, state)
        if _ENTRY_LINES is not None:
            return self._merge(_ENTRY_LINES(buf, end), state)
        rows: list[Row] = []
        number = first = state.number
        fresh = False  # an entry line was read since the last careful one
        lines = None
        for qsl, data, token_data, count, other in _LINE_RE.findall(buf, 0, end):
            number += 1
            if qsl and not len(data) & 1:
                rows.append((int(qsl), data, token_data or None, int(count) if count else None, None))
                fresh = True
                continue
            if fresh:
                state.after_marker = state.last_bad = fresh = False
            if qsl:  # the entry shape with an odd number of data digits: the careful path says what is wrong
                if lines is None:
                    lines = buf[:end].split(b"\n")
                other = lines[number - first - 1]
            state.number = number
            row = self._line(other, state)
            if row is not None:
                rows.append(row)
        if fresh:
            state.after_marker = state.last_bad = False
        state.number = number
        self.entries += len(rows)
        return rows

    def _merge(self, read: tuple, state: _State) -> list[Row]:
        """:meth:`_take` with the lines read in C (``checker._detail_scan.entry_lines`` for a short-line block,
        the same grammar as ``_LINE_RE``; ``checker._accuracy_scan.long_lines`` for a long-line block, the
        reading of :meth:`_take_long`): the rows of the entry lines come back made, and the other lines, in
        order among them, go through :meth:`_line` here with the state the Python loop would give them."""
        fast, others, lines, fresh_at_end = read
        first = state.number
        rows = fast
        if others:
            rows, taken = [], 0
            for before, offset, other, fresh in others:
                rows += fast[taken:before]
                taken = before
                if fresh:  # an entry line was read since the last careful one
                    state.after_marker = state.last_bad = False
                state.number = first + offset
                row = self._line(other, state)
                if row is not None:
                    rows.append(row)
            rows += fast[taken:]
        if fresh_at_end:
            state.after_marker = state.last_bad = False
        state.number = first + lines
        self.entries += len(rows)
        return rows

    def _take_long(self, buf: bytes, end: int, state: _State) -> list[Row]:
        """The rows of the (long) lines of ``buf[:end]``: each entry line cut at its quotes in place, its data
        decoded once and left in the block (a memoryview: an LLM output is megabytes, every copy of it costs)."""
        rows: list[Row] = []
        view = memoryview(buf)
        pos = 0
        while True:
            stop_line = buf.find(b"\n", pos, end)
            if stop_line < 0:
                stop_line = end
            state.number += 1
            row = None
            head = _HEAD_BYTES_RE.match(buf, pos, stop_line)
            if head is not None:
                start = head.end()
                stop = buf.find(b'"', start, stop_line)
                tail = _TAIL_BYTES_RE.fullmatch(buf, stop + 1, stop_line) if stop >= 0 else None
                if tail is not None:
                    raw = _unhex(view[start:stop])  # only hex digits, in pairs (else None)
                    if raw is not None:
                        token_data, count = tail.groups()
                        row = (int(head.group(1)), view[start:stop], token_data or None,
                               int(count) if count is not None else None, raw)
                        state.after_marker = state.last_bad = False
            if row is None:
                row = self._line(buf[pos:stop_line], state)
            if row is not None:
                rows.append(row)
            if stop_line >= end:
                break
            pos = stop_line + 1
        self.entries += len(rows)
        return rows

    def _read(self, read, size: int) -> bytes | None:
        """``read(size)``, or None with ``error`` set when the read fails."""
        try:
            return read(size)
        except OSError as exc:
            self.error = f"read error: {exc.strerror or exc}"
            return None

    def _careful(self, handle, offset: int, state: _State) -> Iterator[list[Row]]:
        """The rest of the log from ``offset`` (a line start), one line per read of at most MAX_LINE_BYTES."""
        try:
            handle.seek(offset)
        except OSError as exc:
            self.error = f"read error: {exc.strerror or exc}"
            return
        while True:
            raw = self._read(handle.readline, MAX_LINE_BYTES)
            if raw is None:
                return
            if not raw:
                break
            state.number += 1
            row = self._line(raw, state)
            if row is not None:
                self.entries += 1
                yield [row]
        self.malformed.extend(state.pending)

    def _line(self, raw: bytes, state: _State) -> Row | None:
        """What one line is: an entry (its row), or None (structure, the truncation mark, a malformed line)."""
        line = raw.decode("utf-8", errors="replace").strip()
        if not line or line in ("[", "]", "[]"):
            return None
        if line == TRUNCATION_MARKER:
            self.truncated = True
            if state.last_bad:
                state.pending.pop()  # the head was cut in the middle of this entry
            state.after_marker, state.last_bad = True, False
            return None
        row, problem = _parse_entry_line(line)
        first_of_tail, state.after_marker = state.after_marker, False
        if problem is not None:
            state.last_bad = not first_of_tail
            if not first_of_tail:  # the tail may start in the middle of an entry
                state.pending.append((state.number, problem))
            return None
        state.last_bad = False
        return row
