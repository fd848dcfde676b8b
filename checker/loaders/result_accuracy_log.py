"""A result's ``accuracy/mlperf_log_accuracy.json``, opened once by the load stage for everything that reads it.

Two readers want the file: the hash / truncation facts of the result's accuracy context (official-checker.md F:
the head, the sha256 of an untruncated log, whether a log within the size limit is a complete JSON list of
entries) and the compliance record (TEST01 and TEST08 compare the test run's outputs with this log's,
:mod:`checker.loaders.compliance_folder`); an inferred result's comparison with its source folder wants its
digest (:mod:`checker.loaders.inferred_copy`). One :class:`~checker.loaders.hashing_reader.HashingReader`
serves them all: the head is read first and kept in memory; a log within the size limit (10 KB, below the
head's 32 KB) is parsed from there; the compliance reader streams the log from its start through the digest;
what no reader read is hashed last, when the facts are taken or the file closed. A log of 10 GB is read
once, in blocks.
"""

from __future__ import annotations

import contextlib

from checker.loaders.accuracy_log import (
    TRUNCATED_SIZE, TRUNCATION_MARKER, VIEWABLE_CHARS, AccuracyLogError, parse_accuracy_json_entries,
    truncated_shape_of,
)
from checker.loaders.fs import Sandbox

#: What is read first: the 4096-character head (at most 4 bytes a character) and, whole, a file of the
#: truncated form's size (UTF-8 and CRLF variants included).
HEAD_BYTES = max(4 * VIEWABLE_CHARS + 64, 4 * TRUNCATED_SIZE + 1)
_MARKER_BYTES = TRUNCATION_MARKER.encode("ascii")


class ResultAccuracyLog:
    """The accuracy log ``rel`` of one result, open from construction to :meth:`close` (a context manager).

    :meth:`facts` gives the fields of :class:`~checker.context.AccuracyCtx` (official-checker.md F):

    * ``log_truncation_marker``: the official separator follows the first 4096 characters;
    * ``log_truncated_shape``: the file is exactly the official truncated form (CRLF variant too);
    * ``log_full_sha256``: sha256 of the whole file, when no marker shows it was truncated (whatever its
      size: the rest of an untruncated multi-GB log is hashed in 1 MiB blocks);
    * ``log_list_error``: for a log within the size limit that is not the truncated form, why it is not a
      complete JSON list of LoadGen entries (``None`` when it is one), and ``log_entries``, its entries;
    * ``log_read_error`` alone: the file could not be read.

    :meth:`start` gives the log from its start to one more reader while it is open."""

    def __init__(self, box: Sandbox, rel: str, limit: int) -> None:
        self.rel = rel
        self.path = box.abs(rel)
        self.size = box.size(rel) if box.is_file(rel) else None
        self._facts: dict = {}
        self._reader = None
        self._error: OSError | None = None
        if self.size is None:
            return
        try:
            self._reader = box.open(rel, hashing=True)
            self._look(self.size, limit)
        except OSError as exc:
            self._fail(exc)

    def _look(self, size: int, limit: int) -> None:
        # a log within the size limit is read whole here (the limit is below HEAD_BYTES in every round)
        head = self._reader.peek(max(HEAD_BYTES, size) if size <= limit else HEAD_BYTES)
        probe = head[:HEAD_BYTES]
        if probe.isascii() and b"\r" not in probe:  # (LoadGen's logs) the characters are the bytes
            marker = probe[VIEWABLE_CHARS:VIEWABLE_CHARS + len(TRUNCATION_MARKER)] == _MARKER_BYTES
        else:
            text = probe[:4 * VIEWABLE_CHARS + 64].decode("utf-8", errors="replace")
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            marker = text[VIEWABLE_CHARS:VIEWABLE_CHARS + len(TRUNCATION_MARKER)] == TRUNCATION_MARKER
        shape = truncated_shape_of(probe)  # (what accuracy_log.is_truncated_shape would read the file for)
        facts = self._facts
        facts["log_truncation_marker"] = marker
        facts["log_truncated_shape"] = marker and size == len(probe) and shape
        if size <= limit and not facts["log_truncated_shape"]:
            try:
                count = 0
                self._reader.seek(0)
                for _ in parse_accuracy_json_entries(self.path, source=self._reader, truncated_shape=shape):
                    count += 1
                facts["log_entries"] = count
            except AccuracyLogError as exc:
                facts["log_list_error"] = str(exc)[len(exc.path) + 2:] if str(exc).startswith(exc.path) else str(exc)
            except RecursionError:
                facts["log_list_error"] = "JSON nested too deeply"

    def _fail(self, exc: OSError) -> None:
        self._error = exc
        self._facts = {"log_read_error": f"cannot read file: {exc.strerror or exc}"}

    @property
    def exists(self) -> bool:
        """The log is a file (readable or not)."""
        return self.size is not None

    def start(self) -> contextlib.nullcontext:
        """The open log from its start, for one more reader, which reads the head from memory and the rest
        through the digest (the reader is left open: :meth:`close` closes it). Raises the OSError the log
        could not be read with."""
        if self._reader is None:
            raise self._error or FileNotFoundError(self.path)
        self._reader.seek(0)
        return contextlib.nullcontext(self._reader)

    def facts(self) -> dict:
        """The hash / truncation facts (above); the sha256 reads what no reader read."""
        if self._reader is not None and not self._facts.get("log_read_error"):
            try:
                if not self._facts["log_truncation_marker"]:
                    self._facts["log_full_sha256"] = self._reader.hexdigest()
            except OSError as exc:
                self._fail(exc)
        return self._facts

    def close(self) -> None:
        if self._reader is not None:
            reader, self._reader = self._reader, None
            reader.close()

    def __enter__(self) -> ResultAccuracyLog:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
