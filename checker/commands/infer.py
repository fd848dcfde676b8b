"""``mlpc infer SRC --out DEST [--round R] [--dry-run]``: add the inferred edge results to a copy of a tree.

The same copies preprocess_submission.py makes (official-checker.md H; rules 4.1.1), for systems whose
``system_type`` includes ``edge``, per system and model:

* a SingleStream folder and neither MultiStream nor Offline: copy it to ``offline`` and, when the
  benchmark has MultiStream on that system type, to ``multistream``;
* a SingleStream folder, an Offline folder and no MultiStream: copy SingleStream to ``multistream``;
* a MultiStream folder and no Offline: copy MultiStream to ``offline``.

The decision is taken on ``results/``; the same source folder is then copied under ``results/``,
``measurements/`` and (closed and network) ``compliance/``, wherever the target does not exist yet. New
folders have lower-case names. Differences from preprocess_submission.py, each deliberate: only edge
systems (rules 4.1.1: "edge submitters"; the tool itself infers for any system); an existing folder is
found whatever its case (the tool tests the lower-case name only, and could create ``offline`` next to
``Offline``); a target scenario is made only when the benchmark has it on that system type (as at the
tool's HEAD); compliance folders are copied for the network division too (the checker requires them
there); invalid results are neither deleted nor moved to open, and no -99 results are made from -99.9.

Wiring and planning only (the plan is a pure function of the layout the loader reads); copying lives in
:mod:`checker.loaders.tree_writer`. SRC is never written; DEST must not exist; the new tree is staged
next to DEST and renamed at the end. Exit codes: 0 written (or dry run), 1 written but an inferred result
has no usable value (say a MultiStream result of 0 ms), 2 usage error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn, Optional

import typer

if TYPE_CHECKING:  # rich is imported when a command prints: every CLI start imports this module
    from rich.console import Console

from checker.cli_console import new_console

TARGET_NAMES = {"Offline": "offline", "MultiStream": "multistream"}


@dataclass(frozen=True)
class InferStep:
    """Copy ``src_rel`` to ``dst_rel`` (paths relative to SRC) to infer ``target`` from ``source``."""

    kind: str  # results, measurements or compliance
    src_rel: str
    dst_rel: str
    source: str  # canonical scenario of the copied folder
    target: str  # canonical scenario the new folder stands for
    model: str = ""  # the MLPerf model the folder belongs to


def plan_inference(layouts, rules) -> tuple[list[InferStep], list[str]]:
    """The copies to make for every edge system and model, plus notes on what was left alone."""
    from checker.checks.structure import allowed_scenarios
    from checker.naming import canonical_scenario, mlperf_model

    steps: list[InferStep] = []
    notes: list[str] = []
    for layout in layouts:
        prefix = f"{layout.rel}/" if layout.rel else ""
        kinds = ["results", "measurements"] + (["compliance"] if layout.division in ("closed", "network") else [])
        for system, models in sorted(layout.folders.get("results", {}).items()):
            system_type = layout.system_types.get(system)
            if system_type is None:
                notes.append(f"{prefix}results/{system}: no readable system_type in systems/{system}.json; skipped")
                continue
            if "edge" not in system_type:
                continue
            for model, folders in sorted(models.items()):
                mapped = mlperf_model(model, rules, layout.model_mapping)
                if mapped not in rules.models:
                    notes.append(f"{prefix}results/{system}/{model}: not a model of round {rules.round}; skipped")
                    continue
                required, optional = allowed_scenarios(rules, mapped, system_type)
                applicable = set(required) | set(optional)
                present: dict[str, str] = {}
                for folder in folders:
                    scenario = canonical_scenario(folder, rules)
                    if scenario is not None:
                        present.setdefault(scenario, folder)
                copies: list[tuple[str, str]] = []  # (source scenario, target scenario)
                ss, ms, off = (present.get(s) for s in ("SingleStream", "MultiStream", "Offline"))
                if ss and not ms and not off:
                    copies += [("SingleStream", t) for t in ("Offline", "MultiStream") if t in applicable]
                elif ss and not ms and "MultiStream" in applicable:
                    copies.append(("SingleStream", "MultiStream"))
                if ms and not off and "Offline" in applicable:
                    copies.append(("MultiStream", "Offline"))
                for source, target in copies:
                    for kind in kinds:
                        there = layout.folders.get(kind, {}).get(system, {}).get(model)
                        if there is None:
                            continue
                        found = {canonical_scenario(f, rules): f for f in there}
                        if target in found or present[source] not in there:
                            continue
                        base = f"{prefix}{kind}/{system}/{model}"
                        steps.append(InferStep(kind, f"{base}/{present[source]}", f"{base}/{TARGET_NAMES[target]}",
                                               source, target, mapped))
    return steps, notes


def _err() -> Console:
    return new_console(stderr=True, highlight=False, soft_wrap=True)


def _fail(message: str, code: int = 2) -> NoReturn:
    _err().print(f"error: {message}", markup=False)
    raise typer.Exit(code)


def _inferred_value(path: str, target: str, model: str, rules) -> tuple[str, bool]:
    """The value the new results folder will report, from the copied detail log (official formulas),
    and whether it is a usable result (a value above zero)."""
    from checker.loaders.loadgen_log import LogReadError, parse_detail_log
    from checker.results import _inferred, unit_for

    try:
        log = parse_detail_log(path)
    except LogReadError as exc:
        return f"no value ({exc})", False
    if log.scenario == target:
        return "measured (not inferred)", True
    value = _inferred(log, target, log.scenario or "?", unit_for(rules, model, target))
    if value.value is None:
        return f"no value ({value.problem})", False
    return f"{value.value:g} {value.unit or ''} ({value.formula})".replace("  ", " "), value.value > 0


def infer(
    src: str = typer.Argument(..., help="Submission tree to read (root, division or submitter folder)."),
    out: str = typer.Option(..., "--out", "-o", help="New folder to write (must not exist)."),
    round: Optional[str] = typer.Option(None, "--round", "-r", help="Round rules (v4.1, v5.0, ...); detected "
                                        "from the logs when omitted."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List the folders that would be created; write nothing."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No line per copied folder."),
) -> None:
    """Copy SRC to DEST and add the inferred edge results (MultiStream / Offline from SingleStream, Offline
    from MultiStream) as copies of their source folders."""
    import os

    from checker.diagnostics import MlpcError
    from checker.loaders.detect import rules_for
    from checker.loaders.tree_writer import TreeWriteError, check_destination, describe_submitters, open_staging

    err = _err()
    try:
        source, dest = check_destination(src, out)
        rules, _ = rules_for(source, round)
        layouts = describe_submitters(source, rules.divisions)
    except MlpcError as exc:
        _fail(str(exc))
    steps, notes = plan_inference(layouts, rules)
    for note in notes:
        err.print(f"note: {note}", markup=False)
    if not layouts:
        _fail(f"{source}: no submitter folder with results/ found")
    if dry_run:
        for step in steps:
            err.print(f"would copy {step.src_rel} -> {step.dst_rel} ({step.target} inferred from {step.source})",
                      markup=False)
        err.print(f"dry run: {len(steps)} folder(s) to create; would write {dest}; nothing written", markup=False)
        raise typer.Exit(0)
    try:
        with open_staging(source, dest) as staging:
            staging.copy_tree()
            made = 0
            unusable: list[str] = []
            for number, step in enumerate(steps, start=1):
                if os.path.islink(staging.abs(step.src_rel)):
                    err.print(f"note: {step.src_rel} is a link; not copied to {step.dst_rel}", markup=False)
                    continue
                files = staging.copy_subtree(step.src_rel, step.dst_rel)
                made += 1
                value = ""
                if step.kind == "results":
                    shown, usable = _inferred_value(
                        staging.abs(f"{step.dst_rel}/performance/run_1/mlperf_log_detail.txt"), step.target,
                        step.model, rules)
                    value = ": " + shown
                    if not usable:
                        unusable.append(f"{step.dst_rel}: {shown}")
                if not quiet:
                    err.print(f"[{number}/{len(steps)}] {step.dst_rel} <- {step.src_rel.rsplit('/', 1)[-1]} "
                              f"({files} files){value}", markup=False)
    except TreeWriteError as exc:
        _fail(str(exc))
    err.print(f"wrote {dest}: {made} inferred folder(s) added (round {rules.round}), {staging.files} files in all; "
              f"check it with `mlpc check {dest}`", markup=False)
    for line in unusable:
        err.print(f"warning: {line}: not a usable result; `mlpc check` will reject it (PF017). A MultiStream "
                  f"result inferred from SingleStream needs the p99 early-stopping estimate, which a run with too "
                  f"few queries does not have", markup=False)
    if unusable:
        raise typer.Exit(1)
