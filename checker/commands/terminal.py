"""How wide the text output is: the terminal's width when it goes to a terminal, else ``COLUMNS`` when
set, else a fixed width (so a report written to a file or a pipe does not depend on where it ran)."""

from __future__ import annotations

import os
import sys

MIN_WIDTH = 40


def output_width(fallback: int, to_terminal: bool | None = None) -> int:
    """Columns for text sent to stdout (``to_terminal``: whether it is a terminal; default: ask stdout).
    ``COLUMNS`` wins when set; files and pipes get ``fallback``."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), MIN_WIDTH)
    if to_terminal is None:
        to_terminal = sys.stdout.isatty()
    if to_terminal:
        try:
            return max(os.get_terminal_size(sys.stdout.fileno()).columns, MIN_WIDTH)
        except (OSError, ValueError):
            pass
    return fallback

