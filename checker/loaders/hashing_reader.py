"""A binary file read once by its readers while a sha256 of the whole file goes along.

The load stage opens each file of a tree once (issue #17). Some files are wanted twice over: an accuracy
log's sha256 (the ``hash=`` of ``accuracy.txt``) besides its entries, which two readers parse (the log's own
facts and the compliance tests that compare with it), and the digest of any file of an inferred result's
folder or its source's besides what its reader parses (:mod:`checker.loaders.inferred_copy`).
:class:`HashingReader` wraps the one open handle:
every byte a reader reads goes into the digest once, :meth:`HashingReader.hexdigest` reads (in 1 MiB
blocks, constant memory) only what no reader asked for, and :meth:`HashingReader.peek` keeps the first
bytes in memory for the readers that start after a look at them, so that they are not read again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

CHUNK_SIZE = 1 << 20


class HashingReader:
    """``read`` / ``readline`` / ``seek`` over an open binary ``handle`` (from its start), hashing each byte
    once: a seek back (a reader that reads a long line again) does not hash it twice, a seek forward hashes
    the bytes it skips before it reads on. ``record``: called with the hex digest when
    the reader is closed (the rest of the file is read for it then); a read error there records nothing."""

    def __init__(self, handle, record: Callable[[str], None] | None = None, chunk_size: int = CHUNK_SIZE) -> None:
        self._handle = handle
        self._record = record
        self._chunk = chunk_size
        self._digest = hashlib.sha256()
        self._hashed = 0  # the file's first bytes that went into the digest
        self._at = 0  # the handle's position
        self._pos = 0  # the reader's position
        self._head = b""  # the file's first bytes, kept by peek()
        self._hex: str | None = None

    def peek(self, size: int) -> bytes:
        """The file's first ``size`` bytes (or all of a smaller file), kept in memory for the readers, which
        read them from there (the reader's position does not change). They go into the digest when it is
        wanted (a read past them, :meth:`hexdigest`): a log whose digest nobody asks for is never hashed."""
        head = self._head
        if len(head) < size:
            if self._at != len(head):
                self._handle.seek(len(head))
            head += self._handle.read(size - len(head))
            self._head = head
            self._at = len(head)
        return head if len(head) <= size else head[:size]

    def read(self, size: int = -1) -> bytes:
        return self._serve(self._handle.read, size, line=False)

    def readline(self, size: int = -1) -> bytes:
        return self._serve(self._handle.readline, size, line=True)

    def _serve(self, fetch, size: int, line: bool) -> bytes:
        """``read`` (``line`` False) or ``readline``: from the head while it lasts, then from the file
        through ``fetch`` (the handle's own read or readline)."""
        head, pos = self._head, self._pos
        if pos >= len(head):
            return self._from_file(fetch, size)
        end = len(head) if size < 0 else min(len(head), pos + size)
        if line:
            stop = head.find(b"\n", pos, end)
            if stop >= 0:
                self._pos = stop + 1
                return head[pos:stop + 1]
        data = head[pos:end]
        self._pos = end
        if size < 0 or len(data) < size:
            more = self._from_file(fetch, -1 if size < 0 else size - len(data))
            if more:
                data += more
        return data

    def seek(self, offset: int) -> int:
        """Move to ``offset`` bytes from the start (the handle moves when it is read next)."""
        if offset < 0:
            raise ValueError(f"negative seek position {offset}")
        self._pos = offset
        return offset

    def tell(self) -> int:
        return self._pos

    def _from_file(self, read, size: int) -> bytes:
        if self._at != self._pos:
            self._handle.seek(self._pos)
        data = read(size)
        start = self._pos
        end = self._pos = self._at = start + len(data)
        if end > self._hashed and data:  # (at the end of the file nothing is hashed yet)
            if start > self._hashed:  # the bytes before (the head, or what a seek skipped) go in first
                self._hash_rest(stop=start)
            self._digest.update(memoryview(data)[self._hashed - start:] if start < self._hashed else data)
            self._hashed = end
        return data

    def _hash_rest(self, stop: int | None = None) -> None:
        """Hash the bytes after the last one hashed, up to ``stop`` (None: the end of the file): those of the
        head from memory, the others read from the file (the handle is left after them)."""
        head = self._head
        if self._hashed < len(head):
            upto = len(head) if stop is None else min(stop, len(head))
            self._digest.update(memoryview(head)[self._hashed:upto])
            self._hashed = upto
            if stop is not None and self._hashed >= stop:
                return
        if self._at != self._hashed:
            self._handle.seek(self._hashed)
            self._at = self._hashed
        view = None  # the reused block, made at the second read (most rests are one short read, or none)
        while stop is None or self._hashed < stop:
            want = self._chunk if stop is None else min(self._chunk, stop - self._hashed)
            if view is None:
                data = self._handle.read(want)
                n = len(data)
                if n == self._chunk:
                    view = memoryview(bytearray(self._chunk))
            else:
                n = self._handle.readinto(view[:want])
                data = view[:n]
            if not n:
                break
            self._digest.update(data)
            self._hashed += n
        self._at = self._hashed

    def hexdigest(self) -> str:
        """sha256 (lowercase hex) of the whole file; reads what the readers left."""
        if self._hex is None:
            self._hash_rest()
            self._hex = self._digest.hexdigest()
        return self._hex

    def close(self) -> None:
        try:
            if self._record is not None:
                try:
                    digest = self.hexdigest()
                except OSError:
                    pass
                else:
                    self._record(digest)
        finally:
            self._handle.close()

    def __enter__(self) -> HashingReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
