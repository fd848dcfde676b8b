"""Walk a submission tree once and build the immutable contexts the checks read.

This is the only module that decides which files are read for a result. It never
writes, never follows a link out of the tree, and turns every unreadable or
malformed file into an error string on the context instead of raising.
"""

from __future__ import annotations

import hashlib
import operator
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from checker.context import (
    AccuracyCtx, DivisionCtx, MeasurementCtx, ModelCtx, ParsedLog, PathIssue,
    ResultCtx, RootCtx, SubmitterCtx, SystemCtx,
)
from checker.fast_init import replace
from checker.loaders.compliance_folder import ComplianceRecord, load_compliance
from checker.loaders.endpoint import is_endpoint, load_endpoint
from checker.loaders.compiled import compiled
from checker.loaders.fs import Listing, Sandbox
from checker.loaders.inferred_copy import compare_copies, in_inference_order, source_of
from checker.loaders import prewalk
from checker.loaders.power import load_power
from checker.loaders.result_accuracy_log import ResultAccuracyLog
from checker.loaders.loadgen_log import (
    EQUAL_ISSUE_KEY, DetailLog, LogReadError, parse_detail_bytes, parse_summary_text,
)
from checker.metrics.run_record import tokens_per_sample
from checker.naming import canonical_scenario, mlperf_model

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.rules import RoundRules


@dataclass
class Tree:
    """A loaded submission tree: its root, divisions and submitters (the walk's contexts)."""

    root: RootCtx
    divisions: list[DivisionCtx] = field(default_factory=list)
    submitters: list[SubmitterCtx] = field(default_factory=list)
    systems: list[SystemCtx] = field(default_factory=list)
    models: list[ModelCtx] = field(default_factory=list)
    results: list[ResultCtx] = field(default_factory=list)


def locate_root(path: str, divisions: list[str]) -> tuple[str, str]:
    """Accept a submission root, one division folder or one submitter folder.

    Returns (root, focus) where focus is "" for the whole root or the relative
    division / submitter path to restrict the walk to.
    """
    path = os.path.abspath(path)
    name = os.path.basename(path)
    parent = os.path.dirname(path)
    if os.path.isdir(os.path.join(path, "results")) and os.path.basename(parent) in divisions:
        return os.path.dirname(parent), f"{os.path.basename(parent)}/{name}"
    if name in divisions and not any(os.path.isdir(os.path.join(path, d)) for d in divisions):
        return parent, name
    return path, ""


def _parse_detail(box: Sandbox, rel: str, seen: Callable[[DetailLog, bytes], None] | None = None
                  ) -> tuple[DetailLog | None, str | None] | None:
    """The detail log at ``rel``, parsed, or why it could not be read; None when there is no such file.
    ``seen``: called with the log and the file's bytes once it is parsed."""
    if not box.is_file(rel):
        if os.path.islink(box.abs(rel)) and not box.inside(box.abs(rel)):
            return None, "file is a link that leaves the submission tree"
        return None
    raw, error = box.read_text_bytes(rel, limit=64 * 1024 * 1024)
    if raw is None:
        return None, error
    try:
        log = parse_detail_bytes(raw, rel)
    except LogReadError as exc:  # defensive: parse_detail_bytes does not raise today
        return None, str(exc)
    if seen is not None:
        seen(log, raw)
    return log, None


def parse_log(box: Sandbox, rel: str, seen: Callable[[DetailLog, bytes], None] | None = None) -> ParsedLog | None:
    """The detail log at ``rel`` and the summary log next to it; ``seen``: called with the detail log and its
    bytes once it is parsed, before the summary is read."""
    parsed = _parse_detail(box, rel, seen)
    if parsed is None:
        return None
    log, error = parsed
    if log is None:
        return ParsedLog(rel=rel, error=error)
    summary_rel = f"{rel.rsplit('/', 1)[0]}/mlperf_log_summary.txt"
    if not box.is_file(summary_rel):
        return ParsedLog(rel=rel, log=log)
    summary_text, summary_error = box.read_text(summary_rel, limit=4 * 1024 * 1024)
    return ParsedLog(rel=rel, log=log, summary_rel=summary_rel, summary_error=summary_error,
                     summary=parse_summary_text(summary_text) if summary_text is not None else None)


_NAME = operator.attrgetter("name")


#: The walk in C (``checker/_walk_scan.c``; None where it is not built): the same folders, names and sizes as
#: the scandir loop below, which takes over where the folder holds a link, a special file, a name that is not
#: UTF-8, or something that cannot be read.
_WALK = compiled("walk", "_walk_scan")
_BUILD = compiled("build", "_walk_scan")  # the same answer from a folder read ahead (checker.loaders.prewalk)


def _walk_submitter(box: Sandbox, rel: str, rules: RoundRules) -> dict:
    """One pass over the submitter folder (links are not followed)."""
    found: dict[str, list] = {k: [] for k in (
        "broken", "escaping", "large", "hidden", "spaced", "pycache", "empty", "errors", "links")}
    walked = None
    if _WALK is not None:
        path, limit = box.abs(rel), rules.file_size_limit_bytes
        snapshot = prewalk.take(path)
        walked = _BUILD(snapshot, rel, limit) if snapshot is not None else _WALK(os.fsencode(path), rel, limit)
    if walked is not None:
        known, *names, large = walked
        for key, paths in zip(("hidden", "spaced", "pycache", "empty"), names):
            found[key] = sorted(paths)
        found["large"] = [PathIssue(path, f"{size} bytes") for path, size in large]
        found["known"] = known
        return found
    return _scandir_walk(box, rel, rules, found)


def _scandir_walk(box: Sandbox, rel: str, rules: RoundRules, found: dict) -> dict:
    """``_walk_submitter`` with os.scandir, into ``found``."""
    known: dict[str, tuple[dict[str, int], frozenset[str]]] = {}  # folders of plain files and folders only
    limit = rules.file_size_limit_bytes
    stack = [rel]
    while stack:
        rel_dir = stack.pop()
        try:
            with os.scandir(box.abs(rel_dir)) as entries:
                items = sorted(entries, key=_NAME)
        except OSError as exc:
            found["errors"].append(PathIssue(rel_dir, exc.strerror or str(exc)))
            continue
        if not items:
            found["empty"].append(rel_dir)
            known[rel_dir] = ({}, frozenset())
            continue
        name = rel_dir.rsplit("/", 1)[-1]
        if name == "__pycache__":
            found["pycache"].append(rel_dir)
        files: dict[str, int] = {}
        dirs: list[str] = []
        plain = True
        for entry in items:
            rel_name = f"{rel_dir}/{entry.name}"
            if entry.name.startswith("."):
                found["hidden"].append(rel_name)
            if " " in entry.name:
                found["spaced"].append(rel_name)
            try:
                if entry.is_symlink():
                    plain = False
                    found["links"].append(rel_name)
                    target = os.readlink(entry.path)
                    if not os.path.exists(entry.path):
                        found["broken"].append(PathIssue(rel_name, f"-> {target}"))
                    elif not box.inside(entry.path):
                        found["escaping"].append(PathIssue(rel_name, f"-> {target}"))
                    elif os.path.isfile(entry.path) and os.path.getsize(entry.path) > limit:
                        found["large"].append(PathIssue(rel_name, f"{os.path.getsize(entry.path)} bytes"))
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append(rel_name)
                    dirs.append(entry.name)
                elif entry.is_file(follow_symlinks=False):
                    size = entry.stat(follow_symlinks=False).st_size
                    files[entry.name] = size
                    if size > limit:
                        found["large"].append(PathIssue(rel_name, f"{size} bytes"))
                else:
                    plain = False  # a fifo, socket or device
            except OSError as exc:
                plain = False
                found["errors"].append(PathIssue(rel_name, exc.strerror or str(exc)))
        if plain:
            known[rel_dir] = (files, frozenset(dirs))
    for key in ("hidden", "spaced", "pycache", "empty"):
        found[key].sort()
    found["known"] = known
    # dotted folders are reported once, not with every file below them
    return found


def _find_impl_json(listing: Listing, system: str, scenario_dir: str, fixed: str | None) -> str | None:
    if fixed is not None:
        return fixed if fixed in listing.files else None
    for name in listing.files:
        if name.startswith(system) and (name.endswith(f"_{scenario_dir}.json") or name.endswith(".json")):
            return name
    return None


def confs_needed(perf: ParsedLog | None, rules: RoundRules, mlperf_model: str | None, division: str) -> bool:
    """Whether a result's mlperf.conf and user.conf are read: only where PF011 reads them, the one check that does
    (a result that must run in equal-issue mode, whose performance log does not give ``EQUAL_ISSUE_KEY``); a
    round would otherwise read two files a result for nothing."""
    return (perf is not None and perf.log is not None and rules.equal_issue_required(mlperf_model, division)
            and perf.log.get(EQUAL_ISSUE_KEY) is None)


def _measurements(box: Sandbox, rel: str, system: str, scenario_dir: str, rules: RoundRules,
                  want_power: bool, read_confs: bool) -> MeasurementCtx:
    """The measurements folder; ``read_confs``: read mlperf.conf and user.conf too (only a run whose detail log
    does not say whether it used equal-issue mode needs them: :func:`confs_needed`)."""
    listing = box.listing(rel)
    known = box.files_in(rel)
    sizes = (dict(zip(listing.files, map(known.__getitem__, listing.files))) if known is not None
             else {name: box.size(f"{rel}/{name}") or 0 for name in listing.files})
    impl_name = _find_impl_json(listing, system, scenario_dir, rules.layout.implementation_json) if listing.exists else None
    impl, impl_error, impl_dups = (None, None, ())
    if impl_name:
        impl, impl_error, impl_dups = box.read_json_keys(f"{rel}/{impl_name}")
    confs: dict[str, str] = {}
    for conf in ("mlperf.conf", "user.conf") if read_confs else ():
        if conf in listing.files:
            text, _ = box.read_text(f"{rel}/{conf}", limit=1024 * 1024)
            if text is not None:
                confs[conf] = text
    power_files: dict[str, tuple[str | None, int]] = {}
    if want_power:
        for pattern in rules.power.measure_file_patterns:
            regex = re.compile(pattern)
            hit: tuple[str | None, int] = (None, 0)
            probe = rel
            for _ in range(rules.power.measure_file_ancestor_depth + 1):
                lst = box.listing(probe)
                match = next((n for n in lst.files if regex.match(n)), None)
                if match:
                    hit = (f"{probe}/{match}", box.size(f"{probe}/{match}") or 0)
                    break
                probe = os.path.dirname(probe)
            power_files[pattern] = hit
    return MeasurementCtx(rel=rel, listing=listing, sizes=sizes, impl_json_name=impl_name, impl_json=impl,
                          impl_json_error=impl_error, impl_json_duplicates=impl_dups, conf_texts=confs, power_files=power_files)


def _accuracy(box: Sandbox, rel: str, log: ResultAccuracyLog, detail: ParsedLog | None) -> AccuracyCtx:
    listing = box.listing(rel)
    acc_txt, acc_err = (None, None)
    if "accuracy.txt" in listing.files:
        acc_txt, acc_err = box.read_text(f"{rel}/accuracy.txt", limit=8 * 1024 * 1024)
    images = None
    if "images" in listing.dirs:
        images = box.listing(f"{rel}/images").files
    return AccuracyCtx(rel=rel, listing=listing, accuracy_txt=acc_txt, accuracy_txt_error=acc_err,
                       log_rel=log.rel if log.exists else None, log_size=log.size, detail=detail,
                       image_names=images, **log.facts())


def _code_folder(box: Sandbox, sub_rel: str, system: str, model_dir: str, rules: RoundRules) -> str:
    """The code folder of a model's results: the layout's, or the folder its redirect file names (read once
    per model, not once per scenario)."""
    layout = rules.layout
    code_rel = layout.path(layout.code, sub_rel, system, model_dir)
    if layout.code_redirect_file and box.is_file(code_rel):
        text, _ = box.read_text(code_rel, limit=4096)
        code_rel = f"{os.path.dirname(code_rel)}/{(text or '').strip()}"
    return code_rel


def _code_exists(box: Sandbox, code_rel: str, impl: str | None) -> tuple[str, bool]:
    target = f"{code_rel}/{impl}" if impl else code_rel
    return target, box.is_dir(target) or box.is_dir(code_rel)


def load_top(path: str, rules: RoundRules) -> tuple[Tree, list[tuple[str, str]]]:
    """Root and division level only, plus the (division, submitter) units to check."""
    root, focus = locate_root(path, rules.divisions)
    box = Sandbox(root)
    top = box.listing("")
    division_dirs = tuple(d for d in top.dirs if d in rules.divisions)
    unknown = tuple(d for d in top.dirs if d not in rules.divisions and d not in rules.root_ignored_dirs)
    published = tuple(f for f in top.files if f in rules.root_published_files)
    stray = tuple(f for f in top.files if f not in published
                  and not any(f.endswith(s) for s in rules.root_allowed_file_suffixes))
    tree = Tree(root=RootCtx(root=root, division_dirs=division_dirs, unknown_dirs=unknown,
                             stray_files=stray, focus=focus or "root", published_files=published))
    units: list[tuple[str, str]] = []
    for division in division_dirs:
        if focus and not (focus == division or focus.startswith(division + "/")):
            continue
        div_listing = box.listing(division)
        results_root = rules.layout.result.split("/{system}", 1)[0]
        without_results: list[str] = []
        for submitter in div_listing.dirs:
            sub_rel = f"{division}/{submitter}"
            if focus and focus != division and focus != sub_rel:
                continue
            if box.is_dir(f"{sub_rel}/{results_root}"):
                units.append((division, submitter))
            else:
                without_results.append(submitter)
        tree.divisions.append(DivisionCtx(division=division, rel=division, files=div_listing.files,
                                          submitters_without_results=tuple(without_results)))
    return tree, units


def unit_weight(root: str, division: str, submitter: str, rules: RoundRules) -> int:
    """How much work a submitter folder is, roughly: the number of folders three levels below its results
    folder (one per system, model and scenario); what a parallel check orders its work by, largest first,
    so that a large submitter does not start last. Unreadable folders weigh nothing. The last level is
    counted from each model folder's link count (a folder has two links plus one per sub-folder on ext4,
    xfs and tmpfs) where that count says anything, which saves listing ~3,000 folders before the workers
    start on a 1,000-result round; a weight only orders work, it never decides a verdict."""
    top = os.path.join(root, division, submitter, rules.layout.result.split("/{system}", 1)[0])
    level = [top]
    for _ in range(2):
        below: list[str] = []
        for folder in level:
            try:
                with os.scandir(folder) as found:
                    below += [item.path for item in found if item.is_dir(follow_symlinks=False)]
            except OSError:
                continue
        level = below
    weight = 0
    for folder in level:
        try:
            links = os.stat(folder, follow_symlinks=False).st_nlink
            if links < 2:  # btrfs and some network file systems give 1 for every folder: list it
                with os.scandir(folder) as found:
                    links = 2 + sum(1 for item in found if item.is_dir(follow_symlinks=False))
        except OSError:
            continue
        weight += links - 2
    return weight


def nothing_to_check(path: str, tree: Tree, rules: RoundRules) -> str:
    """Why ``path`` (whose walk found no submitter folder with ``results/``) holds nothing to check:
    what was expected where, and what is there instead."""
    divisions = "/, ".join(rules.divisions) + "/"
    focus = tree.root.focus
    if focus in rules.divisions:
        where = f"division folder {path} holds no <submitter>/results/ folder"
    elif tree.root.division_dirs:
        where = (f"{path} has {', '.join(d + '/' for d in tree.root.division_dirs)} but no "
                 f"<division>/<submitter>/results/ folder below it")
    else:
        try:
            names = sorted(os.listdir(path))
        except OSError:
            names = []
        shown = ", ".join(names[:5]) + (f", ... ({len(names)} entries)" if len(names) > 5 else "")
        if "systems" in names:
            where = f"{path} has systems/ but no results/ folder (a submitter folder needs both)"
        else:
            where = f"{path} holds no division folder ({divisions})" + (f"; found: {shown}" if names else "; it is empty")
    return (f"nothing to check: {where}. Give a submission root (holding {divisions}), one division folder, "
            f"or one submitter folder (<division>/<submitter>, holding systems/ and results/)")


def load_submitter(root: str, division: str, submitter: str, rules: RoundRules) -> Tree:
    """Everything under one ``<division>/<submitter>`` folder."""
    box = Sandbox(root)
    tree = Tree(root=RootCtx(root=root, division_dirs=(), unknown_dirs=(), stray_files=(), focus=f"{division}/{submitter}"))
    _load_submitter(box, tree, division, submitter, f"{division}/{submitter}", rules)
    return tree


def load_tree(path: str, rules: RoundRules) -> Tree:
    tree, units = load_top(path, rules)
    for division, submitter in units:
        part = load_submitter(tree.root.root, division, submitter, rules)
        tree.submitters += part.submitters
        tree.systems += part.systems
        tree.models += part.models
        tree.results += part.results
    return tree


def _load_submitter(box: Sandbox, tree: Tree, division: str, submitter: str, sub_rel: str,
                    rules: RoundRules) -> None:
    walk = _walk_submitter(box, sub_rel, rules)
    if not walk["errors"]:
        box.trust(sub_rel, tuple(walk["links"]), walk["known"])
    layout = rules.layout
    systems_dir, _, json_name = layout.system_json.rpartition("/")
    json_prefix, _, json_suffix = json_name.partition("{system}")
    systems_listing = box.listing(f"{sub_rel}/{systems_dir}" if systems_dir else sub_rel)
    systems = tuple(f[len(json_prefix):len(f) - len(json_suffix)] for f in systems_listing.files
                    if f.startswith(json_prefix) and f.endswith(json_suffix) and len(f) >= len(json_prefix) + len(json_suffix))
    results_root = layout.result.split("/{system}", 1)[0]
    results_listing = box.listing(f"{sub_rel}/{results_root}")
    meas_top = layout.top_folder(layout.measurements)
    mapping, mapping_rel, mapping_err = None, None, None
    duplicates: list = []  # (file, DuplicateKey) of every JSON file read for this submitter
    if division == "open" and box.is_file(f"{sub_rel}/model_mapping.json"):
        mapping_rel = f"{sub_rel}/model_mapping.json"
        data, mapping_err, dups = box.read_json_keys(mapping_rel)
        duplicates += [(mapping_rel, d) for d in dups]
        if mapping_err is None:
            if isinstance(data, dict) and all(isinstance(v, str) for v in data.values()):
                mapping = data
            else:
                mapping_err = "model_mapping.json must be an object mapping folder names to model names"
    sub = SubmitterCtx(
        division=division, submitter=submitter, rel=sub_rel,
        broken_links=tuple(walk["broken"]), escaping_links=tuple(walk["escaping"]),
        large_files=tuple(walk["large"]), hidden_names=tuple(walk["hidden"]),
        spaced_names=tuple(walk["spaced"]), pycache_dirs=tuple(walk["pycache"]),
        empty_dirs=tuple(walk["empty"]), walk_errors=tuple(walk["errors"]), systems=systems,
        result_systems=results_listing.dirs, measurement_systems=box.listing(f"{sub_rel}/{meas_top}").dirs if meas_top else (),
        has_calibration=box.is_file(f"{sub_rel}/calibration.md") or box.is_file(f"{sub_rel}/documentation/calibration.md"),
        model_mapping=mapping, model_mapping_rel=mapping_rel, model_mapping_error=mapping_err,
    )
    first_result = len(tree.results)
    copies: list[tuple[str, str]] = []  # (inferred result's folder, its source folder), compared at the end
    for system in results_listing.dirs:
        json_rel = layout.path(layout.system_json, sub_rel, system)
        exists = box.is_file(json_rel)
        data, error, dups = (box.read_json_keys(json_rel) if exists else (None, None, ()))
        duplicates += [(json_rel, d) for d in dups]
        if exists and error is None and not isinstance(data, dict):
            data, error = None, f"system description must be a JSON object, found {type(data).__name__}"
        plate_rel = layout.path(rules.nameplate_power_path, sub_rel, system) if rules.nameplate_power_path else None
        if plate_rel is not None and box.is_file(plate_rel):
            from checker.loaders.nameplate import nameplate_in_tree

            plate, plate_error = nameplate_in_tree(box, plate_rel)
        else:
            plate_rel, plate, plate_error = None, None, None
        sys_ctx = SystemCtx(division=division, submitter=submitter, system=system, rel=json_rel,
                            results_rel=f"{sub_rel}/{results_root}/{system}", exists=exists,
                            data=data if isinstance(data, dict) else None, error=error, duplicates=dups,
                            nameplate_rel=plate_rel, nameplate=plate, nameplate_error=plate_error)
        tree.systems.append(sys_ctx)
        model_listing = box.listing(sys_ctx.results_rel)
        for model_dir in model_listing.dirs:
            model_rel = f"{sys_ctx.results_rel}/{model_dir}"
            scen_listing = box.listing(model_rel)
            mapped = mlperf_model(model_dir, rules, mapping)
            tree.models.append(ModelCtx(division=division, submitter=submitter, system=sys_ctx,
                                        model_dir=model_dir, mlperf_model=mapped, rel=model_rel,
                                        scenario_dirs=scen_listing.dirs, stray_files=scen_listing.files))
            perfs = _performance_logs(box, model_rel, scen_listing.dirs, rules, copies)
            code_rel = _code_folder(box, sub_rel, system, model_dir, rules) if scen_listing.dirs else ""
            for scenario_dir in scen_listing.dirs:
                tree.results.append(_load_result(box, rules, sub_rel, sys_ctx, model_dir, mapped, scenario_dir,
                                                 scen_listing.dirs, perfs[scenario_dir], code_rel))
    tree.results[first_result:] = _with_output_lengths(box, tree.results[first_result:])
    if copies:
        compared = compare_copies(box, copies)
        tree.results[first_result:] = [replace(r, inferred_copy=compared[r.rel]) if r.rel in compared
                                       else r for r in tree.results[first_result:]]
    box.digest_below(())
    box.digests.clear()
    for result in tree.results[first_result:]:
        meas = result.measurements
        duplicates += [(f"{meas.rel}/{meas.impl_json_name}", d) for d in meas.impl_json_duplicates]
        duplicates += list(result.power.json_duplicates) if result.power else []
        duplicates += list(result.endpoint.json_duplicates) if result.endpoint else []
    tree.submitters.append(replace(sub, json_duplicates=tuple(dict.fromkeys(duplicates))))


def _with_output_lengths(box: Sandbox, results: list[ResultCtx]) -> list[ResultCtx]:
    """Each token-logging result with the output length (tokens per sample) its model's other performance runs
    on the same system measured: the sibling scenarios' runs and its own compliance tests' runs."""
    measured: dict[str, float] = {}
    by_model: dict[str, list[tuple[str, str, float]]] = {}  # model folder -> (result, detail log, length)
    for r in results:
        length = tokens_per_sample(r.perf.log) if r.perf is not None and r.perf.log is not None else None
        if length is not None:
            measured[r.rel] = length
            by_model.setdefault(r.rel.rsplit("/", 1)[0], []).append((r.rel, r.perf.rel, length))
    out = []
    for result in results:
        if result.rel not in measured:
            out.append(result)
            continue
        found = [(log_rel, length) for rel, log_rel, length in by_model[result.rel.rsplit("/", 1)[0]]
                 if rel != result.rel]
        if result.compliance_exists:
            for test in box.listing(result.compliance_rel).dirs:
                if test.startswith("TEST"):
                    rel = f"{result.compliance_rel}/{test}/performance/run_1/mlperf_log_detail.txt"
                    log = _compliance_detail(box, result, test, rel)
                    length = tokens_per_sample(log) if log is not None else None
                    if length is not None:
                        found.append((rel, length))
        out.append(replace(result, output_lengths=tuple(found)) if found else result)
    return out


def _performance_logs(box: Sandbox, model_rel: str, scenario_dirs: tuple[str, ...], rules: RoundRules,
                      copies: list[tuple[str, str]]) -> dict[str, ParsedLog | None]:
    """The performance logs of a model's results, parsed before the rest of them: they tell which results are
    inferred copies of a sibling folder (added to ``copies``); the Sandbox then keeps the digest of every file
    read below a copy's folder and its source's, for their comparison (:mod:`checker.loaders.inferred_copy`).
    A copy's log is read before its source's, so the source's logs are digested as they are read, and the
    copy's own log from the bytes just parsed: nothing is hashed for a model without copies."""
    perfs: dict[str, ParsedLog | None] = {}
    for name in in_inference_order(scenario_dirs, rules):
        rel = f"{model_rel}/{name}"
        log_rel = f"{rel}/performance/run_1/mlperf_log_detail.txt"

        def seen(log: DetailLog, raw: bytes, name: str = name, rel: str = rel, log_rel: str = log_rel) -> None:
            source = source_of(box, model_rel, name, scenario_dirs, log, rules)
            if source is not None:
                copies.append((rel, f"{model_rel}/{source}"))
                if log_rel not in box.digests:
                    box.digests[log_rel] = hashlib.sha256(raw).hexdigest()
                box.digest_below({folder for pair in copies for folder in pair})

        perfs[name] = parse_log(box, log_rel, seen)
    return perfs


def _compliance(box: Sandbox, compliance_rel: str, rel: str, rules: RoundRules, model_dir: str, scenario_dir: str,
                perf: ParsedLog | None, accuracy_detail: ParsedLog | None,
                accuracy_log: ResultAccuracyLog) -> ComplianceRecord | None:
    """The result's compliance folder read for its verification (None when the round has no audit spec: the
    compliance checks report that themselves); TEST01 and TEST08 read the result's accuracy log through
    ``accuracy_log``, which is open (one read of it for them, its digest and its facts)."""
    from checker.diagnostics import MlpcError
    from checker.loaders.audit_spec import load_round_spec

    try:
        spec = load_round_spec(rules.round)
    except MlpcError:
        return None
    detail = accuracy_detail.log if accuracy_detail is not None else None
    return load_compliance(box, compliance_rel, rel, spec, model_dir, scenario_dir,
                           reference_summary=perf.summary if perf is not None else None, accuracy_detail=detail,
                           result_log=accuracy_log.start if accuracy_log.exists else None)


def _compliance_detail(box: Sandbox, result: ResultCtx, test: str, rel: str) -> DetailLog | None:
    """The detail log of a compliance test run: the compliance record's when it read it, else parsed here."""
    record = result.compliance
    folder = record.folders.get(test) if record is not None else None
    if folder is not None:
        return folder.detail if isinstance(folder.detail, DetailLog) else None
    parsed = _parse_detail(box, rel)
    return parsed[0] if parsed else None


def _load_result(box: Sandbox, rules: RoundRules, sub_rel: str, sys_ctx: SystemCtx, model_dir: str,
                 mapped: str, scenario_dir: str, siblings: tuple[str, ...], perf: ParsedLog | None,
                 code_folder: str) -> ResultCtx:
    """One result; ``perf``: its performance log, parsed already (:func:`_performance_logs`); ``code_folder``:
    its model's code folder (:func:`_code_folder`)."""
    system = sys_ctx.system
    rel = f"{sys_ctx.results_rel}/{model_dir}/{scenario_dir}"
    perf_rel = f"{rel}/performance"
    power = load_power(box, perf_rel, parse_log)
    layout = rules.layout
    meas = _measurements(box, layout.path(layout.measurements, sub_rel, system, model_dir, scenario_dir), system,
                         scenario_dir, rules, want_power=power is not None,
                         read_confs=confs_needed(perf, rules, mapped, sys_ctx.division))
    impl = None
    if meas.impl_json_name:
        stem = meas.impl_json_name[:-5]
        if stem.endswith(f"_{scenario_dir}"):
            stem = stem[: -len(scenario_dir) - 1]
        impl = stem[len(system) + 1:] if stem.startswith(system + "_") else None
    code_rel, code_exists = _code_exists(box, code_folder, impl)
    leftovers = ()
    if layout.leftover_result_dirs:
        leftovers = tuple(d for d in box.listing(rel).dirs if d in layout.leftover_result_dirs)
    compliance_rel = layout.path(layout.compliance, sub_rel, system, model_dir, scenario_dir)
    scenario = canonical_scenario(scenario_dir, rules)
    compliance = None
    with ResultAccuracyLog(box, f"{rel}/accuracy/mlperf_log_accuracy.json", rules.max_accuracy_log_bytes) as log:
        detail = parse_log(box, f"{rel}/accuracy/mlperf_log_detail.txt")
        if sys_ctx.division in ("closed", "network") and scenario is not None:  # what the compliance checks verify
            compliance = _compliance(box, compliance_rel, rel, rules, model_dir, scenario_dir, perf, detail, log)
        accuracy = _accuracy(box, f"{rel}/accuracy", log, detail)
    return ResultCtx(
        division=sys_ctx.division, submitter=sys_ctx.submitter, system=sys_ctx, model_dir=model_dir,
        mlperf_model=mapped, scenario_dir=scenario_dir, scenario=scenario,
        rel=rel, perf_listing=box.listing(f"{perf_rel}/run_1"), perf=perf, accuracy=accuracy, compliance=compliance,
        measurements=meas, code_rel=code_rel,
        code_exists=code_exists, compliance_rel=compliance_rel, compliance_exists=box.is_dir(compliance_rel),
        power=power, round_name=rules.round, submission_root=box.root, leftover_dirs=leftovers,
        model_scenario_dirs=tuple(siblings),
        endpoint=load_endpoint(box, rel, rules.endpoint) if rules.endpoint and is_endpoint(box, rel, rules.endpoint)
        else None,
    )
