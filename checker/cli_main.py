"""The console entry (``mlpc``; ``python -m checker.cli_main``).

``mlpc check`` with the options ``checker.check_argv`` reads runs without typer (about 90 M instructions
of start-up less, a tenth of what the parent of a check does before its workers start); every other
command line goes to the typer application (``checker.cli``), which reads it and prints its messages.
"""

import os
import sys


def main() -> None:
    """Run the command line of this process and end it (``checker.cli_process.leave``)."""
    argv = sys.argv
    if len(argv) > 1 and argv[1] == "check" and "_MLPC_COMPLETE" not in os.environ:
        from checker import cli_process

        if cli_process.runs_own_command(argv):
            from checker.check_argv import parse

            options = parse(argv[1:])
            if options is not None:
                if not options["use_cache"] and options["git_ref"] is None:
                    from checker.loaders import prewalk

                    prewalk.start(options["path"])  # (reads the submitter folders while the checker loads)
                cli_process.prepare(argv)
                cli_process.leave(_check(options))
    from checker.cli import main as typer_main

    typer_main()


def _check(options: dict) -> int:
    """``mlpc check``'s exit status, with what typer's wrapper makes of an interruption or a closed pipe."""
    from checker.commands.check_run import run

    try:
        return run(**options)
    except KeyboardInterrupt:
        return 130
    except EOFError:
        print("\nAborted.", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    main()
