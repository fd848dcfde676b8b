"""The command line's message stream (stderr), made on first use."""

from __future__ import annotations

import sys


class LazyConsole:
    """A rich ``Console(**options)`` made on first use: importing rich costs about 50 ms at start-up, and
    a check with --quiet and --output prints one plain line. A plain line (``print(text, markup=False,
    highlight=False, ...)``) before the console is needed is written to the stream directly, as rich would
    write it (no markup, no highlighting, not wrapped); anything else makes the console."""

    def __init__(self, **options) -> None:
        self._options = options
        self._console = None

    @property
    def console(self):
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str):
        return getattr(self.console, name)

    def print(self, *objects, **kwargs) -> None:
        plain = (self._console is None and len(objects) == 1 and type(objects[0]) is str
                 and kwargs.get("markup") is False and kwargs.get("highlight") is False
                 and set(kwargs) <= {"markup", "highlight", "soft_wrap"} and not set(self._options) - {"stderr"})
        if not plain:
            self.console.print(*objects, **kwargs)
            return
        stream = sys.stderr if self._options.get("stderr") else sys.stdout
        stream.write(objects[0] + "\n")
        stream.flush()


def new_console(**options):
    """A rich ``Console(**options)``, rich imported now: the command modules import it only when they print
    (every CLI start imports them all)."""
    from rich.console import Console

    return Console(**options)
