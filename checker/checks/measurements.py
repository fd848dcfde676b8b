"""Measurements and code checks (MS): `measurements/<system>/<model>/<scenario>/` and `code/` (v4.1-v5.1),
the scenario folder's `measurements.json`, `user.conf`, `README.md` and `src/` (v6.0+; rules `layout`).

Official references: docs/official-checker.md section E.
"""

from __future__ import annotations

from checker.checks.base import check, finding
from checker.checks.system import is_empty


def _meas(ctx):
    return ctx.measurements if ctx.scenario is not None else None


@check("MS001", "measurements-missing", "result")
def measurements_missing(ctx, rules):
    """The result has no measurements folder.

    What it checks: `measurements/<system>/<model>/<scenario>/` exists (same folder names as results). From
    v6.0 the measurements live in the scenario folder itself (`layout.measurements`), which always exists.
    Why: official checker E1.
    Failing example: `measurements/sys/resnet50/offline/` for `results/sys/resnet50/Offline/`.
    How to fix: create it with user.conf, README.md and the implementation JSON.
    Data used: `layout.measurements`.
    """
    meas = _meas(ctx)
    if meas is not None and not meas.listing.exists:
        yield finding(meas.rel, "measurements folder is missing", expected=meas.rel, actual="missing",
                      hint="folder names must match the results folder exactly")


@check("MS002", "measurement-file-missing", "result")
def measurement_file_missing(ctx, rules):
    """A required measurements file is missing or empty.

    What it checks: the round's required files (v4.1: mlperf.conf, user.conf, README.md; v5.0+:
    user.conf, README.md) exist and are not empty.
    Why: official checker E2/E3.
    Failing example: no `user.conf`.
    How to fix: copy the user.conf used for the run and write the README.
    Data used: `required_measure_files`.
    """
    meas = _meas(ctx)
    if meas is None or not meas.listing.exists:
        return
    for name in rules.required_measure_files:
        if name not in meas.listing.files:
            yield finding(f"{meas.rel}/{name}", f"{name} is missing", expected=name, actual="missing")
        elif meas.sizes.get(name, 0) == 0:
            yield finding(f"{meas.rel}/{name}", f"{name} is empty", expected="non-empty", actual="0 bytes")


@check("MS003", "implementation-json-missing", "result")
def implementation_json_missing(ctx, rules):
    """The implementation JSON is missing, unreadable or lacks a required field.

    What it checks: a `<system>*.json` exists in the measurements folder (v6.0+: `measurements.json` in the
    scenario folder), is a JSON object, and has non-empty input_data_types, retraining,
    starting_weights_filename, weight_data_types and weight_transformations.
    Why: official checker E5 (a missing weight_data_types crashes the v5.0 checker).
    Failing example: `weight_data_types` absent.
    How to fix: add the fields.
    Data used: `implementation_fields`, `layout.implementation_json`.
    """
    meas = _meas(ctx)
    if meas is None or not meas.listing.exists:
        return
    if meas.impl_json_name is None and rules.layout.implementation_json:
        name = rules.layout.implementation_json
        yield finding(f"{meas.rel}/{name}", f"{name} is missing", expected=name, actual="missing",
                      hint="describe the implementation (data types, weights, transformations) there")
        return
    if meas.impl_json_name is None:
        yield finding(meas.rel, f"no {ctx.system.system}*.json implementation description",
                      expected=f"{ctx.system.system}_<impl>_{ctx.scenario_dir}.json or {ctx.system.system}.json",
                      actual="missing")
        return
    rel = f"{meas.rel}/{meas.impl_json_name}"
    if meas.impl_json_error or not isinstance(meas.impl_json, dict):
        yield finding(rel, meas.impl_json_error or "implementation description must be a JSON object",
                      expected="a JSON object", actual="unreadable")
        return
    if all(map(meas.impl_json.get, rules.implementation_fields)):
        return  # (every field present and not empty, told in C: nothing below would be found)
    for name in rules.implementation_fields:
        if name not in meas.impl_json:
            yield finding(rel, f"field {name} is missing", expected=name, actual="absent", pointer=f"/{name}")
        elif is_empty(meas.impl_json[name]):
            yield finding(rel, f"field {name} is missing a meaningful value", expected="non-empty",
                          actual=repr(meas.impl_json[name]), pointer=f"/{name}")


@check("MS004", "code-missing", "result")
def code_missing(ctx, rules):
    """The submitter's code folder for the model is missing.

    What it checks: the round's code folder exists: v4.1-v5.1 `code/<model>` (or the folder named by a
    `code/<model>` redirect file), v6.0+ `<division>/<submitter>/src`.
    Why: official checker E6; closed submissions must publish their code.
    Failing example: results for resnet50 and no `code/resnet50/`.
    How to fix: add the code.
    Data used: `layout.code`, `layout.code_redirect_file`.
    """
    if ctx.scenario is not None and not ctx.code_exists:
        yield finding(ctx.code_rel, "code folder is missing", expected=ctx.code_rel, actual="missing",
                      hint=f"publish the implementation under {rules.layout.code.replace('{model}', '<model>')}/")


@check("MS005", "power-measure-files-missing", "result")
def power_measure_files_missing(ctx, rules):
    """A power result lacks the analyzer table or power settings.

    What it checks: files matching `analyzer_table.*` and `power_settings.*` exist (non-empty) in the
    measurements folder or one of its three parents.
    Why: official checker E4.
    Failing example: a power run without `power_settings.md`.
    How to fix: add both files.
    Data used: `power.measure_file_patterns`, `power.measure_file_ancestor_depth`.
    """
    meas = _meas(ctx)
    if meas is None or ctx.power is None:
        return
    for pattern, (rel, size) in meas.power_files.items():
        if rel is None:
            yield finding(meas.rel, f"no file matching {pattern} here or in the 3 parent folders",
                          expected=pattern, actual="missing")
        elif size == 0:
            yield finding(rel, "power measurement file is empty", expected="non-empty", actual="0 bytes")


CHECKS = (measurements_missing, measurement_file_missing, implementation_json_missing, code_missing,
          power_measure_files_missing)
