"""Which round's seeds a LoadGen release writes, and which round a live audit run uses.

LoadGen applies only the seeds of the mlperf.conf compiled into it (rounds-v6.md 1.1), so a run
made with one release carries that release's round seeds, whatever round the audit is for. The
releases per round are data (``audits/rounds.yaml`` ``loadgen_releases``, measured).
"""

from __future__ import annotations

import importlib.metadata
from typing import TYPE_CHECKING

from checker.diagnostics import MlpcError

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.audit_spec import RoundsFile

PACKAGE = "mlcommons-loadgen"


def installed_release() -> str | None:
    """The installed ``mlcommons-loadgen`` version, or None (not installed, or a source build)."""
    for name in (PACKAGE, "mlcommons_loadgen"):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def round_of_release(rounds: RoundsFile, release: str | None) -> str | None:
    """The round whose seeds ``release`` writes, when the release is listed."""
    for name, info in rounds.rounds.items():
        if release is not None and release in info.loadgen_releases:
            return name
    return None


def round_of_seeds(rounds: RoundsFile, seeds: dict) -> str | None:
    for name, info in rounds.rounds.items():
        if info.seeds.as_dict() == {k: seeds.get(k) for k in info.seeds.as_dict()}:
            return name
    return None


def install_hint(rounds: RoundsFile, round_name: str) -> str:
    releases = rounds.rounds[round_name].loadgen_releases
    if not releases:
        return f"no mlcommons-loadgen release is known to write the {round_name} seeds"
    span = releases[0] if len(releases) == 1 else f"{releases[0]} to {releases[-1]}"
    return (f"install a release that writes the {round_name} seeds ({span}), e.g. "
            f"pip install '{PACKAGE}=={releases[-1]}' (in its own virtual environment)")


def resolve_round(rounds: RoundsFile, requested: str | None, tree_round: str | None,
                  release: str | None) -> tuple[str, str]:
    """(round, why): ``--round``, else the audited tree's round, else the installed release's round."""
    if requested:
        if requested not in rounds.rounds:
            raise MlpcError(f"unknown round {requested!r}; known: {', '.join(sorted(rounds.rounds))}")
        return requested, "selected with --round"
    if tree_round:
        return tree_round, "the round of the audited tree"
    found = round_of_release(rounds, release)
    if found is None:
        raise MlpcError(f"cannot tell the round: the installed LoadGen ({release or 'unknown release'}) is not a "
                        f"release mlpc knows; pass --round")
    return found, f"the round whose seeds the installed LoadGen {release} writes"


def release_problem(rounds: RoundsFile, round_name: str, release: str | None) -> str | None:
    """Why the installed release cannot run ``round_name``'s audit (None: it can, or it is unknown
    and the seeds of the first run decide)."""
    writes = round_of_release(rounds, release)
    if writes is None or writes == round_name:
        return None
    return (f"the installed LoadGen {release} writes the {writes} seeds, not those of {round_name}: "
            f"{install_hint(rounds, round_name)}")


def seeds_problem(rounds: RoundsFile, round_name: str, seeds: dict, release: str | None) -> str | None:
    """Why the seeds a run actually used cannot stand for ``round_name`` (None when they are its seeds)."""
    expected = rounds.rounds[round_name].seeds.as_dict()
    if {k: seeds.get(k) for k in expected} == expected:
        return None
    writes = round_of_seeds(rounds, seeds)
    which = f"the {writes} seeds" if writes else f"seeds of no known round ({seeds})"
    return (f"the installed LoadGen {release or '(unknown release)'} wrote {which}, not those of {round_name}: "
            f"{install_hint(rounds, round_name)}")
