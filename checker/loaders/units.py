"""What the resident checker (``checker.live``) asks the disk about a ``<division>/<submitter>`` unit."""

from __future__ import annotations

import os


def is_unit(root: str, unit: tuple[str, str]) -> bool:
    """Whether the folder is still a unit: a submitter folder holding a results folder (as ``load_top``
    decides)."""
    return os.path.isdir(os.path.join(root, *unit, "results"))


def holds_link(root: str, unit: tuple[str, str]) -> bool:
    """Whether the unit folder is, or holds anywhere below it, a symbolic link."""
    top = os.path.join(root, *unit)
    if os.path.islink(top):
        return True
    stack = [top]
    while stack:
        try:
            with os.scandir(stack.pop()) as found:
                for item in found:
                    if item.is_symlink():
                        return True
                    if item.is_dir(follow_symlinks=False):
                        stack.append(item.path)
        except OSError:
            continue  # an unreadable folder is the checks' finding, not a link
    return False
