"""The progress bar shared by commands that check a tree (stderr, only on a terminal)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


def with_progress(run, quiet: bool, console: Console):
    """Call ``run(progress)``; ``progress(done, total, unit)`` updates a rich bar when ``console``
    is a terminal and ``quiet`` is off, otherwise ``run(None)``."""
    if quiet or not console.is_terminal:
        return run(None)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("checking"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.description}", markup=False),  # submitter names are not markup
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("", total=None)

        def progress(done, total, unit):
            bar.update(task, completed=done, total=total, description="/".join(unit))

        return run(progress)
