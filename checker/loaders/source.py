"""Where the tree to check comes from: a folder as it is, or one commit of the git repository holding
it, written to a temporary folder (``git_tree.materialise``) that is removed again when the check is done.

Every command that takes ``--git-ref`` opens its tree here, so the load stage has one entry point for
both kinds of source.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass
class Source:
    """The folder to load (the path itself, or a commit written to a temporary folder)."""

    path: str
    label: str | None = None  # the name a report gives the tree instead of the temporary folder
    commit: str | None = None
    cleanup: Callable[[], None] | None = None  # removes the temporary folder (None for a plain folder)

    @property
    def from_git(self) -> bool:
        return self.commit is not None


def open_source(path: str, git_ref: str | None = None) -> Source:
    """``path`` itself, or the commit ``git_ref`` of the repository holding ``path`` (the caller calls
    ``cleanup`` when done). Raises ``MlpcError`` for a bad repository or ref."""
    if git_ref is None:
        return Source(path=path)
    from checker.loaders.git_tree import materialise

    checkout = materialise(path, git_ref)
    return Source(path=checkout.path, label=checkout.label, commit=checkout.commit, cleanup=checkout.cleanup)
