"""Copy submission trees safely, for commands that write a new tree (``mlpc truncate``, ``mlpc infer``),
and compare copied result folders (the load stage compares an inferred result's folder with its source's,
:mod:`checker.loaders.inferred_copy`).

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
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from checker.diagnostics import MlpcError
from checker.loaders.accuracy_log import VIEWABLE_CHARS, sha256_file, truncate_accuracy_log

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
            try:
                mode = os.lstat(full).st_mode
            except OSError:
                continue
            # a plain file is inside the tree when its folder is (checked above); a link is resolved
            if stat.S_ISREG(mode) or (stat.S_ISLNK(mode) and os.path.isfile(full) and _inside(root_real, full)):
                found[os.path.relpath(full, base).replace(os.sep, "/")] = full
    return found


def _same(digests: dict[str, str], a: tuple[str, str, int], b: tuple[str, str, int]) -> bool:
    """Two files (relative path, absolute path, size) hold the same bytes: equal sizes and sha256 (the one kept
    in ``digests`` when the file was read already, else the file's, read here and kept there)."""
    if a[2] != b[2]:
        return False
    for rel, path, _ in (a, b):
        if rel not in digests:
            digests[rel] = sha256_file(path)
    return digests[a[0]] == digests[b[0]]


def _sized(root: str, rel: str, root_real: str, listed) -> dict[str, tuple[str, int]]:
    """Sub-path -> (absolute path, size) of the regular files below ``root/rel``: from ``listed(rel)`` (what a
    walk of the tree saw, when it saw every folder below ``rel`` plain) or else walked here."""
    sizes = listed(rel) if listed is not None else None
    if sizes is not None:
        base = os.path.join(root, rel)
        return {sub: (os.path.join(base, *sub.split("/")), size) for sub, size in sizes.items()}
    return {sub: (path, os.path.getsize(path)) for sub, path in _files_below(root, rel, root_real).items()}


def compare_folders(root: str, source_rel: str, copy_rel: str, digests: dict[str, str],
                    listed=None) -> CopyComparison:
    """Compare two folders of one submission tree file by file (streaming; never raises). ``digests``: the
    sha256 of the files read already, by path relative to ``root`` (the load stage's: no file it read is
    opened again); the files it did not read are hashed here and added. ``listed``: the files below a folder
    with their sizes as a walk of the tree saw them (``Sandbox.files_below``), or None where it did not."""
    root = os.path.abspath(root)
    root_real = os.path.realpath(root)
    try:
        source = _sized(root, source_rel, root_real, listed)
        copy = _sized(root, copy_rel, root_real, listed)
        differ = tuple(sorted(p for p in source.keys() & copy.keys()
                              if not _same(digests, (f"{source_rel}/{p}", *source[p]), (f"{copy_rel}/{p}", *copy[p]))))
    except (OSError, TreeWriteError) as exc:
        return CopyComparison(error=str(getattr(exc, "strerror", None) or exc))
    return CopyComparison(missing=tuple(sorted(source.keys() - copy.keys())),
                          extra=tuple(sorted(copy.keys() - source.keys())), differ=differ)


# ------------------------------------------------------------------------------------- writing


@dataclass
class Staging:
    """A destination being written: all writes go below ``path`` until :meth:`commit`.

    As a context manager it commits when the block ends normally and removes everything it wrote
    when the block raises; a file-system error becomes a TreeWriteError ("nothing written")."""

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
        import shutil  # (imported where a tree is written: a check only compares folders)

        shutil.copystat(src_abs, dst, follow_symlinks=False)
        self.files += 1

    def write_bytes(self, rel: str, data: bytes, like: str | None = None) -> None:
        dst = self.abs(rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as fout:
            fout.write(data)
        if like is not None:
            import shutil

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
        import shutil

        shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self) -> "Staging":
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if kind is None:
            self.commit()
            return
        self.abort()
        if issubclass(kind, OSError):
            raise TreeWriteError(f"writing failed, nothing written: {exc}") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_destination(source: str, dest: str) -> tuple[str, str]:
    """Validate a (source, destination) pair; returns both as absolute paths. Raises TreeWriteError."""
    source = os.path.abspath(source)
    dest = os.path.abspath(dest)
    if not os.path.isdir(source):
        from checker.loaders.fs import not_a_folder

        raise TreeWriteError(not_a_folder(source))
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
    import tempfile

    source, dest = check_destination(source, dest)
    try:
        path = tempfile.mkdtemp(prefix=f".{os.path.basename(dest)}.", suffix=".partial", dir=os.path.dirname(dest))
    except OSError as exc:
        raise TreeWriteError(f"cannot write next to {dest}: {exc.strerror or exc}") from None
    return Staging(source=source, dest=dest, path=path)


# ------------------------------------------------------------------------------------ truncation

#: truncate_accuracy_log.py leaves a log alone when accuracy.txt already has a hash and the log is
#: smaller than this (its MAX_ACCURACY_LOG_SIZE, the same in every round so far).
ALREADY_TRUNCATED_BELOW = 10 * 1024
_HASH_LINE = re.compile(rb"^hash=[\w\d]+\r?$", re.MULTILINE)


@dataclass(frozen=True)
class TruncateItem:
    """One accuracy folder the official truncation walks, and what happens to it."""

    accuracy_rel: str  # .../accuracy
    action: str  # "truncate", "hash" (small log: unchanged, hash appended), "keep" (already done), "skip", "error"
    log_size: int | None = None
    detail: str = ""

    @property
    def log_rel(self) -> str:
        return f"{self.accuracy_rel}/mlperf_log_accuracy.json"

    @property
    def txt_rel(self) -> str:
        return f"{self.accuracy_rel}/accuracy.txt"


def _is_truncation_folder(rel: str) -> bool:
    """``results/<sys>/<model>/<scenario>/accuracy`` or ``compliance/<sys>/<model>/<scenario>/TEST01/accuracy``
    (the folders truncate_accuracy_log.py processes), at any depth below the given source."""
    parts = rel.split("/")
    if parts[-1] != "accuracy":
        return False
    if len(parts) >= 5 and parts[-5] == "results":
        return True
    return len(parts) >= 6 and parts[-6] == "compliance" and parts[-2] == "TEST01"


def _resolved_file(source: str, rel: str) -> tuple[str | None, str | None]:
    """Absolute path of a regular file inside the source (links followed only inside it), or an error."""
    path = os.path.join(source, rel)
    if not os.path.lexists(path):
        return None, None
    real_source = os.path.realpath(source)
    if not _inside(real_source, path):
        return None, "a link that leaves the source tree"
    if not os.path.isfile(path):
        return None, "not a regular file"
    return path, None


def plan_truncation(source: str) -> list[TruncateItem]:
    """What ``mlpc truncate`` does to each accuracy folder of ``source`` (reads only accuracy.txt)."""
    source = os.path.abspath(source)
    items = []
    for entry in walk(source):
        if entry.kind != "dir" or not _is_truncation_folder(entry.rel):
            continue
        log_path, log_error = _resolved_file(source, f"{entry.rel}/mlperf_log_accuracy.json")
        if log_error:
            items.append(TruncateItem(entry.rel, "error", None, f"mlperf_log_accuracy.json is {log_error}"))
            continue
        if log_path is None:
            items.append(TruncateItem(entry.rel, "skip", None, "no mlperf_log_accuracy.json"))
            continue
        size = os.path.getsize(log_path)
        txt_path, txt_error = _resolved_file(source, f"{entry.rel}/accuracy.txt")
        if txt_error:
            items.append(TruncateItem(entry.rel, "error", size, f"accuracy.txt is {txt_error}"))
            continue
        has_hash = False
        if txt_path is not None:
            if os.path.getsize(txt_path) > 64 * 1024 * 1024:
                items.append(TruncateItem(entry.rel, "error", size, "accuracy.txt is larger than 64 MiB"))
                continue
            with open(txt_path, "rb") as handle:
                has_hash = _HASH_LINE.search(handle.read()) is not None
        if has_hash and size < ALREADY_TRUNCATED_BELOW:
            items.append(TruncateItem(entry.rel, "keep", size, "already has hash= and a log under 10240 bytes"))
        elif size < VIEWABLE_CHARS:
            items.append(TruncateItem(entry.rel, "hash", size, "log under 4096 bytes: kept whole, hash appended"))
        else:
            items.append(TruncateItem(entry.rel, "truncate", size,
                                      "hash= appended again (accuracy.txt had one)" if has_hash else ""))
    return items


@dataclass(frozen=True)
class TruncateOutcome:
    """What truncating one accuracy log did: its digest and its new size."""

    item: TruncateItem
    digest: str | None = None
    new_size: int | None = None
    error: str | None = None


def apply_truncation(staging: Staging, items: list[TruncateItem],
                     progress: Callable[[int, int, TruncateOutcome], None] | None = None) -> list[TruncateOutcome]:
    """Copy the source into ``staging`` with every planned log truncated and its hash appended to
    accuracy.txt (official-checker.md F). Streaming: the full log is only hashed and its two ends read."""
    work = [i for i in items if i.action in ("truncate", "hash")]
    replaced = {i.log_rel for i in work} | {i.txt_rel for i in work}
    staging.copy_tree(skip=lambda entry: entry.rel in replaced)
    outcomes = []
    for number, item in enumerate(work, start=1):
        log_src = os.path.join(staging.source, item.log_rel)
        log_dst = staging.abs(item.log_rel)
        try:
            os.makedirs(os.path.dirname(log_dst), exist_ok=True)
            digest = truncate_accuracy_log(log_src, log_dst)
            txt_src = os.path.join(staging.source, item.txt_rel)
            original = b""
            if os.path.isfile(txt_src):
                with open(txt_src, "rb") as handle:
                    original = handle.read()
            staging.write_bytes(item.txt_rel, original + f"\nhash={digest}\n".encode("ascii"),
                                like=txt_src if os.path.isfile(txt_src) else None)
            import shutil

            shutil.copymode(log_src, log_dst)
            staging.files += 1  # the log
            outcome = TruncateOutcome(item, digest, os.path.getsize(log_dst))
        except (OSError, ValueError) as exc:  # AccuracyLogError is a ValueError
            outcome = TruncateOutcome(item, error=str(getattr(exc, "strerror", None) or exc))
        outcomes.append(outcome)
        if progress:
            progress(number, len(work), outcome)
    return outcomes


# ------------------------------------------------------------------------------------ inference

INFER_KINDS = ("results", "measurements", "compliance")


@dataclass
class SubmitterLayout:
    """What ``mlpc infer`` needs to know about one submitter folder of the source (paths relative to it)."""

    rel: str  # the submitter folder relative to the source ("" when the source is that folder)
    division: str
    system_types: dict[str, str | None] = field(default_factory=dict)  # system -> system_type (None: unreadable)
    model_mapping: dict[str, str] | None = None
    # kind -> system -> model -> scenario folder names
    folders: dict[str, dict[str, dict[str, tuple[str, ...]]]] = field(default_factory=dict)


def _subdirs(path: str, root_real: str | None = None) -> tuple[str, ...]:
    """Sub-folders, links to folders inside the tree included (they exist for the planner; copying
    never enters them). Links that leave the tree are ignored."""
    try:
        with os.scandir(path) as entries:
            return tuple(sorted(e.name for e in entries if e.is_dir() and (
                not e.is_symlink() or (root_real is not None and _inside(root_real, e.path)))))
    except OSError:
        return ()


def _json_object(path: str) -> dict | None:
    from checker.loaders.fs import parse_json_text

    try:
        if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) > 4 * 1024 * 1024:
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            value, error = parse_json_text(handle.read())
    except OSError:
        return None
    return value if error is None and isinstance(value, dict) else None


def describe_submitters(source: str, divisions: list[str]) -> list[SubmitterLayout]:
    """The submitter folders of a submission root, a division folder or one submitter folder."""
    source = os.path.abspath(source)
    real = os.path.realpath(source)
    found: list[tuple[str, str]] = []  # (rel, division)
    if os.path.isdir(os.path.join(source, "results")):
        found.append(("", os.path.basename(os.path.dirname(source))))
    elif os.path.basename(source) in divisions:
        found += [(sub, os.path.basename(source)) for sub in _subdirs(source)]
    else:
        for division in divisions:
            found += [(f"{division}/{sub}", division) for sub in _subdirs(os.path.join(source, division))]
    layouts = []
    for rel, division in found:
        base = os.path.join(source, rel) if rel else source
        if not os.path.isdir(os.path.join(base, "results")):
            continue
        layout = SubmitterLayout(rel=rel, division=division)
        mapping = _json_object(os.path.join(base, "model_mapping.json")) if division == "open" else None
        if mapping and all(isinstance(v, str) for v in mapping.values()):
            layout.model_mapping = mapping
        for kind in INFER_KINDS:
            systems = {}
            for system in _subdirs(os.path.join(base, kind), real):
                systems[system] = {model: _subdirs(os.path.join(base, kind, system, model), real)
                                   for model in _subdirs(os.path.join(base, kind, system), real)}
            layout.folders[kind] = systems
        for system in layout.folders["results"]:
            data = _json_object(os.path.join(base, "systems", f"{system}.json"))
            value = (data or {}).get("system_type")
            layout.system_types[system] = value if isinstance(value, str) else None
        layouts.append(layout)
    return layouts
