"""``mlpc calc nameplate-power FILE`` and ``mlpc calc private-id NAME...``: the v6.1 system figures
(rounds-v6.md 6.2, 6.3).

* ``nameplate-power``: the design power (``design_power_watts``) of a ``systems/<system>_power.yaml``,
  with the components counted and every part that could not be counted. Exit 0 when the file gives a
  value without problems, 1 when it is empty, unreadable or has problems, 2 usage errors.
* ``private-id``: the private ID of one or more system folder names (``results/<system>``), as the
  official checker's ``--private-ids`` makes them; nothing is written anywhere. ``mlpc report
  --private-ids`` puts them in the PrivateID column.

Wiring only: read (checker.loaders.nameplate) -> compute (checker.metrics) -> print.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, List

import typer

if TYPE_CHECKING:  # rich is imported when a command prints: every CLI start imports this module
    from rich.console import Console

from checker.cli_console import new_console


def _out() -> Console:
    return new_console(highlight=False, soft_wrap=True)


def nameplate_power(
    path: str = typer.Argument(..., help="A systems/<system>_power.yaml."),
    as_json: bool = typer.Option(False, "--json", help="Print {design_power_watts, components, problems}."),
) -> None:
    """Design power of a nameplate power YAML: per component, the largest 'Min PSUs Needed' PSU capacities."""
    from checker.loaders.nameplate import read_nameplate

    nameplate, why = read_nameplate(path)
    if nameplate is None:
        new_console(stderr=True, highlight=False, soft_wrap=True).print(f"error: {path}: {why}", markup=False)
        raise typer.Exit(1 if why != "not found" else 2)
    if as_json:
        _out().print(json.dumps({"design_power_watts": nameplate.watts, "components": nameplate.components,
                                 "problems": list(nameplate.problems)}, indent=2), markup=False)
    else:
        _out().print(f"design_power_watts = {nameplate.watts} W ({nameplate.components} component(s))",
                     markup=False)
        for problem in nameplate.problems:
            _out().print(f"  problem: {problem}", markup=False)
    if nameplate.problems:
        raise typer.Exit(1)


def private_id(
    names: List[str] = typer.Argument(..., help="System folder names (results/<system>), not system_name."),
) -> None:
    """Private IDs of system folders: <adjective>-<noun>-<4 hex digits> from sha256 of the name."""
    from checker.loaders.nameplate import private_id_words
    from checker.metrics.private_id import private_id as make

    adjectives, nouns = private_id_words()
    for name in names:
        _out().print(f"{name}\t{make(name, adjectives, nouns)}", markup=False)
