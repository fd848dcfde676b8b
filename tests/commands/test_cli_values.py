"""The command line's light coercion of option values (checker/cli_values.py) gives what typer's own
(pydantic) coercion gives: the same value for every plain case, the same message for every bad one;
and the light message stream (checker/cli_console.py) prints a plain line as rich would."""

import io
import sys

import pytest
import typer.main
from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param

from checker.cli import app
from checker.cli_console import LazyConsole
from checker.cli_values import _Light

VALUES = [None, "", "x", "json", "JSON", "text", "smoke", "official", "nope", "0", "2", "007", "-1", "+3", " 4",
          "1.5", "1e3", "٣", "true", "false", True, False, 0, 5, -2]


def _outcome(runtime, value, param, ctx):
    try:
        return "value", runtime.coerce(value, param=param, ctx=ctx)
    except BadParameter as exc:
        return "error", str(exc)


@pytest.mark.parametrize("command", ["check", "checks", "explain"])
def test_light_coercion_is_typers(command):
    group = typer.main.get_command(app)
    cmd = group.commands[command]
    ctx = Context(cmd)
    compared = 0
    for param in cmd.params:
        assert isinstance(param._runtime_param, _Light), param.name
        full = build_runtime_param(param.type_descriptor)
        for value in VALUES:
            light = _outcome(_Light(param.type_descriptor), value, param, ctx)
            assert light == _outcome(full, value, param, ctx), (param.name, value)
            compared += 1
    assert compared


def test_a_plain_line_needs_no_rich(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    console = LazyConsole(stderr=True)
    console.print("report written to r.json · [not markup]", soft_wrap=True, markup=False, highlight=False)
    assert console._console is None and stream.getvalue() == "report written to r.json · [not markup]\n"
    console.print("[bold]styled[/]")  # anything else goes through rich
    assert console._console is not None and stream.getvalue().endswith("styled\n")
