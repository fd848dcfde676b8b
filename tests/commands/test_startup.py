"""Start-up: `mlpc check` (and the other commands defined in checker/cli.py) import none of the
sub-command modules; every other invocation, and an importer of ``checker.cli``, gets all commands."""

import json
import subprocess
import sys

PROBE = """
import json, sys
sys.argv = [sys.argv[1]] + sys.argv[2:]
import typer.main
from checker.cli import app
group = typer.main.get_command(app)
print(json.dumps({"modules": sorted(m for m in sys.modules if m.startswith("checker.commands.")),
                  "commands": sorted(group.commands),
                  "check_help": type(group.commands["check"]).__name__}))
"""


def _probe(*argv: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_check_imports_no_sub_command_module():
    for entry in ("/usr/bin/mlpc", "/x/checker/cli_main.py"):
        lean = _probe(entry, "check", "some/tree")
        assert lean["modules"] == [] and lean["commands"] == ["check", "checks", "explain"], lean
        assert lean["check_help"] == "PlainCommand"  # the same help style as with every command


def test_version_imports_no_sub_command_module():
    lean = _probe("/usr/bin/mlpc", "--version")
    assert lean["modules"] == [] and lean["commands"] == ["check", "checks", "explain"], lean
    assert "checker.commands.audit_run" in _probe("/usr/bin/mlpc", "--version", "report")["modules"]


def test_other_invocations_get_every_command():
    for argv in (("/usr/bin/mlpc", "report", "x"), ("/usr/bin/mlpc", "--help"), ("/usr/bin/mlpc",),
                 ("/usr/bin/pytest", "check")):
        full = _probe(*argv)
        assert {"check", "report", "diff", "calc", "audit", "ci"} <= set(full["commands"]), argv
        assert "checker.commands.audit_run" in full["modules"]


def test_the_cli_collects_cycles_less_often():
    """The CLI process (and the workers it forks) run the cycle collector's young pass every 50,000 allocations,
    not Python's 700: a check makes many short-lived containers and few cycles."""
    program = "import sys; sys.argv = ['mlpc', 'check']; import gc, checker.cli; print(gc.get_threshold())"
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "(50000, 10, 10)"
