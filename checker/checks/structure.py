"""Tree structure checks (ST): divisions, submitter folders, names, links, required folders.

Official references are the letters and numbers of docs/official-checker.md section 2.
"""

from __future__ import annotations

from checker.checks.base import check, finding


def _listing(items, limit: int = 10) -> str:
    items = list(items)
    text = ", ".join(items[:limit])
    return text + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


@check("ST001", "unknown-division-folder", "root")
def unknown_division_folder(ctx, rules):
    """A folder at the submission root is not a division.

    What it checks: every folder at the root is `closed`, `open` or `network`, or one of the
    ignored folders (`.git`, `.github`, `assets`).
    Why: the submission layout (official checker A1) only knows the three divisions.
    Failing example: `Closed/` or `results/` at the root.
    How to fix: move the folder under a division or remove it.
    Data used: `divisions`, `root_ignored_dirs`.
    Official: logged as an error but does not change the exit code; graded as a warning here.
    """
    for name in ctx.unknown_dirs:
        yield finding(name, "folder at the root is not a division", expected=_listing(rules.divisions),
                      actual=name, hint="divisions are closed/, open/ and network/")


@check("ST002", "files-in-root", "root")
def files_in_root(ctx, rules):
    """The submission root holds a file that is not Markdown or PDF.

    What it checks: plain files directly in the root end in `.md` or `.pdf`.
    Why: official checker A2. The official checker invalidates the whole root for it; here it is a
    root-scope error: the run fails (exit status 1) and every result keeps its own verdict
    (deliberate difference: a stray file says nothing about any result). The files published
    results repositories carry at their root are known (ST023) and not reported here.
    Failing example: `notes.txt` next to `closed/`.
    How to fix: move the file into a submitter folder or delete it.
    Data used: `root_allowed_file_suffixes`, `root_published_files`.
    """
    for name in ctx.stray_files:
        yield finding(name, "file outside the division folders", expected=_listing(rules.root_allowed_file_suffixes),
                      actual=name, hint="only *.md and *.pdf may sit at the root")


@check("ST023", "published-root-file", "root")
def published_root_file(ctx, rules):
    """The root holds a file that published results repositories always carry.

    What it checks: plain files at the root named in `root_published_files` (`dbversion`,
    `mkdocs.yml`, `run.sh`, `summary_results.json`: the results database version, the results
    site and the published results table) are reported for the record and are not stray files
    (ST002).
    Why: a published round (`inference_results_<round>`) carries them next to `closed/` and
    `open/`; they are not part of any submission, so checking a published round must not reject it
    for them. A submitter's own tree does not need them.
    Failing example: `summary_results.json` next to `closed/` in a clone of a results repository.
    How to fix: nothing to fix in a published round; leave them out of a submission.
    Data used: `root_published_files`.
    Official: the official checkers up to v5.1 treat them as stray root files (A2, the whole root is
    invalid); the v6 checker does not look at the root. Graded as info here (deliberate difference).
    """
    for name in ctx.published_files:
        yield finding(name, "file of a published results repository at the root",
                      expected="not part of a submission", actual=name,
                      hint="known file of a published round; nothing to do")


@check("ST003", "files-in-division", "division")
def files_in_division(ctx, rules):
    """A division folder holds plain files.

    What it checks: `closed/`, `open/`, `network/` contain only submitter folders.
    Why: official checker A3, which rejects the whole division. Here it is a division-scope error:
    the run fails and every result keeps its own verdict (deliberate difference).
    Failing example: `closed/README.md`.
    How to fix: move the file into a submitter folder.
    Data used: none.
    """
    for name in ctx.files:
        yield finding(f"{ctx.rel}/{name}", "file directly inside a division folder", expected="submitter folders only",
                      actual=name, hint="move it into <division>/<submitter>/")


@check("ST004", "broken-symlink", "submitter")
def broken_symlink(ctx, rules):
    """A symbolic link points at nothing.

    What it checks: every link under the submitter folder resolves (relative to the link's own folder).
    Why: official checker B1. The official checker resolves relative links against the root and so
    wrongly flags valid relative links; mlpc resolves them correctly (deliberate difference).
    Failing example: `code/bert -> ../missing`.
    How to fix: point the link at an existing path inside the tree, or replace it with the files.
    Data used: none.
    """
    for issue in ctx.broken_links:
        yield finding(issue.rel, f"broken symbolic link {issue.detail}", expected="an existing target",
                      actual="target missing", hint="fix or remove the link")


@check("ST005", "symlink-leaves-tree", "submitter", stricter=True)
def symlink_leaves_tree(ctx, rules):
    """A symbolic link points outside the submission tree.

    What it checks: every link resolves to a path inside the submission root.
    Why: a submission must be self-contained; a link out of the tree would make the checker read
    files the submitter does not publish. Stricter than the official checker.
    Failing example: `code/model -> /etc`.
    How to fix: copy the files into the tree.
    Data used: none.
    """
    for issue in ctx.escaping_links:
        yield finding(issue.rel, f"symbolic link leaves the submission tree {issue.detail}",
                      expected="a target inside the tree", actual=issue.detail, hint="copy the files into the tree")


@check("ST006", "file-too-large", "submitter")
def file_too_large(ctx, rules):
    """A file is larger than the 50 MiB limit.

    What it checks: no file under the submitter folder exceeds `file_size_limit_bytes`.
    Why: official checker B2 (GitHub upload limit).
    Failing example: an untruncated 2 GB `mlperf_log_accuracy.json`.
    How to fix: truncate accuracy logs (`mlpc truncate`) or remove the file.
    Data used: `file_size_limit_bytes`.
    """
    for issue in ctx.large_files:
        yield finding(issue.rel, "file larger than the size limit", expected=f"<= {rules.file_size_limit_bytes} bytes",
                      actual=issue.detail, hint="truncate or remove the file")


@check("ST007", "hidden-name", "submitter")
def hidden_name(ctx, rules):
    """A file or folder name starts with a dot.

    What it checks: no name under the submitter folder starts with `.` (`.gitkeep`, `.DS_Store`).
    Why: official checker B3 (git-unfriendly names).
    Failing example: `results/sys/.DS_Store`.
    How to fix: delete the file.
    Data used: none.
    """
    for rel in ctx.hidden_names:
        yield finding(rel, "name starts with a dot", expected="no hidden files", actual=rel.rsplit("/", 1)[-1],
                      hint="delete it")


@check("ST008", "space-in-name", "submitter")
def space_in_name(ctx, rules):
    """A file or folder name contains a space.

    What it checks: no name under the submitter folder contains a space.
    Why: official checker B4.
    Failing example: `results/my system/`.
    How to fix: rename with `-` or `_`.
    Data used: none.
    """
    for rel in ctx.spaced_names:
        yield finding(rel, "name contains a space", expected="no spaces", actual=repr(rel.rsplit("/", 1)[-1]),
                      hint="rename it with - or _")


@check("ST009", "pycache-folder", "submitter")
def pycache_folder(ctx, rules):
    """A `__pycache__` folder was committed.

    What it checks: no `__pycache__` folder under the submitter folder.
    Why: official checker B5.
    Failing example: `code/resnet50/__pycache__/`.
    How to fix: delete it.
    Data used: none.
    """
    for rel in ctx.pycache_dirs:
        yield finding(rel, "__pycache__ folder in the submission", expected="none", actual=rel, hint="delete it")


@check("ST010", "empty-folder", "submitter")
def empty_folder(ctx, rules):
    """A folder is empty.

    What it checks: every folder under the submitter folder has a file or sub-folder.
    Why: official checker B6.
    Failing example: `measurements/sys/resnet50/Offline/` with nothing inside.
    How to fix: fill or delete the folder.
    Data used: none.
    """
    for rel in ctx.empty_dirs:
        yield finding(rel, "empty folder", expected="at least one file", actual="empty", hint="remove the folder")


@check("ST011", "unreadable-path", "submitter")
def unreadable_path(ctx, rules):
    """A folder could not be read while walking the tree.

    What it checks: every folder under the submitter folder can be listed.
    Why: an unreadable folder hides files from every other check.
    Failing example: a folder with permissions 000.
    How to fix: fix the permissions.
    Data used: none.
    """
    for issue in ctx.walk_errors:
        yield finding(issue.rel, f"cannot read: {issue.detail}", expected="readable", actual=issue.detail)


@check("ST012", "model-mapping-invalid", "submitter")
def model_mapping_invalid(ctx, rules):
    """The open division's `model_mapping.json` is not a valid name map.

    What it checks: `open/<submitter>/model_mapping.json`, when present, is a JSON object of strings.
    Why: official checker B9 reads it (and crashes on bad JSON); the mapping decides which
    benchmark an open result is compared with.
    Failing example: `{"my-model": 3}` or a truncated file.
    How to fix: write `{"<result folder name>": "<official model>"}`.
    Data used: none.
    """
    if ctx.model_mapping_error:
        yield finding(ctx.model_mapping_rel, ctx.model_mapping_error, expected="a JSON object of strings",
                      actual="invalid", hint='write {"<folder name>": "<official model>"}')


@check("ST013", "system-description-missing", "system")
def system_description_missing(ctx, rules):
    """A results folder has no system description.

    What it checks: `results/<system>` has a matching `systems/<system>.json`.
    Why: official checker C1; every result of the system is rejected.
    Failing example: `results/sysA/` with only `systems/sysB.json`.
    How to fix: add `systems/<system>.json` with the same name.
    Data used: none.
    """
    if not ctx.exists:
        yield finding(ctx.rel, "system description file is missing", expected=ctx.rel, actual="missing",
                      hint="the JSON name must equal the results folder name")


@check("ST014", "model-not-in-round", "model")
def model_not_in_round(ctx, rules):
    """A closed or network result folder is not an official model of the round.

    What it checks: in closed and network, the model folder maps (name, aliases, heuristics) to a
    model of the round.
    Why: official checker D2.
    Failing example: `closed/X/results/sys/my-resnet/`.
    A model an earlier round had is named with the round that dropped it (v6.1: llama2-70b-99,
    mixtral-8x7b, llama3.1-405b, retinanet, pointpainting).
    How to fix: use the official folder name, or submit it in the open division.
    Data used: `models`, `model_aliases`, `model_heuristics`, `removed_models`.
    """
    if ctx.division in ("closed", "network") and ctx.mlperf_model not in rules.models:
        dropped = rules.removed_models.get(ctx.mlperf_model)
        why = f": {ctx.mlperf_model} was dropped in round {dropped}" if dropped else ""
        yield finding(ctx.rel, f"'{ctx.model_dir}' is not a model of round {rules.round}{why}",
                      expected=_listing(sorted(rules.models), 20), actual=ctx.model_dir,
                      hint="submit it in an earlier round's rules or in the open division" if dropped
                      else "rename the folder to an official model or move it to open/")


@check("ST015", "model-not-for-system-type", "model")
def model_not_for_system_type(ctx, rules):
    """The model is not part of the suite of the system's type.

    What it checks: the mapped model has required scenarios for the system's `system_type`
    (for example bert-99.9 is not an edge benchmark).
    Why: official checker D3.
    Failing example: llama2-70b-99 under an `edge` system.
    How to fix: correct `system_type` or remove the result.
    Data used: `models.*.required_scenarios`.
    """
    system_type = ctx.system.system_type
    if system_type not in rules.system_types:
        return
    model = rules.models.get(ctx.mlperf_model)
    if model is None and ctx.division in ("closed", "network"):
        return  # ST014 reports it
    key = _system_type_key(system_type)
    if model is None or key not in model.required_scenarios:
        yield finding(ctx.rel, f"model {ctx.mlperf_model} is not valid for system_type={system_type}",
                      expected=f"a {system_type} benchmark", actual=ctx.mlperf_model,
                      hint="check system_type in the system description or the model_mapping.json entry")


def _system_type_key(system_type: str) -> str:
    return "datacenter,edge" if system_type in ("datacenter,edge", "edge,datacenter") else system_type


def allowed_scenarios(rules, mlperf_model: str, system_type: str | None) -> tuple[list[str], list[str]]:
    model = rules.models.get(mlperf_model)
    if model is None or system_type is None:
        return [], []
    key = _system_type_key(system_type)
    return list(model.required_scenarios.get(key, [])), list(model.optional_scenarios.get(key, []))


@check("ST016", "scenario-not-allowed", "result")
def scenario_not_allowed(ctx, rules):
    """A closed or network scenario folder is neither required nor optional for the model.

    What it checks: each scenario folder (after lower-case mapping) belongs to the model's scenarios
    for the system type; and its name is a scenario at all.
    Why: official checker D4.
    Failing example: `resnet50/Server/` on an edge-only system.
    How to fix: remove the folder, or fix `system_type`.
    Data used: `scenario_dir_aliases`, `models.*.required_scenarios`, `optional_scenarios`.
    """
    if ctx.scenario is None:
        yield finding(ctx.rel, f"'{ctx.scenario_dir}' is not a scenario name", expected=_listing(rules.scenarios),
                      actual=ctx.scenario_dir, hint="use SingleStream, MultiStream, Server or Offline")
        return
    if ctx.division not in ("closed", "network") or ctx.mlperf_model not in rules.models:
        return
    required, optional = allowed_scenarios(rules, ctx.mlperf_model, ctx.system.system_type)
    if not required and not optional:
        return
    if ctx.scenario not in required + optional:
        yield finding(ctx.rel, f"scenario {ctx.scenario} is neither required nor optional for {ctx.mlperf_model}",
                      expected=_listing(required + optional), actual=ctx.scenario, hint="remove the scenario folder")


@check("ST017", "required-scenario-missing", "model")
def required_scenario_missing(ctx, rules):
    """A closed or network model lacks a valid result for a required scenario.

    What it checks: every required scenario of the model (for the system type) has a result whose
    performance run passed. Also the round's "one of" groups (v5.1: Server or Interactive).
    Why: official checker D5/D6; the model's results are rejected.
    Failing example: an edge resnet50 with SingleStream and Offline but no MultiStream.
    How to fix: add the missing scenario (or infer it where the rules allow).
    Data used: `models.*.required_scenarios`, `models.*.one_of_scenarios`.
    """
    if ctx.division not in ("closed", "network"):
        return
    yield from _missing(ctx, rules)


@check("ST018", "required-scenario-missing-open", "model")
def required_scenario_missing_open(ctx, rules):
    """An open-division model lacks a result for a required scenario.

    What it checks: as ST017, for the open division, where the official checker only warns
    (with `--debug`).
    Why: official checker D5, open leniency.
    Failing example: an open edge resnet50 with Offline only.
    How to fix: add the scenario if you want a complete entry; it is not required in open.
    Data used: `models.*.required_scenarios`.
    """
    if ctx.division != "open":
        return
    yield from _missing(ctx, rules)


def _missing(ctx, rules):
    from checker.naming import canonical_scenario

    required, optional = allowed_scenarios(rules, ctx.mlperf_model, ctx.system.system_type)
    have = set(ctx.valid_perf_scenarios)
    invalid = sorted({canonical_scenario(d, rules) for d in ctx.scenario_dirs} - have - {None})

    def actual() -> str:
        """Valid scenarios, and those whose folder exists but whose performance run is not valid."""
        parts = [_listing(sorted(have))] if have else []
        if invalid:
            parts.append(f"{_listing(invalid)} present but invalid (performance run not valid)")
        return "; ".join(parts) or "none"

    missing = [s for s in required if s not in have]
    if missing:
        yield finding(ctx.rel, f"missing required scenarios: {', '.join(missing)}"
                      + (" (present but invalid)" if set(missing) <= set(invalid) else ""),
                      expected=_listing(required), actual=actual(), hint="add a valid result for each required scenario")
    model = rules.models.get(ctx.mlperf_model)
    for group in (model.one_of_scenarios if model else []):
        if not have.intersection(group):
            yield finding(ctx.rel, f"one of {', '.join(group)} is required", expected=" or ".join(group),
                          actual=actual(), hint="add a valid result for one of them")


@check("ST019", "performance-files-mismatch", "result")
def performance_files_mismatch(ctx, rules):
    """`performance/run_1` is missing or its files are not exactly the required set.

    What it checks: `performance/run_1` exists and holds `mlperf_log_summary.txt` and
    `mlperf_log_detail.txt` (+ `spl.txt` for power runs), optionally `mlperf_log_accuracy.json`,
    `mlperf_log_trace.json`, `results.json`, and nothing else (v6.0+: other files are allowed, and only the
    detail log is required).
    Why: official checker G0a/G0b (v6.0: G0a only; a missing detail log crashes the official checker, 4-L L1).
    Failing example: `performance/run_1/` without `mlperf_log_detail.txt`, or with `run.log`.
    How to fix: copy exactly the LoadGen outputs of the performance run.
    Data used: `required_perf_files`, `optional_perf_files`, `always_optional_files`, `power.required_run_files_extra`,
    `extra_result_files_allowed`.
    """
    if ctx.scenario is None:
        return
    rel = f"{ctx.rel}/performance/run_1"
    if not ctx.perf_listing.exists:
        yield finding(rel, "performance/run_1 is missing", expected="performance/run_1/", actual="missing",
                      hint="copy the performance run's LoadGen logs there")
        return
    required = list(rules.required_perf_files) + (list(rules.power.required_run_files_extra) if ctx.power else [])
    optional = list(rules.optional_perf_files) + list(rules.always_optional_files)
    yield from files_diff(rel, ctx.perf_listing.files, required, optional, rules.extra_result_files_allowed)


def files_diff(rel, present, required, optional, extras_allowed=False):
    present_set = set(present)
    missing = [f for f in required if f not in present_set]
    extra = [] if extras_allowed else sorted(f for f in present_set if f not in required and f not in optional)
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing {', '.join(missing)}")
        if extra:
            parts.append(f"unexpected {', '.join(extra)}")
        yield finding(rel, f"file list mismatch: {'; '.join(parts)}", expected=", ".join(required),
                      actual=", ".join(sorted(present_set)) or "no files", hint="keep exactly the required files")


@check("ST020", "accuracy-files-mismatch", "result")
def accuracy_files_mismatch(ctx, rules):
    """`accuracy/` is missing `accuracy.txt` or its files are not exactly the required set.

    What it checks: `accuracy/` holds `accuracy.txt`, `mlperf_log_accuracy.json`,
    `mlperf_log_detail.txt`, `mlperf_log_summary.txt` and nothing else (sub-folders aside; v6.0+: other
    files are allowed and the summary is not required).
    Why: official checker F1/F2; the scenario is rejected (v6.0: F0/F1; a missing accuracy detail log crashes
    the official checker, 4-L L2).
    Failing example: `accuracy/` without `accuracy.txt`.
    How to fix: run the accuracy script and copy its output plus the LoadGen logs.
    Data used: `required_acc_files`, `always_optional_files`, `extra_result_files_allowed`.
    """
    if ctx.scenario is None:
        return
    acc = ctx.accuracy
    if not acc.listing.exists:
        yield finding(acc.rel, "accuracy folder is missing", expected="accuracy/", actual="missing",
                      hint="copy the accuracy run there")
        return
    yield from files_diff(acc.rel, acc.listing.files, list(rules.required_acc_files), list(rules.always_optional_files),
                          rules.extra_result_files_allowed)


@check("ST021", "systems-without-results", "submitter")
def systems_without_results(ctx, rules):
    """A system description or measurements folder has no results folder.

    What it checks: every `systems/<X>.json` and `measurements/<X>/` has a `results/<X>/`.
    Why: official checker B7 (from v5.1).
    Failing example: `systems/old-system.json` left over from a removed result.
    How to fix: delete the leftover or add its results.
    Data used: `systems_need_results`.
    """
    if not rules.systems_need_results:
        return
    results = set(ctx.result_systems)
    for name in ctx.systems:
        if name not in results:
            yield finding(f"{ctx.rel}/systems/{name}.json", "system description without results",
                          expected=f"{ctx.rel}/results/{name}/", actual="missing", hint="remove it or add its results")
    for name in ctx.measurement_systems:
        if name not in results:
            yield finding(f"{ctx.rel}/measurements/{name}", "measurements folder without results",
                          expected=f"{ctx.rel}/results/{name}/", actual="missing", hint="remove it or add its results")


@check("ST022", "calibration-missing", "submitter")
def calibration_missing(ctx, rules):
    """A closed or network submitter has no `calibration.md`.

    What it checks: `<submitter>/calibration.md` or `<submitter>/documentation/calibration.md` exists.
    Why: official checker B8 (from v5.1); rules require documenting quantization/calibration.
    Failing example: `closed/X/` without any calibration document.
    How to fix: add `calibration.md`.
    Data used: `calibration_required`.
    """
    if rules.calibration_required and ctx.division != "open" and not ctx.has_calibration:
        yield finding(ctx.rel, "calibration document is missing", expected="calibration.md or documentation/calibration.md",
                      actual="missing", hint="describe calibration and quantization in calibration.md")


@check("ST026", "leftover-layout-folder", "result")
def leftover_layout_folder(ctx, rules):
    """A result folder holds a folder of an older round's layout.

    What it checks: in rounds that fold measurements and compliance into the scenario folder (v6.0+), no
    `measurements/` or `compliance/` folder sits inside `results/<system>/<model>/<scenario>/`.
    Why: rounds-v6.md 2.1: the v6.0 layout reads `measurements.json`, `user.conf`, `README.md` and `TEST0x/`
    from the scenario folder itself; a v5.1-style copy inside it is never read, so what it holds was not
    checked and may contradict what was (real: Dell's v6.0 llama3.1-8b results carry `measurements/` and
    `compliance/TEST01/` next to `TEST06/`). The official checker ignores it; reported, not fatal.
    Failing example: `results/sys/resnet50/Offline/compliance/TEST01/`.
    How to fix: move the files to their v6.0 place (the scenario folder) and delete the old folder.
    Data used: `layout.leftover_result_dirs`.
    """
    for name in ctx.leftover_dirs:
        yield finding(f"{ctx.rel}/{name}", f"{name}/ of an older layout inside the result folder; not read",
                      expected=f"no {name}/ here ({rules.round} reads the scenario folder itself)", actual=f"{name}/",
                      hint="move its files to the scenario folder and delete it")


@check("ST027", "submitter-without-results", "division")
def submitter_without_results(ctx, rules):
    """A submitter folder has no results folder.

    What it checks: every folder in a division folder has `results/`.
    Why: a submitter folder without results holds nothing that can be checked or published. The v6.0
    official checker crashes on it (rounds-v6.md 4-L L4, `FileNotFoundError`), the v5.1 one skips it
    silently; mlpc reports it and checks the other submitters.
    Failing example: `closed/Acme/` holding only `systems/` and `src/`.
    How to fix: add the results or remove the folder.
    Data used: `layout.result`.
    """
    results_root = rules.layout.result.split("/{system}", 1)[0]
    for name in ctx.submitters_without_results:
        yield finding(f"{ctx.rel}/{name}", f"submitter folder without {results_root}/",
                      expected=f"{ctx.rel}/{name}/{results_root}/", actual="missing",
                      hint="add the results or remove the folder")


CHECKS = (
    unknown_division_folder, files_in_root, published_root_file, files_in_division, broken_symlink, symlink_leaves_tree,
    file_too_large, hidden_name, space_in_name, pycache_folder, empty_folder, unreadable_path,
    model_mapping_invalid, system_description_missing, model_not_in_round, model_not_for_system_type,
    scenario_not_allowed, required_scenario_missing, required_scenario_missing_open,
    performance_files_mismatch, accuracy_files_mismatch, systems_without_results, calibration_missing,
    leftover_layout_folder, submitter_without_results,
)
