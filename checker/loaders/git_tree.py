"""Read a commit of a submission repository without checking it out.

``materialise`` writes the files of one commit (read from git's object store with gitpython) into a
fresh temporary folder outside the repository: regular files with their executable bit, symbolic
links as links (whatever they point to: the checker judges them), sub-modules as empty folders,
as a checkout would leave them. The repository's work tree, index and refs are never touched.
``changed_paths`` lists the paths that differ between two commits (git's tree diff, no rename
detection, so a move shows up as a removal plus an addition).

Every problem (not a repository, unknown ref, unsafe path in a tree) is an ``MlpcError`` with a
one-line message; the CLI turns it into exit code 2.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass

from checker.diagnostics import MlpcError

CHUNK = 1024 * 1024
LINK_MODE = 0o120000
SUBMODULE_MODE = 0o160000


@dataclass
class Checkout:
    """One commit written to ``top``; ``path`` is the folder the user named, inside it."""

    top: str
    path: str
    repo_root: str
    ref: str
    commit: str

    @property
    def label(self) -> str:
        return f"{self.repo_root} @ {self.ref} ({self.commit[:12]})"

    def cleanup(self) -> None:
        shutil.rmtree(self.top, ignore_errors=True)

    def __enter__(self) -> "Checkout":
        return self

    def __exit__(self, *exc) -> None:
        self.cleanup()


def _git():
    try:
        import git
    except ImportError as exc:  # pragma: no cover - gitpython is a dependency
        raise MlpcError(f"git support needs gitpython ({exc})") from None
    return git


def open_repo(path: str):
    """The repository holding ``path`` and the path of ``path`` inside its work tree ("" at the top)."""
    git = _git()
    if not os.path.isdir(path):
        raise MlpcError(f"{path}: not a directory")
    try:
        repo = git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise MlpcError(f"{path}: not inside a git repository") from None
    except git.GitError as exc:
        raise MlpcError(f"{path}: cannot open the git repository: {exc}") from None
    top = repo.working_tree_dir
    if top is None:  # a bare repository: the submission root is the top of each commit
        return repo, ""
    inner = os.path.relpath(os.path.realpath(path), os.path.realpath(top)).replace(os.sep, "/")
    return repo, "" if inner == "." else inner


def resolve(repo, ref: str):
    """The commit ``ref`` names, or an ``MlpcError``."""
    git = _git()
    import gitdb.exc

    if not ref or ref.startswith("-") or "\0" in ref:
        raise MlpcError(f"'{ref}' is not a git ref")
    try:
        commit = repo.commit(ref)
        commit.tree  # noqa: B018 - resolves the object now, so a bad ref fails here
    except (gitdb.exc.BadName, gitdb.exc.BadObject, gitdb.exc.ODBError, ValueError, git.GitError, IndexError,
            TypeError):
        where = repo.working_tree_dir or repo.git_dir
        raise MlpcError(f"git ref '{ref}' does not name a commit in {where}") from None
    return commit


def _safe_parts(path: str) -> list[str]:
    parts = path.split("/")
    for part in parts:
        if part in ("", ".", "..") or part.lower() == ".git" or "\0" in part:
            raise MlpcError(f"the commit holds an unsafe path '{path}'; refusing to write it")
    return parts


def _write_blob(blob, target: str) -> None:
    stream = blob.data_stream
    if blob.mode == LINK_MODE:
        os.symlink(os.fsdecode(stream.read()), target)
        return
    with open(target, "wb") as handle:
        remaining = blob.size
        while remaining > 0:
            block = stream.read(min(CHUNK, remaining))
            if not block:
                break
            handle.write(block)
            remaining -= len(block)
    if blob.mode & 0o111:
        os.chmod(target, os.stat(target).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def materialise(path: str, ref: str) -> Checkout:
    """Write the commit ``ref`` of the repository holding ``path`` into a new temporary folder."""
    repo, inner = open_repo(path)
    try:
        return _materialise(repo, inner, ref)
    finally:
        repo.close()


def _materialise(repo, inner: str, ref: str) -> Checkout:
    commit = resolve(repo, ref)
    repo_root = repo.working_tree_dir or repo.git_dir
    top = tempfile.mkdtemp(prefix="mlpc-git-")
    real_top, real_repo = os.path.realpath(top), os.path.realpath(repo_root)
    if real_top == real_repo or real_top.startswith(real_repo + os.sep):
        shutil.rmtree(top, ignore_errors=True)
        raise MlpcError(f"the temporary folder {top} lies inside the repository; set TMPDIR to a folder outside it")
    try:
        for item in commit.tree.traverse():
            target = os.path.join(top, *_safe_parts(item.path))
            if item.type == "tree" or item.mode == SUBMODULE_MODE:
                os.makedirs(target, exist_ok=True)
            elif item.type == "blob":
                os.makedirs(os.path.dirname(target), exist_ok=True)
                _write_blob(item, target)
    except MlpcError:
        shutil.rmtree(top, ignore_errors=True)
        raise
    except (OSError, ValueError, _git().GitError) as exc:
        shutil.rmtree(top, ignore_errors=True)
        raise MlpcError(f"cannot read commit {commit.hexsha[:12]} ({ref}): {exc}") from None
    inside = os.path.join(top, *inner.split("/")) if inner else top
    if not os.path.isdir(inside):
        shutil.rmtree(top, ignore_errors=True)
        raise MlpcError(f"'{inner}' does not exist in {ref} ({commit.hexsha[:12]})")
    return Checkout(top=top, path=inside, repo_root=repo_root, ref=ref, commit=commit.hexsha)


def changed_paths(path: str, ref_a: str, ref_b: str) -> tuple[str, str, list[str]]:
    """(commit a, commit b, the repository paths whose content, mode or existence differs)."""
    repo, _ = open_repo(path)
    try:
        a, b = resolve(repo, ref_a), resolve(repo, ref_b)
        out = repo.git.diff_tree("-r", "-z", "--no-renames", "--name-only", a.hexsha, b.hexsha)
    except _git().GitError as exc:
        raise MlpcError(f"git diff-tree failed: {exc}") from None
    finally:
        repo.close()
    return a.hexsha, b.hexsha, sorted(p for p in out.split("\0") if p)


def changed_since(path: str, base: str, head: str = "HEAD") -> list[str]:
    """The files a pull request changes: the paths that differ between the merge base of ``base`` and
    ``head`` and ``head``, as absolute paths in the work tree of the repository holding ``path``."""
    repo, _ = open_repo(path)
    try:
        top = repo.working_tree_dir
        if top is None:
            raise MlpcError(f"{path}: a bare repository has no files to check")
        a, b = resolve(repo, base), resolve(repo, head)
        bases = repo.merge_base(a, b)
        if not bases:
            raise MlpcError(f"'{base}' and '{head}' have no common history (fetch the whole history: "
                            "actions/checkout with fetch-depth: 0)")
        out = repo.git.diff_tree("-r", "-z", "--no-renames", "--name-only", bases[0].hexsha, b.hexsha)
    except _git().GitError as exc:
        raise MlpcError(f"git diff-tree failed: {exc}") from None
    finally:
        repo.close()
    return sorted(os.path.join(top, *p.split("/")) for p in out.split("\0") if p)


def staged_paths(path: str) -> list[str]:
    """The paths staged for the next commit in the repository holding ``path`` (added, changed and
    deleted), as absolute paths in its work tree. Runs git itself: the pre-commit hook calls this on
    every commit, and importing gitpython would cost more than the whole check of a cached submitter."""
    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", *args], cwd=path, capture_output=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise MlpcError(f"cannot run git: {exc}") from None
        if done.returncode != 0:
            message = os.fsdecode(done.stderr).strip().splitlines()
            raise MlpcError(f"{path}: git {args[0]} failed: {message[0] if message else done.returncode}")
        return os.fsdecode(done.stdout)

    if not os.path.isdir(path):
        raise MlpcError(f"{path}: not a directory")
    top = git("rev-parse", "--show-toplevel").strip()
    out = git("diff", "--cached", "--name-only", "-z", "--no-renames")
    return sorted(os.path.join(top, *p.split("/")) for p in out.split("\0") if p)
