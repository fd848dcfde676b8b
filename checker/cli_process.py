"""The command line's process: what it sets before the checker is imported, and how it ends.

Both entries use it: the typer application (``checker.cli``) and the short way ``mlpc check`` takes
(``checker.cli_main``), which imports neither typer nor the sub-commands.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn

from checker.lazy_module import defer

defer("inspect")  # (before dataclasses imports it: checker.lazy_module)
from checker import dataclass_code, regex_cache  # noqa: E402 - after the line above

#: commands defined in checker/cli.py, and the names the command line runs under (console script, -m)
OWN_COMMANDS = ("check", "checks", "explain")
ENTRY_NAMES = ("mlpc", "cli_main.py")


def runs_own_command(argv: list[str]) -> bool:
    """Whether this process is the mlpc command line running one of the commands defined in checker/cli.py,
    or printing its version, which use none of the sub-command modules (``mlpc check`` then imports about
    190 M instructions less)."""
    return (len(argv) > 1 and os.path.basename(argv[0]) in ENTRY_NAMES
            and (argv[1] in OWN_COMMANDS or argv[1:] == ["--version"]))


def prepare(argv: list[str]) -> bool:
    """Set up this process for the command line ``argv`` (once; before any dataclass of the checker is made
    and before pydantic or numpy is imported); whether it runs one of checker/cli.py's own commands."""
    package_dir = os.path.dirname(os.path.abspath(dataclass_code.__file__))
    dataclass_code.install(package_dir)
    regex_cache.install(package_dir)  # (the regular expressions the checker compiles as its modules are imported)
    # a check makes many short-lived containers per result (contexts, tuples, findings) and few reference
    # cycles: the cycle collector's default (a young-generation pass every 700 allocations) spent about 7% of
    # a round's CPU walking objects that were still alive. The worker processes inherit the setting.
    gc.set_threshold(50_000, 10, 10)
    own = runs_own_command(argv)
    if own:
        # Settings for this process and the check's workers only: the commands that run other programs
        # (``mlpc audit run`` starts the SUT's process with this environment) leave the environment as the
        # user set it.
        # numpy (TEST08's entropy, the fallback power readings) works on small arrays: OpenBLAS's thread
        # pool, started when numpy is imported, only spins (about 20 ms of CPU per process on 2 cores).
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        # pydantic looks for plugins (entry points in every installed distribution's metadata) when it builds
        # its first validator; mlpc's models use none. Set it to "" to have pydantic look again.
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    return own


def leave(status: object) -> NoReturn:
    """End the process as ``sys.exit(status)`` would, without Python's teardown.

    Tearing down the interpreter (every module, and a last collection over every object still held) took
    60-75 ms after a check of a 1k-result round had written its report, about a twentieth of the run.
    What of it a command needs is done here: the threads that are not daemons are waited for, the
    ``atexit`` functions run (they save the dataclass method cache, remove temporary folders, shut logging
    down), and the standard streams are flushed; every file the commands write is closed where it is
    written. A stream that cannot be flushed (a closed pipe, as ``mlpc check ... | head`` leaves) ends
    the process with status 120, as Python does."""
    import atexit
    import threading

    if status is None:
        code = 0
    elif isinstance(status, int):
        code = status & 0xFF  # (what the system keeps of it, as after sys.exit)
    else:  # sys.exit("message"): the message, status 1
        print(status, file=sys.stderr)
        code = 1
    main_thread = threading.main_thread()
    for thread in threading.enumerate():
        if thread is not main_thread and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # noqa: BLE001 - a closed pipe or stream
            code = code or 120
    os._exit(code)
