"""Safe, read-only file-system access for untrusted submission trees.

Every read is bounded in size, refuses to follow a link out of the tree, and
returns an error string instead of raising, so callers can turn problems into
coded diagnostics.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, partial
from typing import BinaryIO

from checker.fast_init import fast_init
from checker.loaders.hashing_reader import HashingReader
from checker.loaders.json_keys import DuplicateKey, loads_recording, shape as json_shape

MAX_TEXT_BYTES = 16 * 1024 * 1024
MAX_JSON_DEPTH = 64
_SPECIAL_NAMES = ("", ".", "..")  # names the walk's listings do not tell about (the file system is asked)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def read_whole(path: str, size: int, limit: int) -> bytes:
    """The bytes of the file at ``path``, which the walk saw with ``size`` bytes, read with one ``read`` of
    ``size + 1`` bytes when it has not changed (a file object costs four more system calls and two more
    objects a file). A file that grew is read on until its end or past ``limit`` (the caller then sees
    more than ``limit`` bytes); one that shrank is read to its end. Raises OSError as ``open`` does."""
    fd = os.open(path, _READ_FLAGS)
    try:
        data = os.read(fd, size + 1)
        if len(data) == size:  # a regular file's read stops short of the count only at its end
            return data
        parts = [data]
        total = len(data)
        while total <= limit:
            more = os.read(fd, max(limit + 1 - total, 1))
            if not more:
                break
            parts.append(more)
            total += len(more)
        return b"".join(parts)
    finally:
        os.close(fd)


@fast_init
@dataclass(frozen=True)
class Listing:
    """Plain files and sub-directories of one directory (links resolved, inside the tree)."""

    exists: bool
    files: tuple[str, ...] = ()
    dirs: tuple[str, ...] = ()
    error: str | None = None


class Sandbox:
    """Resolves paths against a submission root and keeps reads inside it."""

    def __init__(self, root: str):
        self.root = os.path.abspath(root)
        self._prefix = os.path.join(self.root, "")  # root and one separator: what abs() puts before a name
        # folders (relative) whose walk found every symbolic link inside them: paths below such a
        # folder that pass through none of those links cannot leave the tree (no realpath needed)
        self._walked: dict[str, tuple[str, ...]] = {}
        # folders the walk listed that hold only plain files and folders: {rel: ({file: size}, dirs)};
        # listings and file tests below them are answered from there instead of a stat per name
        self._known: dict[str, tuple[dict[str, int], frozenset[str]]] = {}
        self._listings: dict[str, Listing] = {}  # the listings made from ``_known``, by folder
        # folders (relative, each with a trailing "/") below which the sha256 of every file read is kept in
        # ``digests`` (relative path -> hex): an inferred result's folder and its source's, which the load
        # stage compares byte by byte without opening a second time a file it reads anyway
        self._digested: tuple[str, ...] = ()
        self.digests: dict[str, str] = {}

    @cached_property
    def real_root(self) -> str:
        """The root with its links resolved: asked only for a path that may leave the tree (:meth:`inside`),
        which a tree without links never has (a ``realpath`` costs a system call a folder of the root's path)."""
        return os.path.realpath(self.root)

    def trust(self, rel_dir: str, links: tuple[str, ...],
              known: dict[str, tuple[dict[str, int], frozenset[str]]] | None = None) -> None:
        """Record a complete walk of ``rel_dir``: its links, and (``known``) what it found in each
        folder without links or special files. The walk is a snapshot: a file removed since is
        reported when it is read."""
        self._walked[rel_dir] = links
        if known:
            self._known.update(known)
            for rel in self._listings.keys() & known.keys():  # (listings made from an earlier walk: none, mostly)
                del self._listings[rel]

    def files_below(self, rel: str) -> dict[str, int] | None:
        """Size of every file below the folder ``rel`` by its path under it ("a/b.txt"), as the walk saw them,
        when the walk saw every folder below it holding only plain files and folders; else None."""
        found: dict[str, int] = {}
        stack = [("", rel)]
        while stack:
            sub, folder = stack.pop()
            known = self._known.get(folder)
            if known is None:
                return None
            found.update((sub + name, size) for name, size in known[0].items())
            stack += ((f"{sub}{name}/", f"{folder}/{name}") for name in known[1])
        return found

    def digest_below(self, folders: Iterable[str]) -> None:
        """From now on keep in ``digests`` the sha256 of every file read below ``folders`` (relative), of the
        whole file: a reader that stops early has the rest read for the digest when it closes the file."""
        self._digested = tuple(f"{folder}/" for folder in folders)

    def open(self, rel: str, hashing: bool = False) -> BinaryIO | HashingReader:
        """The file ``rel`` opened for reading (binary): a :class:`HashingReader` when ``hashing`` (the
        caller wants its sha256 besides its bytes) or when its digest is kept (:meth:`digest_below`), else
        the plain file. The readers of result folders open their files here."""
        handle = open(self.abs(rel), "rb")
        if self._digested and rel.startswith(self._digested):
            return HashingReader(handle, partial(self.digests.__setitem__, rel))
        return HashingReader(handle) if hashing else handle

    def abs(self, rel: str) -> str:
        if not rel:
            return self.root
        return self._prefix + rel if rel[0] != "/" else os.path.join(self.root, rel)  # (as os.path.join)

    def rel(self, path: str) -> str:
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    def inside(self, path: str) -> bool:
        prefix = self.root + os.sep
        if path.startswith(prefix):
            rel = path[len(prefix):].replace(os.sep, "/")
            for walked, links in self._walked.items():
                if rel.startswith(walked + "/"):
                    if not any(rel == link or rel.startswith(link + "/") for link in links):
                        return True
                    break
        real = os.path.realpath(path)
        return real == self.real_root or real.startswith(self.real_root + os.sep)

    def listing(self, rel: str) -> Listing:
        made = self._listings.get(rel)
        if made is not None:
            return made
        known = self._known.get(rel)
        if known is not None:
            made = self._listings[rel] = Listing(exists=True, files=tuple(sorted(known[0])), dirs=tuple(sorted(known[1])))
            return made
        path = self.abs(rel)
        if not os.path.isdir(path):
            return Listing(exists=False)
        if not self.inside(path):
            return Listing(exists=False, error="directory is a link that leaves the submission tree")
        try:
            names = sorted(os.listdir(path))
        except OSError as exc:
            return Listing(exists=True, error=f"cannot list directory: {exc.strerror or exc}")
        files, dirs = [], []
        for name in names:
            full = os.path.join(path, name)
            if os.path.isdir(full):
                dirs.append(name)
            elif os.path.isfile(full):
                files.append(name)
        return Listing(exists=True, files=tuple(files), dirs=tuple(dirs))

    def names(self, rel: str) -> tuple[str, ...] | None:
        """Every name in the folder ``rel`` (sorted) when the walk saw that it holds only plain files and
        folders; None when it did not (the caller lists it)."""
        known = self._known.get(rel)
        return None if known is None else tuple(sorted((*known[0], *known[1])))

    # is_dir, is_file, size and read_bytes answer from what the walk saw when it listed the folder holding
    # ``rel`` (a plain file, a folder, or nothing by that name), else ask the file system; each looks it up
    # itself (they are asked about every file of a tree, some several times)

    def is_dir(self, rel: str) -> bool:
        parent, _, name = rel.rpartition("/")
        known = self._known.get(parent) if parent else None
        if known is not None and name not in _SPECIAL_NAMES:
            return name in known[1]
        if parent and self._no_way_to(parent):
            return False
        path = self.abs(rel)
        return os.path.isdir(path) and self.inside(path)

    def is_file(self, rel: str) -> bool:
        parent, _, name = rel.rpartition("/")
        known = self._known.get(parent) if parent else None
        if known is not None and name not in _SPECIAL_NAMES:
            return name in known[0]
        if parent and self._no_way_to(parent):
            return False
        path = self.abs(rel)
        return os.path.isfile(path) and self.inside(path)

    def _no_way_to(self, folder: str) -> bool:
        """Whether the walk saw that the folder ``folder`` (relative, one the walk did not list) is not there:
        the nearest folder above it that the walk listed holds no folder by the next name on the way. (A
        result's compliance folder is asked about whether or not it exists: without this each absent one
        cost a stat and a realpath.) False where the walk cannot tell."""
        known = self._known
        parts = folder.split("/")
        for depth in range(len(parts) - 1, 0, -1):
            above = known.get("/".join(parts[:depth]))
            if above is not None:
                step = parts[depth]
                return step not in above[1] and step not in _SPECIAL_NAMES
        return False

    def files_in(self, rel: str) -> dict[str, int] | None:
        """Size of every plain file in the folder ``rel`` by its name, when the walk saw that the folder holds
        only plain files and folders; None when it did not (the caller asks the file system)."""
        known = self._known.get(rel)
        return None if known is None else known[0]

    def size(self, rel: str) -> int | None:
        parent, _, name = rel.rpartition("/")
        known = self._known.get(parent) if parent else None
        if known is not None:
            size = known[0].get(name)  # (a plain file's name: never "", "." or "..")
            if size is not None:
                return size
        try:
            return os.path.getsize(self.abs(rel))
        except OSError:
            return None

    def read_bytes(self, rel: str, limit: int = MAX_TEXT_BYTES) -> tuple[bytes | None, str | None]:
        parent, _, name = rel.rpartition("/")
        known = self._known.get(parent) if parent else None
        if known is not None and name not in _SPECIAL_NAMES:
            size = known[0].get(name)
            if size is None:
                return None, "not a regular file" if name in known[1] else "file is missing"
            path = self._prefix + rel if rel[0] != "/" else os.path.join(self.root, rel)  # (abs())
            if size > limit:
                return None, f"file is {size} bytes, larger than the {limit}-byte read limit"
            try:
                data = read_whole(path, size, limit)
            except OSError as exc:
                return None, f"cannot read file: {exc.strerror or exc}"
            if len(data) > limit:  # grew since the walk
                return None, f"file is at least {len(data)} bytes, larger than the {limit}-byte read limit"
            if self._digested and rel.startswith(self._digested):  # as open() would have kept it
                self.digests[rel] = hashlib.sha256(data).hexdigest()
            return data, None
        path = self.abs(rel)
        if not os.path.lexists(path):
            return None, "file is missing"
        if not self.inside(path):
            return None, "file is a link that leaves the submission tree"
        if not os.path.isfile(path):
            return None, "not a regular file"
        try:
            size = os.path.getsize(path)
            if size > limit:
                return None, f"file is {size} bytes, larger than the {limit}-byte read limit"
            with self.open(rel) as handle:
                return handle.read(), None
        except OSError as exc:
            return None, f"cannot read file: {exc.strerror or exc}"

    def read_text_bytes(self, rel: str, limit: int = MAX_TEXT_BYTES) -> tuple[bytes | None, str | None]:
        """The bytes of a file ``read_text`` would read (a text file: no NUL in its first 64 KiB), for
        parsers that work on bytes and decode only what they keep."""
        raw, error = self.read_bytes(rel, limit)
        if raw is not None and raw.find(b"\x00", 0, 65536) >= 0:  # (find: no copy of the first 64 KiB)
            return None, "file is binary (contains NUL bytes)"
        return raw, error

    def read_text(self, rel: str, limit: int = MAX_TEXT_BYTES) -> tuple[str | None, str | None]:
        raw, error = self.read_text_bytes(rel, limit)
        return (None, error) if raw is None else (raw.decode("utf-8", errors="replace"), None)

    def read_json(self, rel: str, limit: int = 4 * 1024 * 1024) -> tuple[object, str | None]:
        value, error, _ = self.read_json_keys(rel, limit)
        return value, error

    def read_json_keys(self, rel: str, limit: int = 4 * 1024 * 1024
                       ) -> tuple[object, str | None, tuple[DuplicateKey, ...]]:
        """``read_json`` plus the keys written twice in the file."""
        text, error = self.read_text(rel, limit)
        if text is None:
            return None, error, ()
        return parse_json_keys(text)


def _depth(value: object, limit: int) -> int:
    stack = [(value, 1)]
    deepest = 0
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > limit:
            return depth
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def parse_json_text(text: str) -> tuple[object, str | None]:
    """JSON with excessive nesting rejected; a key written twice keeps its last value; never raises."""
    value, error, _ = parse_json_keys(text)
    return value, error


def parse_json_keys(text: str) -> tuple[object, str | None, tuple[DuplicateKey, ...]]:
    """``parse_json_text`` plus the keys written twice (``checker.loaders.json_keys``)."""
    found = json_shape(text) if json_shape is not None else None  # (unique keys, bracket depth), or None
    try:
        value, duplicates = loads_recording(text, unique=found is not None and found[0])
    except RecursionError:
        return None, f"JSON nesting deeper than {MAX_JSON_DEPTH} levels", ()
    except ValueError as exc:
        return None, f"invalid JSON: {exc}", ()
    # a value nests at most one level deeper than its containers, each of which is a bracket of the text:
    # with fewer brackets than the limit (or brackets nesting less deep) the walk over the value cannot find
    # it too deep
    if ((found[1] if found is not None else text.count("{") + text.count("[")) >= MAX_JSON_DEPTH
            and _depth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH):
        return None, f"JSON nesting deeper than {MAX_JSON_DEPTH} levels", ()
    return value, None, duplicates


def not_a_folder(path: str) -> str:
    """The usage error for a ``path`` that should be a folder: missing, or something else."""
    if not os.path.lexists(path):
        return f"{path}: no such file or directory"
    if os.path.islink(path) and not os.path.exists(path):
        return f"{path}: a broken symbolic link"
    return f"{path}: not a directory"
