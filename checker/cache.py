"""Incremental checking: a content-keyed store of check outputs, so a re-check redoes only what changed.

Four kinds of entries. Outputs are keyed by digests of file *contents*, never by timestamps alone
(the quick pointers below only lead to such a key):

* **unit** (one ``<division>/<submitter>`` folder): the key covers every entry below the folder
  (names, kinds, sizes, content digests, link targets, whether a link leaves the tree). A hit returns
  the unit's findings and result summaries as they were, without reading or parsing anything else.
* **result** (used when the unit key missed): the key covers what one result reads — the results
  folder of its model (its own scenario folder and the ones next to it, since an inferred result is
  compared with its source scenario), its measurements and compliance folders, the files directly in
  the measurement folder's three parents (power measurement files), its system description, and
  where its code folder resolves to. A change re-checks the results of one model, not one result.
  A hit returns the result's own (result-scope) findings; submitter, system and model checks and the
  result summaries are recomputed from the freshly loaded tree (they are cheap).
* **round**: the findings of the round-scope checks (which compare results with each other), keyed
  by every field of every result summary (through a digest of each unit's summaries, kept in its
  unit entry).
* **quick**: a pointer from the stat fields of a unit's folders and files (names, modes, sizes, mtimes,
  ctimes, inodes) to the unit key computed from that same state, so that an unchanged unit is found
  without opening its digest memo or building its key; the same trust in stat fields as the digest memo.
  The **stats** entry under the same key names those folders and files (``outline``), so that their
  stat fields can be read again (``restat``) and the key computed again without walking the folders.
* **trees** (``checker.warm``): what a whole check of one tree needs besides its units' entries — the
  round and the reason it was chosen, the salt, the root and division findings, the units with their
  stat keys, and the stat fields of the folders and files outside the units — found by the tree's path,
  the checker fingerprint, ``--round`` and the profile, so that a re-check of an unchanged tree is
  answered by comparing stat fields and loading entries, without importing the checks.

Every key also holds a *salt*: the cache format, the mlpc version, a digest of the checker's source
code, the round's data files (``rules/``, ``audits/``), the profile and the set of checks. Changing any
of them invalidates everything.

File digests are memoised per submitter folder by (path, size, mtime_ns, ctime_ns, inode, device);
a file changed less than two seconds before a scan is hashed but not memoised (a second change in
the same clock tick could otherwise go unseen).

Storage: ``<cache dir>/v3/entries/<salt>/{units,results,rounds,quick,stats}/<ab>/<key>``,
``v3/trees/<ab>/<key>`` and ``v3/digests/<ab>/<folder>``; only the four most recently used salts are kept, so old versions of the
tool do not pile up. Each file is a header line holding a sha256 of its body, then the body: a pickle
that is loaded with an allow-list of classes (findings, locations, severities, result summaries,
decimals) and is only written after it loads back with that allow-list. The checksum is verified on
every load; a damaged, truncated or unreadable entry is a miss plus a warning (reported by the engine
as ``TL004 cache-unusable``), never a wrong verdict. Writes go to a temporary file in the same folder
followed by an atomic rename.

This module reads the input tree only to hash it (read-only) and writes only inside the cache
directory, which must lie outside the tree being checked.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import pickle
import shutil
import stat
from stat import S_ISLNK, S_ISREG
import tempfile
import time
from bisect import bisect_left
from decimal import Decimal
from typing import Any

from checker.atomic_file import replace_file
from checker.loaders import fingerprint
from checker.diagnostics import Finding, Location, Severity
from checker.report import ResultSummary

FORMAT = 3  # 3: file contents digested with BLAKE3 (DIGEST_NAME)
MAGIC = b"mlpc-cache"
RACY_NS = 2_000_000_000  # files changed this recently are hashed, not memoised
MAX_SCAN_ENTRIES = 2_000_000  # a unit with more entries (or a link maze) is not cached
MAX_LINK_DEPTH = 40
CHUNK = 1024 * 1024
SALT_CHARS = 16  # entries live under the first characters of their salt ...
KEEP_SALTS = 4  # ... and only the most recently used salts are kept
MEMO_DAYS = 30  # digest memos not written for this long are removed


class Uncacheable(Exception):
    """A value the cache cannot store exactly; the caller simply does not cache it."""


# --------------------------------------------------------------------------------------------------
# exact storage of findings and result summaries: pickle, loaded with an allow-list of classes

_ALLOWED = {
    ("checker.diagnostics", "Finding"): Finding,
    ("checker.diagnostics", "Location"): Location,
    ("checker.diagnostics", "Severity"): Severity,
    ("checker.report", "ResultSummary"): ResultSummary,
    ("decimal", "Decimal"): Decimal,
}


class _Unpickler(pickle.Unpickler):
    """Builds only plain values and the classes above; any other global is refused."""

    def find_class(self, module: str, name: str):
        found = _ALLOWED.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")
        return found


def _loads(raw: bytes) -> Any:
    return _Unpickler(io.BytesIO(raw)).load()


def exact_dumps(value: Any) -> bytes:
    """The stored form of ``value``; raises :class:`Uncacheable` unless it loads back with the
    allow-list. (Pickle rebuilds the allowed types exactly: plain values, tuples and lists, enums,
    decimals and frozen dataclasses by their fields; tests/cache holds it to that.)"""
    try:
        raw = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        _loads(raw)
    except (pickle.PicklingError, pickle.UnpicklingError, TypeError, AttributeError, RecursionError) as exc:
        raise Uncacheable(str(exc)) from None
    return raw


# --------------------------------------------------------------------------------------------------
# the salt: everything besides the tree's files that decides a check's output

def cache_salt(round_name: str, profile: str, overrides: tuple, check_codes: tuple[str, ...]) -> str:
    """Digest of the tool (its version, source and data files: the checker fingerprint), the cache
    format, the round, the profile and the checks run."""
    parts = [f"format={FORMAT}", f"digest={DIGEST_NAME}", f"checker={fingerprint.checker_fingerprint()}",
             f"round={round_name}", f"profile={profile}", f"overrides={sorted(overrides)!r}",
             f"checks={','.join(check_codes)}"]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def open_cache(use: bool, directory: str | None, persist_memo: bool = True) -> "ResultCache | None":
    """The cache a command's options ask for: None with --no-cache, else the --cache-dir folder or
    the default one (``persist_memo``: off for throw-away trees such as --git-ref checkouts)."""
    return ResultCache(directory or default_cache_dir(), persist_memo=persist_memo) if use else None


def default_cache_dir() -> str:
    """``$MLPC_CACHE_DIR``, else ``$XDG_CACHE_HOME/mlpc``, else ``~/.cache/mlpc``."""
    explicit = os.environ.get("MLPC_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mlpc")


# --------------------------------------------------------------------------------------------------
# sealed files: a header line with the body's sha256, then the body

def _seal(body: bytes) -> bytes:
    return MAGIC + b" %d " % FORMAT + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _unseal(raw: bytes) -> bytes | None:
    head, sep, body = raw.partition(b"\n")
    parts = head.split(b" ")
    if not sep or len(parts) != 3 or parts[0] != MAGIC or parts[1] != b"%d" % FORMAT:
        return None
    return body if hashlib.sha256(body).hexdigest().encode() == parts[2] else None


_FOLDERS_MADE: set[str] = set()  # entry folders known to exist (one makedirs per folder and process)


def _atomic_write(path: str, data: bytes) -> None:
    """Replace ``path`` whole (``atomic_file.replace_file``), private to the user."""
    folder = os.path.dirname(path)
    if folder not in _FOLDERS_MADE:
        os.makedirs(folder, exist_ok=True)
        _FOLDERS_MADE.add(folder)
    try:
        replace_file(path, data, 0o600)
    except FileNotFoundError:  # the folder was removed since (pruned by another run): make it again
        os.makedirs(folder, exist_ok=True)
        replace_file(path, data, 0o600)


try:  # BLAKE3: a cryptographic hash at 1-3 GB/s here, 4-10x hashlib's sha256 or BLAKE2b on this VM
    from blake3 import blake3 as _file_hash

    DIGEST_NAME = "blake3"
except ImportError:  # (a dependency; kept working without it, under its own cache namespace)
    _file_hash = hashlib.blake2b
    DIGEST_NAME = "blake2b"


def _content_digest(path: str) -> str:
    """The digest of a file's bytes, read into one reused buffer (``read(n)`` would allocate ``n`` bytes
    for every file, a page-fault storm over tens of thousands of small files; and the file is not
    mapped: one truncated while it is read must not crash the process)."""
    digest = _file_hash()
    view = _BUFFER[0]
    with open(path, "rb", buffering=0) as handle:
        while True:
            size = handle.readinto(view)
            if not size:
                return digest.hexdigest()
            digest.update(view[:size])


_BUFFER = [memoryview(bytearray(CHUNK))]


# --------------------------------------------------------------------------------------------------
# file digests and the scan of one submitter folder

class DigestMemo:
    """Content digests of files, remembered per (path, size, mtime_ns, ctime_ns, inode, device)."""

    def __init__(self, path: str | None, warn):
        self.path = path
        self.old: dict[str, list] = {}
        self.new: dict[str, list] = {}
        self.now = time.time_ns()
        if path is None:
            return
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
        except FileNotFoundError:
            return
        except OSError as exc:
            warn(path, f"cannot read the digest memo ({exc.strerror or exc}); files are hashed again")
            return
        body = _unseal(raw)
        try:
            data = _loads(body) if body is not None else None
        except Exception:  # damaged: unpickling garbage can raise nearly anything
            data = None
        if not isinstance(data, dict):
            warn(path, "the digest memo is damaged (checksum mismatch or truncated); files are hashed again")
            return
        self.old = data

    def digest(self, rel: str, path: str, st: os.stat_result) -> str:
        old = self.old.get(rel)
        if old is not None and old[0] == st.st_size and old[1] == st.st_mtime_ns and old[2] == st.st_ctime_ns \
                and old[3] == st.st_ino and old[4] == st.st_dev:
            self.new[rel] = old
            return old[5]
        sig = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
        hexdigest = _content_digest(path)
        if max(st.st_mtime_ns, st.st_ctime_ns) < self.now - RACY_NS:
            self.new[rel] = sig + [hexdigest]
        return hexdigest

    def save(self, warn) -> None:
        if self.path is None or self.new == self.old:
            return
        try:
            _atomic_write(self.path, _seal(pickle.dumps(self.new, protocol=pickle.HIGHEST_PROTOCOL)))
        except OSError as exc:
            warn(self.path, f"cannot write the digest memo ({exc.strerror or exc})")


@dataclasses.dataclass
class Scan:
    """Every entry below one folder, by path relative to the submission root, in sorted order.

    Entry forms: ``("d",)`` folder, ``("f", size, sha256)`` file, ``("l", target, kind)`` a symbolic
    link (kind: ``d``/``f`` followed, ``out`` leaves the tree, ``broken``, ``loop``, ``other``), and
    ``("err", reason)`` for anything unreadable (which makes the entries that cover it uncacheable).
    """

    entries: dict[str, tuple]
    paths: list[str]
    complete: bool
    _children: dict[str, list[str]] | None = dataclasses.field(default=None, repr=False)

    def entry(self, rel: str) -> tuple | None:
        return self.entries.get(rel)

    def below(self, rel: str) -> list[tuple[str, tuple]]:
        """The entry of ``rel`` itself and of everything under it."""
        start = bisect_left(self.paths, rel + "/")
        end = bisect_left(self.paths, rel + "0")  # "0" sorts right after "/"
        found = [(rel, self.entries[rel])] if rel in self.entries else [(rel, ("missing",))]
        return found + [(p, self.entries[p]) for p in self.paths[start:end]]

    def files_in(self, rel: str) -> list[tuple[str, tuple]]:
        """The entries directly in folder ``rel`` (sub-folders as bare entries, not their content)."""
        if self._children is None:
            self._children = {}
            for path in self.paths:
                self._children.setdefault(path.rpartition("/")[0], []).append(path)
        return [(p, self.entries[p]) for p in self._children.get(rel, ())]


DIR = ("d",)


def scan(root: str, rel_dir: str, memo: DigestMemo) -> Scan:
    """Walk ``root/rel_dir`` (links inside the tree are followed, others recorded) and digest files."""
    root = os.path.abspath(root)
    real_root = os.path.realpath(root)
    entries: dict[str, tuple] = {}
    complete = True
    # (relative path, absolute path, real paths of the followed links leading here)
    stack: list[tuple[str, str, tuple[str, ...]]] = [(rel_dir, os.path.join(root, rel_dir), ())]
    if not os.path.isdir(stack[0][1]):
        return Scan({rel_dir: ("err", "not a folder")}, [rel_dir], False)
    entries[rel_dir] = DIR
    digest = memo.digest
    while stack:
        rel, path, chain = stack.pop()
        try:
            with os.scandir(path) as found:
                items = list(found)
        except OSError as exc:
            entries[rel] = ("err", exc.strerror or str(exc) or "error")
            complete = False
            continue
        if len(entries) + len(items) > MAX_SCAN_ENTRIES:
            return Scan(entries, sorted(entries), False)
        prefix = rel + "/"
        for item in items:
            child = prefix + item.name
            try:
                if item.is_dir(follow_symlinks=False):
                    entries[child] = DIR
                    stack.append((child, item.path, chain))
                    continue
                st = item.stat(follow_symlinks=False)
                if S_ISREG(st.st_mode):
                    entries[child] = ("f", st.st_size, digest(child, item.path, st))
                elif S_ISLNK(st.st_mode):
                    target = os.readlink(item.path)
                    real = os.path.realpath(item.path)
                    if not os.path.exists(item.path):
                        entries[child] = ("l", target, "broken")
                    elif not (real == real_root or real.startswith(real_root + os.sep)):
                        entries[child] = ("l", target, "out")
                    elif os.path.isdir(item.path):
                        if real in chain or len(chain) >= MAX_LINK_DEPTH or \
                                os.path.realpath(path).startswith(real + os.sep):
                            entries[child] = ("l", target, "loop")
                        else:
                            entries[child] = ("l", target, "d")
                            stack.append((child, item.path, chain + (real,)))
                    elif os.path.isfile(item.path):
                        target_st = os.stat(item.path)
                        entries[child] = ("l", target, "f", target_st.st_size, digest(child, item.path, target_st))
                    else:
                        entries[child] = ("l", target, "other")
                else:
                    entries[child] = ("other", stat.S_IFMT(st.st_mode))
            except OSError as exc:
                entries[child] = ("err", exc.strerror or str(exc) or "error")
                complete = False
    return Scan(entries, sorted(entries), complete)


def _fields(st: os.stat_result) -> tuple:
    return (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def stat_manifest(root: str, rel_dir: str = "", skip: frozenset = frozenset()) -> list | None:
    """The stat fields (mode, size, mtime, ctime, inode, device) of every folder and file below
    ``root/rel_dir``: one record ``(folder path, its fields, ((file name, its fields), ...))`` per folder,
    sub-folders listed by their own records. Folders whose path is in ``skip`` are left out whole.

    The record vouches for the folder's names as well as its files: creating, removing or renaming an
    entry changes the folder's mtime and ctime (POSIX), and no write leaves a file's ctime as it was. So
    when every recorded field still holds, nothing below the folder changed. None (nothing is vouched for)
    when the folder is or holds a link, a special file or an unreadable folder, or when a folder or file
    changed within the last RACY_NS (a second change in the same clock tick could go unseen)."""
    top = os.path.join(root, rel_dir) if rel_dir else root
    limit = time.time_ns() - RACY_NS
    manifest: list = []
    count = 0
    try:
        st = os.lstat(top)
        if not stat.S_ISDIR(st.st_mode) or st.st_mtime_ns > limit or st.st_ctime_ns > limit:
            return None
        stack = [(top, _fields(st))]
        while stack:
            folder, fields = stack.pop()
            files: list = []
            with os.scandir(folder) as found:
                for item in found:
                    st = item.stat(follow_symlinks=False)
                    if st.st_mtime_ns > limit or st.st_ctime_ns > limit:
                        return None
                    if item.is_dir(follow_symlinks=False):
                        if item.path not in skip:
                            stack.append((item.path, _fields(st)))
                    elif S_ISREG(st.st_mode):
                        files.append((item.name, _fields(st)))
                    else:
                        return None
            manifest.append((folder, fields, tuple(files)))
            count += len(files) + 1
            if count > MAX_SCAN_ENTRIES:  # checked once per folder
                return None
    except OSError:
        return None
    return manifest


def outline(manifest: list) -> list:
    """What a :func:`stat_manifest` names, without the stat fields: ``(folder path, (file name, ...))`` per
    folder, in its order (what is kept to look at the same folders and files again, with :func:`restat`)."""
    return [(folder, tuple(name for name, _ in files)) for folder, _, files in manifest]


def restat(names: list) -> list | None:
    """The :func:`stat_manifest` of the folders and files an :func:`outline` names, as they are now; None
    when one of them is gone or unreadable (or the outline is damaged). Equal to the manifest the outline
    was taken from exactly when none of them changed, and (by the folders' fields) none was added."""
    lstat = os.lstat
    manifest = []
    try:
        for folder, files in names:
            st = lstat(folder)
            prefix = folder + "/"
            found = []
            for name in files:
                item = lstat(prefix + name)
                found.append((name, (item.st_mode, item.st_size, item.st_mtime_ns, item.st_ctime_ns, item.st_ino,
                                     item.st_dev)))
            manifest.append((folder, (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev),
                             tuple(found)))
    except (OSError, TypeError, ValueError):
        return None
    return manifest


def manifest_digest(manifest: list) -> str:
    return hashlib.sha256(pickle.dumps(manifest, protocol=pickle.HIGHEST_PROTOCOL)).hexdigest()


def stat_key(salt: str, root: str, rel_dir: str, manifest: list | None = ...) -> str | None:
    """A key of the stat fields of everything below ``root/rel_dir`` (its :func:`stat_manifest`, computed
    here unless given): the cheap first look at a unit. It stands for the unit key computed from the same
    state (a "quick" entry points from one to the other), on the rule ``DigestMemo`` already follows:
    a file with the same stat fields holds what it held. None when the manifest is None."""
    if manifest is ...:
        manifest = stat_manifest(root, rel_dir)
    if manifest is None:
        return None
    return manifest_digest([salt, rel_dir, manifest])


def _digest(parts: list) -> str:
    """sha256 of a nest of lists, tuples, strings, numbers and None (``repr`` is exact and unambiguous
    for these, and escapes any odd character of a file name)."""
    return hashlib.sha256(repr(parts).encode("utf-8", errors="backslashreplace")).hexdigest()


def unit_key(salt: str, division: str, submitter: str, found: Scan) -> str | None:
    if not found.complete:
        return None
    # one record per entry, fields joined by NUL, records by two NULs: no path, link target or field
    # holds a NUL or is empty, so the text is unambiguous (and much faster to build than a repr)
    entries = found.entries
    records = ["\0".join(("unit", salt, division, submitter))]
    records += [p + "\0" + "\0".join(map(str, entries[p])) for p in found.paths]
    return hashlib.sha256("\0\0".join(records).encode("utf-8", errors="surrogatepass")).hexdigest()


def result_key(salt: str, found: Scan, result, ancestor_depth: int) -> str | None:
    """Key of everything one result reads (``result`` is its freshly loaded ``ResultCtx``), or None
    when something it reads could not be scanned."""
    # the whole results folder of the model, not only the result's own: an inferred result is compared
    # with its source scenario folder next to it (PF020), and the model's scenario list is read
    model_rel = result.rel.rsplit("/", 1)[0]
    meas = result.measurements.rel
    groups = [found.below(model_rel), found.below(meas), found.below(result.compliance_rel)]
    probe = meas
    for _ in range(ancestor_depth):  # power measurement files may sit in a parent folder
        probe = os.path.dirname(probe)
        groups.append(found.files_in(probe))
    groups.append([(result.system.rel, found.entry(result.system.rel) or ("missing",))])
    if any(entry[0] == "err" for group in groups for _, entry in group):
        return None
    # the code folder is only tested for existence; the loader's answer is exact
    code = [result.code_rel, result.code_exists]
    return _digest(["result", salt, result.rel, result.mlperf_model, result.scenario, groups, code])


def summaries_digest(summaries: list) -> str:
    """Digest of one unit's result summaries (every field, in ``repr``, which is exact for their strings,
    numbers and tuples); kept with the unit's entry."""
    return hashlib.sha256(repr(tuple(summaries)).encode("utf-8", errors="backslashreplace")).hexdigest()


def round_key(salt: str, summaries: tuple, unit_digests: list | None = None) -> str:
    """Key of the round-scope checks, which read nothing but the result summaries: built from the units'
    summary digests, in unit order, when every unit has one (cheap), else from the sorted summaries
    themselves."""
    if unit_digests and all(unit_digests):
        return hashlib.sha256("\0".join(["round-units", salt, *unit_digests]).encode()).hexdigest()
    return hashlib.sha256(repr(("round", salt, summaries)).encode("utf-8", errors="backslashreplace")).hexdigest()


# --------------------------------------------------------------------------------------------------
# the store

@dataclasses.dataclass
class CacheStats:
    units_reused: int = 0
    units_checked: int = 0
    results_reused: int = 0
    results_checked: int = 0
    checked: list[str] = dataclasses.field(default_factory=list)  # ids of results checked again

    def merge(self, other: "CacheStats") -> None:
        self.units_reused += other.units_reused
        self.units_checked += other.units_checked
        self.results_reused += other.results_reused
        self.results_checked += other.results_checked
        self.checked += other.checked


class ResultCache:
    """The on-disk store. Create it with a directory; the engine calls :meth:`prepare` with the salt.

    Problems never raise: they become :attr:`warnings` ((path, message) pairs) and the affected
    entry is treated as a miss. A directory that cannot be used disables the cache for the run.
    """

    def __init__(self, directory: str, salt: str = "", persist_memo: bool = True, usable: bool | None = None):
        self.directory = os.path.abspath(directory)
        self.salt = salt
        self.persist_memo = persist_memo
        self.usable = usable
        self.warnings: list[tuple[str, str]] = []
        self.stats = CacheStats()
        self._write_failed = False
        self.quick_keys: dict[str, str | None] = {}  # "<division>/<submitter>" -> its stat key, this run
        # units whose stat key the warm path (checker.warm) found unchanged: "<division>/<submitter>" -> (salt, key)
        self.known_keys: dict[str, tuple[str, str]] = {}

    # the parts a worker process needs to open the same cache
    def spec(self) -> tuple:
        return (self.directory, self.salt, self.persist_memo, self.usable)

    @classmethod
    def from_spec(cls, spec: tuple) -> "ResultCache":
        return cls(*spec)

    def warn(self, path: str, message: str) -> None:
        self.warnings.append((path, message))

    def prepare(self, salt: str, tree_root: str) -> bool:
        """Bind the salt and check the directory is usable (and not inside the checked tree)."""
        self.salt = salt
        base = os.path.join(self.directory, f"v{FORMAT}")
        real_tree = os.path.realpath(tree_root)
        real_dir = os.path.realpath(self.directory)
        if real_dir == real_tree or real_dir.startswith(real_tree + os.sep):
            self.warn(self.directory, "the cache directory lies inside the tree being checked; "
                      "checked without the cache (choose another --cache-dir)")
            self.usable = False
            return False
        try:
            os.makedirs(base, exist_ok=True)
            probe_fd, probe = tempfile.mkstemp(dir=base, prefix=".probe-")
            os.close(probe_fd)
            os.unlink(probe)
            os.listdir(base)
            mine = os.path.join(base, "entries", salt[:SALT_CHARS])
            os.makedirs(mine, exist_ok=True)
            os.utime(mine)  # the most recently used salts are kept
        except OSError as exc:
            self.warn(self.directory, f"cache directory cannot be used ({exc.strerror or exc}); "
                      "checked without the cache")
            self.usable = False
            return False
        self.usable = True
        self._prune(os.path.join(base, "entries"), os.path.join(base, "digests"), os.path.join(base, "trees"))
        return True

    def bind(self, salt: str) -> None:
        """Use the entries of ``salt`` in a folder that ``prepare`` found usable before (the warm path,
        ``checker.warm``, found its tree entry there), marking the salt as recently used."""
        self.salt, self.usable = salt, True
        try:
            os.utime(os.path.join(self.directory, f"v{FORMAT}", "entries", salt[:SALT_CHARS]))
        except OSError:
            pass

    @staticmethod
    def _prune(entries: str, *dated: str) -> None:
        """Keep the entries of the KEEP_SALTS most recently used salts (other mlpc versions, rules or
        profiles), and the digest memos and tree entries written in the last MEMO_DAYS days; best effort."""
        try:
            salts = [os.path.join(entries, n) for n in os.listdir(entries)
                     if len(n) == SALT_CHARS and all(c in "0123456789abcdef" for c in n)]
            salts.sort(key=lambda p: os.stat(p).st_mtime_ns, reverse=True)
        except OSError:
            return
        for old in salts[KEEP_SALTS:]:
            shutil.rmtree(old, ignore_errors=True)
        limit = time.time() - MEMO_DAYS * 86400
        try:
            for top in dated:
                for folder, _, files in os.walk(top):
                    for name in files:
                        path = os.path.join(folder, name)
                        if os.stat(path).st_mtime < limit:
                            os.unlink(path)
        except OSError:
            return

    def _path(self, kind: str, key: str) -> str:
        if kind == "trees":  # found before the salt is known (checker.warm): beside the salts' folders
            return os.path.join(self.directory, f"v{FORMAT}", "trees", key[:2], key)
        return os.path.join(self.directory, f"v{FORMAT}", "entries", self.salt[:SALT_CHARS], kind, key[:2], key)

    def has(self, kind: str, key: str) -> bool:
        """Whether an entry is stored (it may still fail to load)."""
        return bool(self.usable) and os.path.isfile(self._path(kind, key))

    def load(self, kind: str, key: str) -> Any | None:
        if not self.usable and kind != "trees":
            return None
        path = self._path(kind, key)
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.warn(path, f"cache entry cannot be read ({exc.strerror or exc}); checked again")
            return None
        body = _unseal(raw)
        try:
            if body is None:
                raise ValueError("checksum mismatch")
            data = _loads(body)
            if not isinstance(data, tuple) or len(data) != 3 or data[:2] != (kind, key):
                raise ValueError("wrong entry")
            return data[2]
        except Exception:  # any damage: unpickling garbage can raise nearly anything
            self.warn(path, "cache entry is damaged (checksum mismatch, truncated or malformed); checked again")
            try:
                os.unlink(path)
            except OSError:
                pass
            return None

    def store(self, kind: str, key: str, payload: Any) -> None:
        if not self.usable or self._write_failed:
            return
        try:
            body = exact_dumps((kind, key, payload))
        except Uncacheable:
            return  # not stored: the next run checks it again
        path = self._path(kind, key)
        try:
            _atomic_write(path, _seal(body))
        except OSError as exc:
            self._write_failed = True
            self.warn(path, f"cannot write to the cache ({exc.strerror or exc}); later entries are not stored")

    def memo(self, root: str, rel_dir: str) -> DigestMemo:
        path = None
        if self.usable and self.persist_memo:
            where = os.path.realpath(os.path.join(root, rel_dir))
            name = hashlib.sha256(where.encode("utf-8", errors="surrogatepass")).hexdigest()
            path = os.path.join(self.directory, f"v{FORMAT}", "digests", name[:2], name)
        return DigestMemo(path, self.warn)

    def take(self) -> tuple[CacheStats, list[tuple[str, str]]]:
        """Stats and warnings gathered so far (handed from a worker process to the parent)."""
        out = (self.stats, self.warnings)
        self.stats, self.warnings = CacheStats(), []
        return out
