"""The ``mlpc check`` command line read without typer, for the common forms only.

Importing typer and building its command costs about a fifth of what ``mlpc check`` does before its workers
start. :func:`parse` reads the forms people and scripts write (``mlpc check TREE --round v5.1 -q -o r.json``)
and gives the values typer would give the command; anything else (``--help``, ``--watch``, an unknown or
misspelt option, a missing or doubtful value, ``--``, short options run together) makes it answer None, and
the typer application reads the line, with its usual messages. ``tests/commands/test_check_argv.py`` holds it
to typer's reading of the same lines.
"""

from __future__ import annotations

#: the values of the options left out (those of ``checker.cli.check``)
DEFAULTS: dict[str, object] = {
    "round": None, "fmt": None, "output": None, "strict": False, "profile": "default", "show_info": False,
    "details": False, "jobs": 0, "quiet": False, "git_ref": None, "use_cache": True, "cache_dir": None,
    "waivers": None,
}
_FLAGS = {
    "--strict": ("strict", True), "--show-info": ("show_info", True), "--details": ("details", True),
    "--quiet": ("quiet", True), "-q": ("quiet", True), "--cache": ("use_cache", True),
    "--no-cache": ("use_cache", False),
}
_VALUED = {
    "--round": "round", "-r": "round", "--format": "fmt", "-f": "fmt", "--output": "output", "-o": "output",
    "--profile": "profile", "--jobs": "jobs", "-j": "jobs", "--git-ref": "git_ref", "--cache-dir": "cache_dir",
    "--waivers": "waivers",
}
_CHOICES = {
    "fmt": ("text", "json", "csv", "markdown", "sarif", "junit"),
    "profile": ("default", "official", "smoke"),
}


def parse(args: list[str]) -> dict[str, object] | None:
    """The keyword arguments of ``checker.commands.check_run.run`` for ``args`` (the command line after the
    program's name: ``["check", PATH, ...]``), or None where typer should read it."""
    if not args or args[0] != "check":
        return None
    values = dict(DEFAULTS)
    path = None
    rest = args[1:]
    at = 0
    while at < len(rest):
        token = rest[at]
        at += 1
        flag = _FLAGS.get(token)
        if flag is not None:
            values[flag[0]] = flag[1]  # (repeated: the last one counts, as in typer)
            continue
        if token.startswith("--") and "=" in token:
            option, _, value = token.partition("=")
        elif token in _VALUED:
            if at == len(rest):
                return None
            option, value = token, rest[at]
            at += 1
        elif token.startswith("-") or token == "" or path is not None:
            return None  # an option of typer's alone, or a second path: typer's message
        else:
            path = token
            continue
        name = _VALUED.get(option)
        if name is None or value == "" or value.startswith("-"):
            return None
        if name in _CHOICES and value not in _CHOICES[name]:
            return None
        if name == "jobs":
            if not (value.isascii() and value.isdigit()):
                return None
            value = int(value)
        values[name] = value
    if path is None:
        return None
    return {"path": path, **values}
