"""The walk of a round's submitter folders, read ahead in a thread while the command line starts.

``mlpc check ROOT`` spends its first ~0.15 s importing the checker and loading the round on one core, and the
walk of every submitter folder (a system call or more per folder and per file: a tenth of a whole check's CPU
on a 1k-result round) waits for the workers. :func:`start` reads those folders meanwhile, on the other core, in
a thread that holds no Python lock while it reads (``checker._walk_scan.snapshots``: C memory only). Before the
workers are forked the reading stops (:func:`finish`); each worker then builds a submitter's walk from what was
read (:func:`take`, ``checker.loaders.tree._walk_submitter``) instead of reading the folder again. A folder not
read by then is walked as before; so is every folder where the extension is not built.

A snapshot is what the folder held when it was read, as a walk is what it held when walked: a file changed
since is seen as changed when it is read. Only the command line starts it (not the Python API), for a
submission root, without the cache (which reads no unchanged folder) and without ``--git-ref``.
"""

from __future__ import annotations

import os
import threading

#: the division folders read ahead (those of every round file)
DIVISIONS = ("closed", "open", "network")
#: at most this many folders are held (about 600 bytes each, in this process and, shared, in the workers it forks;
#: a 1k-result round has about 12,000)
MAX_FOLDERS = 15_000

_read: dict[str, object] = {}  # the submitter folder's path -> its snapshot
_thread: threading.Thread | None = None
_stop = None


def start(root: str) -> bool:
    """Start reading the submitter folders of the submission root ``root`` in a thread; whether it started (not
    where the extension is not built, or ``root`` holds no division folder)."""
    global _thread, _stop
    from checker.loaders.compiled import compiled

    snapshots, stop = compiled("snapshots", "_walk_scan"), compiled("stop_snapshots", "_walk_scan")
    if snapshots is None or stop is None or _thread is not None:
        return False
    root = os.path.abspath(root)  # (as checker.loaders.fs.Sandbox makes the paths it walks)
    if not any(os.path.isdir(os.path.join(root, division)) for division in DIVISIONS):
        return False
    _stop = stop
    thread = threading.Thread(target=_read_all, args=(root, snapshots), name="mlpc-prewalk", daemon=True)
    try:
        thread.start()
    except RuntimeError:  # (no thread to be had: the workers walk, as without the extension)
        return False
    _thread = thread
    return True


def _read_all(root: str, snapshots) -> None:
    paths = []
    for division in DIVISIONS:
        try:
            names = sorted(os.listdir(os.path.join(root, division)))
        except OSError:
            continue
        paths += [os.path.join(root, division, name) for name in names]
    try:
        taken = snapshots([os.fsencode(path) for path in paths], MAX_FOLDERS)
    except (MemoryError, TypeError):  # (what is not read is walked as before)
        return
    _read.update((path, snapshot) for path, snapshot in zip(paths, taken) if snapshot is not None)


def finish() -> None:
    """Stop the reading (the folder being read is finished) and wait for the thread: before a fork, and before
    the first snapshot is taken."""
    global _thread
    if _thread is None:
        return
    _stop()
    _thread.join()
    _thread = None


def take(path: str):
    """The snapshot of the folder at ``path`` (as ``Sandbox.abs`` gives it), removed from those held; None
    when it was not read."""
    if _thread is not None:
        finish()
    return _read.pop(path, None) if _read else None


def drop() -> None:
    """Free what was read and not taken (in the process that forked the workers, which have their copies)."""
    _read.clear()
