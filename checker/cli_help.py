"""How ``--help`` reads. typer 0.29 prints a value type after every flag (``--strict <bool>``) and
braces around required arguments (``{path}``), so flags look as if they took a value. These command
classes print flags bare and arguments as ``NAME``; :func:`plain_help` puts them on every command and
group of a Typer app (including sub-apps mounted later in ``cli._mount``)."""

from __future__ import annotations

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from checker.cli_values import light_values


def _no_type(ctx) -> None:
    return None


class _PlainHelp:
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
                param.metavar = ""  # a flag takes no value: no type column
            elif isinstance(param, TyperArgument) and param.name:
                if param.metavar is None:
                    param.metavar = param.name.upper()
                # the name column already shows NAME: no "<str>" type column beside it
                param.display_type_rich = _no_type  # type: ignore[method-assign]
        light_values(self.params)  # and no pydantic at start-up (checker/cli_values.py)

    def get_help_option(self, ctx):
        option = super().get_help_option(ctx)
        if option is not None and option.metavar is None:
            option.metavar = ""
        if option is not None:
            light_values([option])
        return option

    def collect_usage_pieces(self, ctx) -> list[str]:
        plain = {}
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument) and param.required:
                for piece in param.get_usage_pieces(ctx):
                    plain[piece] = piece[1:].replace("}", "", 1) if piece.startswith("{") else piece
        return [plain.get(piece, piece) for piece in super().collect_usage_pieces(ctx)]


class PlainCommand(_PlainHelp, TyperCommand):
    """A command whose help shows flags without a value type and arguments as NAME."""


class PlainGroup(_PlainHelp, TyperGroup):
    """A command group with the same help style."""


def plain_help(app: typer.Typer) -> None:
    """Give every command and group of ``app`` (recursively) the plain help style."""
    if app.info.cls is None or isinstance(app.info.cls, typer.models.DefaultPlaceholder):
        app.info.cls = PlainGroup
    for command in app.registered_commands:
        if command.cls is None or command.cls is TyperCommand:
            command.cls = PlainCommand
    for group in app.registered_groups:
        if group.cls is None or isinstance(group.cls, typer.models.DefaultPlaceholder):
            group.cls = PlainGroup
        if group.typer_instance is not None:
            plain_help(group.typer_instance)
