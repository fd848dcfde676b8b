"""Copy submission trees safely, for commands that write a new tree (``mlpc truncate``, ``mlpc infer``),
and compare copied result folders (for the inferred-result check).

Rules every writer here follows (DESIGN.md, non-negotiables):

* the source tree is only read; the destination must not exist and must not lie inside the source;
* everything is written into a staging folder next to the destination (``.<name>.<random>.partial``)
  and renamed to the destination at the very end, so a crash or an error leaves no half-written tree;
* files are copied in 1 MiB blocks (constant memory whatever their size);
* symbolic links are copied as links, never followed (a link that leaves the tree stays a link for the
  checker to report); sockets, FIFOs and device files are skipped and reported, never opened.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from checker.diagnostics import MlpcError

CHUNK = 1 << 20


class TreeWriteError(MlpcError):
    """The destination cannot be written (exists, inside the source, parent missing, I/O error)."""


# ------------------------------------------------------------------------------------------ listing


@dataclass(frozen=True)
class Entry:
    """One entry of a source tree, relative to its root (``/`` separators)."""

    rel: str
    kind: str  # "dir", "file", "link", "special"
    size: int = 0


def walk(root: str) -> Iterator[Entry]:
    """Every entry under ``root`` in a stable order (parents before children), without following links."""
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        path = os.path.join(root, rel_dir) if rel_dir else root
        try:
            with os.scandir(path) as entries:
                items = sorted(entries, key=lambda e: e.name)
        except OSError as exc:
            raise TreeWriteError(f"cannot list {path}: {exc.strerror or exc}") from None
        subdirs = []
        for item in items:
            rel = f"{rel_dir}/{item.name}" if rel_dir else item.name
            try:
                st = item.stat(follow_symlinks=False)
            except OSError as exc:
                raise TreeWriteError(f"cannot read {item.path}: {exc.strerror or exc}") from None
            if stat.S_ISLNK(st.st_mode):
                yield Entry(rel, "link")
            elif stat.S_ISDIR(st.st_mode):
                yield Entry(rel, "dir")
                subdirs.append(rel)
            elif stat.S_ISREG(st.st_mode):
                yield Entry(rel, "file", st.st_size)
            else:
                yield Entry(rel, "special")
        stack.extend(reversed(subdirs))


def scenario_dirs(root: str, model_rel: str) -> tuple[str, ...]:
    """Names of the folders directly under ``root/model_rel`` (links to folders included)."""
    path = os.path.join(root, model_rel)
    try:
        return tuple(sorted(n for n in os.listdir(path) if os.path.isdir(os.path.join(path, n))))
    except OSError:
        return ()


# ------------------------------------------------------------------------------------ comparing


@dataclass(frozen=True)
class CopyComparison:
    """How a copied folder differs from its source: relative file paths (below the two folders)."""

    missing: tuple[str, ...] = ()  # in the source, not in the copy
    extra: tuple[str, ...] = ()  # in the copy, not in the source
    differ: tuple[str, ...] = ()  # in both, different bytes
    error: str | None = None

    @property
    def identical(self) -> bool:
        return not (self.missing or self.extra or self.differ or self.error)


def _inside(root_real: str, path: str) -> bool:
    real = os.path.realpath(path)
    return real == root_real or real.startswith(root_real + os.sep)


def _files_below(root: str, rel: str, root_real: str) -> dict[str, str]:
    """Regular files below ``root/rel`` (following links that stay inside the tree): sub-path -> abs path."""
    base = os.path.join(root, rel)
    if not _inside(root_real, base):
        raise TreeWriteError(f"{rel} is a link that leaves the submission tree")
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(base, followlinks=True):
        if not _inside(root_real, dirpath):
            dirnames[:] = []
            continue
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            if os.path.isfile(full) and _inside(root_real, full):
                found[os.path.relpath(full, base).replace(os.sep, "/")] = full
    return found


def _same_bytes(a: str, b: str) -> bool:
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            ca, cb = fa.read(CHUNK), fb.read(CHUNK)
            if ca != cb:
                return False
            if not ca:
                return True


def compare_folders(root: str, source_rel: str, copy_rel: str) -> CopyComparison:
    """Compare two folders of one submission tree file by file (streaming; never raises)."""
    root = os.path.abspath(root)
    root_real = os.path.realpath(root)
    try:
        source = _files_below(root, source_rel, root_real)
        copy = _files_below(root, copy_rel, root_real)
        differ = tuple(sorted(p for p in source.keys() & copy.keys() if not _same_bytes(source[p], copy[p])))
    except (OSError, TreeWriteError) as exc:
        return CopyComparison(error=str(getattr(exc, "strerror", None) or exc))
    return CopyComparison(missing=tuple(sorted(source.keys() - copy.keys())),
                          extra=tuple(sorted(copy.keys() - source.keys())), differ=differ)


# ------------------------------------------------------------------------------------- writing


@dataclass
class Staging:
    """A destination being written: all writes go below ``path`` until :meth:`commit`."""

    source: str
    dest: str
    path: str
    skipped: list[str] = field(default_factory=list)  # special files not copied
    files: int = 0
    bytes: int = 0

    def abs(self, rel: str) -> str:
        return os.path.join(self.path, rel)

    def copy_file(self, src_abs: str, rel: str) -> None:
        """Copy one regular file in blocks, keeping its permission bits and times."""
        dst = self.abs(rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(src_abs, "rb") as fin, open(dst, "xb") as fout:
            while chunk := fin.read(CHUNK):
                fout.write(chunk)
                self.bytes += len(chunk)
        shutil.copystat(src_abs, dst, follow_symlinks=False)
        self.files += 1

    def write_bytes(self, rel: str, data: bytes, like: str | None = None) -> None:
        dst = self.abs(rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as fout:
            fout.write(data)
        if like is not None:
            shutil.copymode(like, dst)
        self.files += 1
        self.bytes += len(data)

    def copy_link(self, src_abs: str, rel: str) -> None:
        dst = self.abs(rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        os.symlink(os.readlink(src_abs), dst)

    def make_dir(self, rel: str) -> None:
        os.makedirs(self.abs(rel), exist_ok=True)

    def copy_tree(self, skip: Callable[[Entry], bool] = lambda entry: False,
                  progress: Callable[[Entry], None] | None = None) -> None:
        """Copy the whole source into the staging folder, except entries for which ``skip`` is true
        (the caller writes those itself)."""
        for entry in walk(self.source):
            if skip(entry):
                continue
            src = os.path.join(self.source, entry.rel)
            if entry.kind == "dir":
                self.make_dir(entry.rel)  # folders get default permissions (a read-only source stays usable)
            elif entry.kind == "link":
                self.copy_link(src, entry.rel)
            elif entry.kind == "file":
                self.copy_file(src, entry.rel)
                if progress:
                    progress(entry)
            else:
                self.skipped.append(entry.rel)

    def copy_subtree(self, src_rel: str, dst_rel: str) -> int:
        """Copy the folder ``src_rel`` of the *staged* tree to ``dst_rel`` (links kept as links);
        returns the number of files copied."""
        before = self.files
        base = self.abs(src_rel)
        self.make_dir(dst_rel)
        for entry in walk(base):
            src = os.path.join(base, entry.rel)
            rel = f"{dst_rel}/{entry.rel}"
            if entry.kind == "dir":
                self.make_dir(rel)
            elif entry.kind == "link":
                self.copy_link(src, rel)
            elif entry.kind == "file":
                self.copy_file(src, rel)
        return self.files - before

    def commit(self) -> None:
        """Make the destination appear at once (rename of the staging folder)."""
        if os.path.lexists(self.dest):
            self.abort()
            raise TreeWriteError(f"{self.dest} appeared while writing; nothing was written there")
        try:
            os.chmod(self.path, 0o777 & ~_umask())  # mkdtemp made it private; the tree is the user's
            os.rename(self.path, self.dest)
        except OSError as exc:
            self.abort()
            raise TreeWriteError(f"cannot create {self.dest}: {exc.strerror or exc}") from None

    def abort(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_destination(source: str, dest: str) -> tuple[str, str]:
    """Validate a (source, destination) pair; returns both as absolute paths. Raises TreeWriteError."""
    source = os.path.abspath(source)
    dest = os.path.abspath(dest)
    if not os.path.isdir(source):
        raise TreeWriteError(f"{source}: not a directory")
    if os.path.lexists(dest):
        raise TreeWriteError(f"{dest} already exists; choose a new output folder (it is never overwritten)")
    real_source = os.path.realpath(source)
    real_dest_parent = os.path.realpath(os.path.dirname(dest))
    if real_dest_parent == real_source or real_dest_parent.startswith(real_source + os.sep):
        raise TreeWriteError(f"{dest} lies inside the source tree {source}; the source is never modified")
    if not os.path.isdir(os.path.dirname(dest)):
        raise TreeWriteError(f"the parent folder of {dest} does not exist")
    return source, dest


def open_staging(source: str, dest: str) -> Staging:
    """Check the pair and create the staging folder next to the destination."""
    source, dest = check_destination(source, dest)
    try:
        path = tempfile.mkdtemp(prefix=f".{os.path.basename(dest)}.", suffix=".partial", dir=os.path.dirname(dest))
    except OSError as exc:
        raise TreeWriteError(f"cannot write next to {dest}: {exc.strerror or exc}") from None
    return Staging(source=source, dest=dest, path=path)
