"""JSON keys written twice (ST024, ST025): reported, and an error only when the choice of value matters.

Every JSON reader of the MLPerf tools (Python's ``json``) keeps the last value of a key written twice,
and so do the loaders here. ST024 says so for each such key; ST025 re-judges a result with the first
values instead and is an error only when that changes the result's verdict.
"""

from __future__ import annotations

import dataclasses

from checker.checks.base import check, finding
from checker.context import ModelCtx
from checker.loaders.json_keys import with_first_values

OWN_CODES = ("ST024", "ST025")


@check("ST024", "duplicate-json-key", "submitter")
def duplicate_json_key(ctx, rules):
    """A JSON file of the submitter has a key written twice in one object.

    What it checks: the system descriptions, implementation (measurements) JSON files, the open
    division's `model_mapping.json`, the power `client.json` / `server.json` and the JSON records of
    endpoint results (`result_summary.json`, `accuracy_results.json`, the snapshot and audit files) hold
    each key once per object. The finding names the key, every value written and the one that is used (the last).
    Why: JSON leaves duplicate names undefined (RFC 8259 section 4); Python's `json` and the official
    tools keep the last value, so a reader of the file may see another value than the tools did.
    Failing example: `"network_speed_mbit": "100000", ..., "network_speed_mbit": "200000"` in
    `systems/<sys>.json`.
    How to fix: keep one of the two lines (the one that is true).
    Data used: none. Whether the other value would change a verdict is ST025.
    Official: the official checkers read such files silently (last value); mlpc rejected them as
    invalid JSON before (22 results of the published v4.1 round).
    """
    for rel, dup in ctx.json_duplicates:
        yield finding(rel, dup.describe(), expected="each key once per object",
                      actual=f"{dup.key!r} x{len(dup.values)}: {', '.join(dup.values)}",
                      hint=f"keep one {dup.key!r} line; the last value ({dup.values[-1]}) is the one used",
                      pointer=f"{dup.pointer}/{dup.key}", key=dup.key, values=list(dup.values))


def _variants(ctx):
    """(file, duplicate, ctx as a first-value reader would see that one key) for each disagreeing key of
    the system description, the implementation JSON and the power client.json / server.json."""
    system, meas, power = ctx.system, ctx.measurements, ctx.power
    for dup in system.duplicates:
        if dup.disagree:
            data = with_first_values(system.data, (dup,))
            yield system.rel, dup, dataclasses.replace(ctx, system=dataclasses.replace(system, data=data))
    for dup in meas.impl_json_duplicates:
        if dup.disagree:
            impl = with_first_values(meas.impl_json, (dup,))
            yield (f"{meas.rel}/{meas.impl_json_name}", dup,
                   dataclasses.replace(ctx, measurements=dataclasses.replace(meas, impl_json=impl)))
    for rel, dup in (power.json_duplicates if power is not None else ()):
        if dup.disagree:
            field = "client_json" if rel.endswith("client.json") else "server_json"
            first = with_first_values(getattr(power, field), (dup,))
            yield rel, dup, dataclasses.replace(ctx, power=dataclasses.replace(power, **{field: first}))


def _model_of(ctx, rules) -> ModelCtx:
    """The result's model folder as the model-scope checks see it, with each of its scenario folders counted
    as a passed performance run (each sibling's own verdict is its own ST025's business), so that only what
    the duplicated key changes (the system type's required scenarios, the suite) can differ."""
    from checker.naming import canonical_scenario

    scenarios = tuple(dict.fromkeys(s for s in (canonical_scenario(d, rules) for d in ctx.model_scenario_dirs) if s))
    return ModelCtx(division=ctx.division, submitter=ctx.submitter, system=ctx.system, model_dir=ctx.model_dir,
                    mlperf_model=ctx.mlperf_model, rel=ctx.rel.rsplit("/", 1)[0], scenario_dirs=ctx.model_scenario_dirs,
                    stray_files=(), valid_perf_scenarios=scenarios)


def _invalid(ctx, rules) -> bool:
    """Whether an error finding of a system-, model- or result-scope check would make this result invalid."""
    from checker.engine import invalidates  # the engine's grading rule; imported late (it imports the checks)
    from checker.registry import ALL_CHECKS

    model = None
    for item in ALL_CHECKS:
        if item.code in OWN_CODES or rules.severities.get(item.code, "error") != "error":
            continue
        if item.scope == "system" and invalidates("system", item.code, rules):
            target = ctx.system
        elif item.scope == "model" and ctx.model_scenario_dirs:
            model = model or _model_of(ctx, rules)
            target = model
        elif item.scope == "result":
            target = ctx
        else:
            continue
        try:
            if next(iter(item.run(target, rules)), None) is not None:
                return True
        except Exception:  # a check that crashes on the other reading decides nothing here
            continue
    return False


@check("ST025", "duplicate-json-key-changes-verdict", "result")
def duplicate_json_key_changes_verdict(ctx, rules):
    """A key written twice holds two values, and the result's verdict depends on which one is read.

    What it checks: for each key written twice with different values in the result's system
    description, implementation JSON or power `client.json` / `server.json`, every check that can
    invalidate the result is run again with the first value instead of the last (the one every tool
    uses): the system-level checks whose errors invalidate (`system_invalidating_codes`), the model-level
    checks on the result's model folder (each scenario folder counted as present, so that only the
    system type's suite and required scenarios can differ) and the result-level checks; the finding is
    raised when the result would be valid with one value and invalid with the other. Duplicates in
    `model_mapping.json` and endpoint records are reported by ST024 only.
    Why: the verdict must not depend on which JSON reader a reviewer uses; a file that says two things
    about a field a check reads does not describe the submission unambiguously.
    Failing example: `"status": "available"` followed by `"status": "soon"`: the result is invalid
    with the last value and would be valid with the first (or the other way round).
    How to fix: keep one of the two lines (the one that is true).
    Data used: the severities and `system_invalidating_codes` of the round (what makes a result
    invalid), and every table the re-run checks read. Stricter than the official checker, which uses
    the last value silently.
    """
    variants = list(_variants(ctx))
    if not variants:
        return
    used = _invalid(ctx, rules)
    for rel, dup, other in variants:
        if _invalid(other, rules) == used:
            continue
        verdicts = ("invalid", "valid") if used else ("valid", "invalid")
        yield finding(rel, f"{dup.describe()}: the result is {verdicts[0]} with the last value and would be "
                      f"{verdicts[1]} with the first ({dup.values[0]})",
                      expected="one value per key", actual=f"{dup.key!r}: {', '.join(dup.values)}",
                      hint=f"keep the one true {dup.key!r} line", pointer=f"{dup.pointer}/{dup.key}", key=dup.key,
                      values=list(dup.values))


CHECKS = (duplicate_json_key, duplicate_json_key_changes_verdict)
