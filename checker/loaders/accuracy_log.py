"""``mlperf_log_accuracy.json``: hashing, truncation and streaming parsing.

The hash / truncation contract of the official ``truncate_accuracy_log.py``
(official-checker.md section F):

* ``hash=<sha256 hex>`` in ``accuracy.txt`` is the sha256 of the *full original*
  log, lowercase hex;
* the published log is cut to its first 4096 characters, ``"\\n\\n...\\n\\n"``,
  then its tail, 8199 bytes for ASCII content;
* files smaller than 4096 bytes are left unchanged.

Characters versus bytes: the official tool reads the log as text, so the
head is 4096 *characters* (after universal-newline translation), and the tail
is what it reads after seeking to *byte* ``size - 4096``.  LoadGen writes
ASCII JSON with ``\\n`` line ends, so bytes and characters coincide and the
result is 8199 bytes.  This module follows the same semantics for other
input: the head is read as text (UTF-8, ``\\r\\n`` -> ``\\n``), the tail is the
last 4096 bytes decoded the same way (continuation bytes of a character cut
by the boundary are dropped, where CPython would raise), and the output is
written with ``\\n`` line ends.  A real variant seen in the v5.1 round (logs
truncated on Windows) has every ``\\n`` written as ``\\r\\n``: 8208 bytes.
:func:`is_truncated_shape` accepts it unless ``allow_crlf=False``.

Everything here streams: memory stays constant whatever the size of the log.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from checker.loaders.hashing_reader import HashingReader

#: Characters kept at each end by the official truncation.
VIEWABLE_CHARS = 4096
#: Separator the official truncation puts between head and tail.
TRUNCATION_MARKER = "\n\n...\n\n"
#: Size of an official truncated ASCII log: 4096 + 7 + 4096.
TRUNCATED_SIZE = 2 * VIEWABLE_CHARS + len(TRUNCATION_MARKER)
_MARKER_BYTES = TRUNCATION_MARKER.encode("ascii")
#: The ASCII characters str.strip() takes for white space (bytes.strip() leaves out \x1c-\x1f).
_STR_SPACE = bytes(c for c in range(128) if chr(c).isspace())
#: Read size for hashing and parsing.
CHUNK_SIZE = 1 << 20
#: Largest single entry :func:`parse_accuracy_json_entries` accepts.
MAX_ENTRY_CHARS = 256 << 20


class AccuracyLogError(ValueError):
    """A malformed, truncated or unreadable accuracy log; says where."""

    def __init__(self, path: str | os.PathLike[str], message: str, position: int | None = None) -> None:
        self.path = str(path)
        self.position = position
        where = f" (near character {position})" if position is not None else ""
        super().__init__(f"{self.path}: {message}{where}")


# ----------------------------------------------------------------------- hash


def sha256_file(path: str | os.PathLike[str], chunk_size: int = CHUNK_SIZE) -> str:
    """Lowercase hex sha256 of a file, read in ``chunk_size`` blocks into one
    reused buffer (constant memory)."""
    with HashingReader(open(path, "rb", buffering=0), chunk_size=chunk_size) as reader:
        return reader.hexdigest()


# ------------------------------------------------------------------ truncation


def is_truncated_shape(path: str | os.PathLike[str], allow_crlf: bool = True) -> bool:
    """True if the file has the official truncated form: 8199 characters,
    ``[`` ... 4096 characters, the marker, 4096 characters ... ``]``.

    With ``allow_crlf`` the same form with ``\\r\\n`` line ends is accepted.
    Reads at most a few tens of KiB.
    """
    try:
        size = os.stat(path).st_size
        if size < TRUNCATED_SIZE or size > 4 * TRUNCATED_SIZE:  # UTF-8: <= 4 bytes a char
            return False
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return False
    return truncated_shape_of(raw, allow_crlf)


def truncated_shape_of(raw: bytes, allow_crlf: bool = True) -> bool:
    """:func:`is_truncated_shape` of a file's whole content, already read."""
    if len(raw) < TRUNCATED_SIZE or len(raw) > 4 * TRUNCATED_SIZE:
        return False
    if raw.isascii() and b"\r" not in raw:  # (LoadGen's logs) the characters are the bytes: no decoding
        return (len(raw) == TRUNCATED_SIZE
                and raw[VIEWABLE_CHARS:VIEWABLE_CHARS + len(TRUNCATION_MARKER)] == _MARKER_BYTES
                and raw.lstrip(_STR_SPACE).startswith(b"[") and raw.rstrip(_STR_SPACE).endswith(b"]"))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    candidates = [text]
    if allow_crlf and "\r\n" in text:
        candidates.append(text.replace("\r\n", "\n"))
    for t in candidates:
        if (
            len(t) == TRUNCATED_SIZE
            and t[VIEWABLE_CHARS : VIEWABLE_CHARS + len(TRUNCATION_MARKER)] == TRUNCATION_MARKER
            and t.lstrip().startswith("[")
            and t.rstrip().endswith("]")
        ):
            return True
    return False


def _decode_text(raw: bytes, path: str) -> str:
    """UTF-8 with universal newlines, like reading in text mode."""
    try:
        return io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8", newline=None).read()
    except UnicodeDecodeError as exc:
        raise AccuracyLogError(path, f"not UTF-8 text: {exc.reason}", exc.start) from None


def _head_and_tail(src: str, size: int) -> tuple[str, str]:
    try:
        with open(src, encoding="utf-8", newline=None) as f:
            head = f.read(VIEWABLE_CHARS)
    except UnicodeDecodeError as exc:
        raise AccuracyLogError(src, f"not UTF-8 text: {exc.reason}") from None
    with open(src, "rb") as f:
        f.seek(size - VIEWABLE_CHARS)
        raw = f.read(VIEWABLE_CHARS)
    skip = 0
    while skip < len(raw) and 0x80 <= raw[skip] <= 0xBF:  # cut inside a character
        skip += 1
    return head, _decode_text(raw[skip:], src)


def _atomic_write(dst: str, chunks: Iterator[bytes]) -> None:
    import tempfile  # (imported where a log is written: a check only reads them)

    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(dst)}.", suffix=".tmp", dir=os.path.dirname(dst) or ".")
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, dst)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _file_chunks(path: str) -> Iterator[bytes]:
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK_SIZE):
            yield chunk


def truncate_accuracy_log(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> str:
    """Write the official truncated form of ``src`` to ``dst`` and return the
    sha256 hex of the full ``src`` (the ``hash=`` value for ``accuracy.txt``).

    ``src`` is only read.  ``dst`` is written atomically (temporary file in the
    same directory, then ``os.replace``); its directory must exist.  Files under
    4096 bytes are copied unchanged.
    """
    src_p, dst_p = os.fspath(src), os.fspath(dst)
    if os.path.exists(dst_p) and os.path.samefile(src_p, dst_p):
        raise ValueError(f"refusing to overwrite the source log in place: {src_p}")
    size = os.stat(src_p).st_size
    digest = sha256_file(src_p)
    if size < VIEWABLE_CHARS:
        _atomic_write(dst_p, _file_chunks(src_p))
    else:
        head, tail = _head_and_tail(src_p, size)
        text = head + TRUNCATION_MARKER + tail
        _atomic_write(dst_p, iter([text.encode("utf-8")]))
    return digest


# --------------------------------------------------------------------- parsing


@dataclass(frozen=True)
class AccuracyEntry:
    """One LoadGen accuracy record. ``extra`` holds other keys (e.g. ``token_count``)."""

    seq_id: int
    qsl_idx: int
    data: str
    extra: tuple[tuple[str, object], ...] = ()


class _Reader:
    """Incremental UTF-8 text over a binary file with a sliding buffer."""

    def __init__(self, f: io.BufferedReader, path: str) -> None:
        self._f = f
        self._path = path
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf = ""
        self.pos = 0  # index in buf
        self.base = 0  # characters dropped from the front of buf
        self.eof = False

    @property
    def offset(self) -> int:
        return self.base + self.pos

    def more(self, at_least: int = CHUNK_SIZE) -> bool:
        if self.eof:
            return False
        raw = self._f.read(max(at_least, CHUNK_SIZE))
        try:
            text = self._decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            raise AccuracyLogError(self._path, f"not UTF-8 text: {exc.reason}", self.base + len(self.buf)) from None
        if not raw:
            self.eof = True
        if self.pos > CHUNK_SIZE:  # drop what was consumed
            self.base += self.pos
            self.buf = self.buf[self.pos :]
            self.pos = 0
        self.buf += text
        return bool(raw)

    def skip_ws(self) -> str:
        """Skip whitespace; return the next character or '' at end of file."""
        while True:
            n = len(self.buf)
            while self.pos < n and self.buf[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < n:
                return self.buf[self.pos]
            if not self.more():
                return ""


def _entry(obj: object, path: str, where: int) -> AccuracyEntry:
    if not isinstance(obj, dict):
        raise AccuracyLogError(path, f"expected an object in the list, got {type(obj).__name__}", where)
    missing = [k for k in ("seq_id", "qsl_idx", "data") if k not in obj]
    if missing:
        raise AccuracyLogError(path, f"entry lacks key(s) {', '.join(missing)}", where)
    seq_id, qsl_idx, data = obj["seq_id"], obj["qsl_idx"], obj["data"]
    for name, value in (("seq_id", seq_id), ("qsl_idx", qsl_idx)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise AccuracyLogError(path, f"{name} must be an integer, got {value!r}", where)
    if not isinstance(data, str):
        raise AccuracyLogError(path, f"data must be a string, got {type(data).__name__}", where)
    extra = tuple(sorted((k, v) for k, v in obj.items() if k not in ("seq_id", "qsl_idx", "data")))
    return AccuracyEntry(seq_id, qsl_idx, data, extra)


def parse_accuracy_json_entries(
    path: str | os.PathLike[str], max_entry_chars: int = MAX_ENTRY_CHARS, *, source: BinaryIO | None = None,
    truncated_shape: bool | None = None,
) -> Iterator[AccuracyEntry]:
    """Yield the entries of an untruncated ``mlperf_log_accuracy.json`` (a JSON
    list of ``{"seq_id", "qsl_idx", "data"}`` objects) one at a time.

    Memory is bounded by the largest entry (at most ``max_entry_chars``).
    Raises :class:`AccuracyLogError` (a ``ValueError``) with the path and an
    approximate character position on malformed or truncated JSON.

    ``source``: the file already open (binary, at its start), read instead of
    opening ``path``, which then only names it in messages (the load stage reads
    a log once for its hash and its entries). ``truncated_shape``: whether the
    file has the official truncated shape, when the caller knows it (an error
    message says so); None: the file is looked at when a message needs it.
    """
    p = os.fspath(path)
    decoder = json.JSONDecoder()

    def hint() -> str:
        shape = is_truncated_shape(p) if truncated_shape is None else truncated_shape
        return " (the file has the official truncated shape; its entries cannot be read)" if shape else ""

    with (open(p, "rb") if source is None else contextlib.nullcontext(source)) as f:
        r = _Reader(f, p)
        if r.skip_ws() != "[":
            got = r.skip_ws() or "end of file"
            raise AccuracyLogError(p, f"expected '[' at the start of the log, found {got!r}", r.offset)
        r.pos += 1
        first = True
        while True:
            c = r.skip_ws()
            if c == "":
                raise AccuracyLogError(p, f"unexpected end of file inside the list{hint()}", r.offset)
            if c == "]":
                r.pos += 1
                break
            if not first:
                if c != ",":
                    raise AccuracyLogError(p, f"expected ',' or ']' between entries, found {c!r}{hint()}", r.offset)
                r.pos += 1
                c = r.skip_ws()
                if c == "":
                    raise AccuracyLogError(p, "unexpected end of file after ','", r.offset)
            first = False
            start = r.offset
            while True:
                try:
                    obj, end = decoder.raw_decode(r.buf, r.pos)
                    # a number or literal cut by the buffer end may decode short
                    if end < len(r.buf) or r.eof:
                        break
                except json.JSONDecodeError as exc:
                    if r.eof:
                        raise AccuracyLogError(p, f"invalid JSON ({exc.msg}){hint()}", r.base + exc.pos) from None
                if len(r.buf) - r.pos > max_entry_chars:
                    raise AccuracyLogError(
                        p, f"an entry is longer than {max_entry_chars} characters (malformed log?)", start
                    )
                r.more(len(r.buf) - r.pos)  # grow geometrically for big entries
            r.pos = end
            yield _entry(obj, p, start)
        if r.skip_ws() != "":
            raise AccuracyLogError(p, "unexpected content after the closing ']'", r.offset)
