"""A round's findings kept out of memory: written to an anonymous temporary file one batch (one
submitter's findings) at a time as the batches are made, and read back in report order each time they
are iterated.

The parent process of a check would otherwise hold every finding of the round until the report is
written (about 1.6 KB per result on the synthetic v6.0 round); with the spool it holds, while the
report is written, only the batches whose sort keys overlap the one being read (usually one).

Iteration gives exactly ``sorted(concatenation of the batches in order, key=Finding.sort_key)``: each
batch is sorted (stably) when it is written, and the batches are merged by (sort key, batch order,
position), a batch being read only when the merge reaches its first key.
"""

from __future__ import annotations

import heapq
import os
import pickle
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from checker.diagnostics import Finding


@dataclass(frozen=True)
class Batch:
    """Where one batch lies in the spool file, how many findings it holds, its first sort key, its place
    in the concatenation (``order``), and how many of its findings count per severity (not waived)."""

    offset: int
    size: int
    count: int
    first: tuple
    order: int
    tally: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Packed:
    """One batch made ready for a spool where its findings were made (a worker process): its findings
    pickled in report order, with what its :class:`Batch` records. The spool writes the bytes as they are,
    so the process that keeps the spool never unpickles, sorts or pickles them again."""

    data: bytes
    count: int
    first: tuple
    tally: tuple[tuple[str, int], ...]


_TMPFILE = getattr(os, "O_TMPFILE", 0)  # (Linux kernels since 3.11)


def anonymous_file():
    """A temporary file with no name (gone when closed), open for reading and writing: Linux's ``O_TMPFILE`` in
    the first of ``$TMPDIR``, ``$TEMP``, ``$TMP`` and /tmp that takes one, else ``tempfile.TemporaryFile()``
    (importing ``tempfile``, with ``shutil`` and ``random``, costs a check's start-up about 5 ms)."""
    if _TMPFILE:
        for folder in (*(os.environ.get(k) for k in ("TMPDIR", "TEMP", "TMP")), "/tmp"):
            if folder:
                try:
                    fd = os.open(folder, _TMPFILE | os.O_RDWR | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
                except OSError:  # no such folder, not writable, or a file system without O_TMPFILE
                    continue
                return open(fd, "w+b")
    import tempfile

    return tempfile.TemporaryFile()


def pack(findings: Iterable[Finding]) -> Packed:
    items = sorted(findings, key=Finding.sort_key)
    tally = Counter(f.severity.value for f in items if not f.waived)
    return Packed(pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL), len(items),
                  items[0].sort_key() if items else (), tuple(sorted(tally.items())))


class FindingSpool:
    """The temporary file (removed when the spool is closed or collected) and the batches written to it."""

    def __init__(self) -> None:
        self._file = anonymous_file()
        self._end = 0

    def add(self, findings: Iterable[Finding] | Packed, order: int) -> Batch:
        """Write one batch (findings, or a batch :func:`pack` made); ``order`` is its place among the
        batches (ties of sort keys keep it)."""
        packed = findings if isinstance(findings, Packed) else pack(findings)
        self._file.seek(self._end)
        self._file.write(packed.data)
        batch = Batch(self._end, len(packed.data), packed.count, packed.first, order, packed.tally)
        self._end += len(packed.data)
        return batch

    def read(self, batch: Batch) -> list[Finding]:
        self._file.seek(batch.offset)
        return pickle.loads(self._file.read(batch.size))

    def view(self, batches: Iterable[Batch]) -> SpooledFindings:
        return SpooledFindings(self, [b for b in batches if b.count])

    def close(self) -> None:
        self._file.close()


class SpoolWriter:
    """A list-like sink for findings made one at a time (it has ``append``, as the engine's steps need):
    they are written to ``spool`` in batches of ``size``, the batches taking the places ``order``,
    ``order + 1``, ... (so that reading them back keeps the order they were appended in), and only those
    ``keep`` accepts stay in memory (``kept``). Call :meth:`flush` when done; ``batches`` are then complete."""

    def __init__(self, spool: FindingSpool, order: int, keep, size: int = 1000) -> None:
        self.spool, self.order, self.keep, self.size = spool, order, keep, size
        self.batches: list[Batch] = []
        self.kept: list[Finding] = []
        self._items: list[Finding] = []

    def append(self, finding: Finding) -> None:
        self._items.append(finding)
        if self.keep(finding):
            self.kept.append(finding)
        if len(self._items) >= self.size:
            self.flush()

    def flush(self) -> None:
        if self._items:
            self.batches.append(self.spool.add(self._items, self.order))
            self.order += 1
            self._items = []


class SpooledFindings(Sequence):
    """The findings of some batches of a spool, as a read-only sequence in report order. Iterating reads
    them back from the file each time; indexing reads up to the index."""

    def __init__(self, spool: FindingSpool, batches: list[Batch]) -> None:
        self._spool = spool
        self._batches = sorted(batches, key=lambda b: (b.first, b.order))
        self._count = sum(b.count for b in batches)

    def __len__(self) -> int:
        return self._count

    def tally(self) -> dict[str, int]:
        """How many findings that are not waived there are per severity value, without reading them."""
        out: Counter = Counter()
        for batch in self._batches:
            out.update(dict(batch.tally))
        return dict(out)

    def __iter__(self) -> Iterator[Finding]:
        pending = iter(self._batches)
        upcoming = next(pending, None)
        heap: list = []
        while heap or upcoming is not None:
            # open every batch whose first finding comes before the smallest one still to give
            while upcoming is not None and (not heap or (upcoming.first, upcoming.order, 0) < heap[0][:3]):
                items = iter(self._spool.read(upcoming))
                first = next(items)
                heapq.heappush(heap, (first.sort_key(), upcoming.order, 0, first, items))
                upcoming = next(pending, None)
            key, order, pos, finding, items = heap[0]
            following = next(items, None)
            if following is None:
                heapq.heappop(heap)
            else:
                heapq.heapreplace(heap, (following.sort_key(), order, pos + 1, following, items))
            yield finding

    def __getitem__(self, index):
        if isinstance(index, slice):
            return list(self)[index]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("finding index out of range")
        for position, finding in enumerate(self):
            if position == index:
                return finding
        raise IndexError("finding index out of range")  # pragma: no cover - the count says otherwise

    def __eq__(self, other) -> bool:
        return isinstance(other, (list, tuple, Sequence)) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]
