"""``mlpc report ROUND_ROOT --out DIR``: the review committee's bundle for a whole round.

Writes into DIR (atomically: a temporary sibling folder renamed into place; never inside the input
tree):

* ``summary.csv``: the official checker's columns and units for the round, plus the documented
  fixes (invalid results with their status, real compliance and error columns; see
  ``checker/reporters/csv_summary.py``); ``--official-csv`` writes the official layout exactly;
* ``summary_results.json`` (rounds that declare a published table, v6.0 on): the round's published
  results table (``checker/reporters/published_table.py``); ``--private-ids`` fills its PrivateID;
* ``report.json``: the versioned JSON report (``schemas/report.schema.json``);
* ``<division>-<submitter>.md``: one Markdown review pack per submitter;
* ``index.html``: one self-contained offline page (sortable tables, filters, charts).

The helpers it shares with ``mlpc check`` (output formats, waivers) live in ``checker/commands/report_output.py``.
Exit codes: 0 written, 2 usage error (bad path, unknown round, bad waiver file, DIR inside the tree).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from enum import Enum
from typing import NoReturn, Optional

import typer

from checker.commands.report_output import _err, read_waivers, waive
from checker.diagnostics import MlpcError
from checker.words import count


class ProfileName(str, Enum):
    default = "default"
    official = "official"
    smoke = "smoke"


def _fail(message: str) -> NoReturn:
    _err().print(f"error: {message}", markup=False)
    raise typer.Exit(2)


# ---------------------------------------------------------------- bundle writing (the only IO here)

def _safe_name(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._+-]", "_", text)
    return name.lstrip(".") or "_"


def bundle(report, rules, official_csv: bool = False, extras=None, table_all_results: bool = False) -> dict[str, str]:
    """File name -> content of every file of the bundle (pure). ``extras``: per result id, the
    PrivateID and design_power_watts columns (:func:`summary_extras`); ``table_all_results``: the
    published table lists every result with a value, rejected ones too."""
    from checker.reporters import csv_summary, html, json_report, markdown, published_table

    files = {
        "summary.csv": csv_summary.render(report, rules.summary_columns, official=official_csv,
                                          conventions=rules.summary_conventions, extras=extras),
        "report.json": json_report.render(report),
        "index.html": html.render(report),
    }
    table = published_table.render(report, rules, extras, all_results=table_all_results)
    if table is not None:
        files["summary_results.json"] = table
        note = published_table.notes(report) if table_all_results else None
        if note is not None:
            files["summary_results_notes.md"] = note
    index = markdown.pack_index(report)
    for division, submitter in index:
        name = _safe_name(f"{division}-{submitter}") + ".md"
        while name in files:
            name = name[:-3] + "_.md"
        files[name] = markdown.render_pack(report, division, submitter, index=index)
    return files


def summary_extras(report, rules, root: str, private_ids: bool) -> dict[str, dict]:
    """Per result id, the summary columns the report does not hold: ``PrivateID`` (with
    ``private_ids``) and, for a power result of a round with nameplate power, ``design_power_watts``:
    the system description's ``system_power_capacity`` as written, else the sum of the system's
    nameplate YAML (None when it is absent or unusable). Reads the YAML files; writes nothing."""
    from checker.loaders.nameplate import private_id_words, read_nameplate
    from checker.metrics.private_id import private_id

    words = private_id_words() if private_ids else None
    plates: dict[str, object] = {}
    extras: dict[str, dict] = {}
    for r in report.results:
        more: dict[str, object] = {}
        if words:
            more["PrivateID"] = private_id(r.system, *words)
        if rules.nameplate_power_path and r.has_power:
            declared = dict(r.system_fields).get("system_power_capacity")
            if declared is not None:
                more["design_power_watts"] = declared
            else:
                rel = f"{r.division}/{r.submitter}/" + rules.nameplate_power_path.format(system=r.system)
                if rel not in plates:
                    plate, _ = read_nameplate(os.path.join(root, rel))
                    plates[rel] = plate.watts if plate is not None else None
                more["design_power_watts"] = plates[rel]
        if more:
            extras[r.id] = more
    return extras


def _inside(child: str, parent: str) -> bool:
    child, parent = os.path.realpath(child), os.path.realpath(parent)
    return child == parent or child.startswith(parent.rstrip(os.sep) + os.sep)


def write_bundle(files: dict[str, str], out: str, input_root: str) -> None:
    """Write ``files`` into ``out`` atomically. ``out`` must not lie inside ``input_root``; an
    existing ``out`` is replaced only if it is empty or an earlier report (holds report.json)."""
    if _inside(out, input_root):
        raise MlpcError(f"{out}: the output folder must not be inside the checked tree ({input_root})")
    if os.path.lexists(out):
        if not os.path.isdir(out) or os.path.islink(out):
            raise MlpcError(f"{out}: exists and is not a folder")
        existing = os.listdir(out)
        if existing and "report.json" not in existing:
            raise MlpcError(f"{out}: folder is not empty and does not hold an earlier report; choose another --out")
    parent = os.path.dirname(os.path.abspath(out))
    try:
        os.makedirs(parent, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=".mlpc-report-", dir=parent)
    except OSError as exc:
        raise MlpcError(f"{out}: cannot create the output folder: {exc.strerror or exc}") from None
    old = None
    try:
        for name, content in files.items():
            with open(os.path.join(tmp, name), "w", encoding="utf-8", newline="") as handle:
                handle.write(content)
        os.chmod(tmp, 0o755)
        if os.path.isdir(out):
            old = tempfile.mkdtemp(prefix=".mlpc-old-", dir=parent)
            os.rmdir(old)
            os.rename(out, old)
        os.rename(tmp, out)
    except OSError as exc:
        if old and not os.path.exists(out):
            os.rename(old, out)
            old = None
        shutil.rmtree(tmp, ignore_errors=True)
        raise MlpcError(f"{out}: cannot write the report: {exc.strerror or exc}") from None
    if old:
        shutil.rmtree(old, ignore_errors=True)


def report(
    path: str = typer.Argument(..., help="Round root (the folder holding closed/, open/, network/), a division or a "
                               "submitter folder."),
    out: str = typer.Option(..., "--out", "-o", help="Output folder (created or replaced atomically; must not be "
                            "inside the checked tree)."),
    round: Optional[str] = typer.Option(None, "--round", "-r", help="Round rules to apply (v4.1, v5.0, ...). "
                                        "Detected from the logs when omitted."),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, help="Parallel worker processes (0 = one per CPU core for "
                             "trees with many submitters)."),
    waivers: Optional[str] = typer.Option(None, "--waivers", help="YAML or JSON list of {code, path, reason}: "
                                          "matching findings are marked waived and no longer count."),
    official_csv: bool = typer.Option(False, "--official-csv", help="Write summary.csv in the official layout "
                                      "exactly (official columns, valid results only)."),
    table_all_results: bool = typer.Option(False, "--table-all-results", help="summary_results.json lists every "
                                           "result with a value, also those mlpc rejects (default: the accepted "
                                           "ones, as published)."),
    private_ids: bool = typer.Option(False, "--private-ids", help="Fill the PrivateID column (v6.1): a stable "
                                     "anonymous ID per system folder; nothing is written into the tree."),
    profile: ProfileName = typer.Option(ProfileName.default, "--profile",
                                        help="'official' reproduces the round's official checker where it knowingly differs from the rules "
                                        "(see mlpc explain); 'smoke' relaxes run-length limits for short test runs (not compliant)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    use_cache: bool = typer.Option(True, "--cache/--no-cache", help="Reuse earlier checks of unchanged files "
                                   "(keyed by content; shared with mlpc check)."),
    cache_dir: Optional[str] = typer.Option(None, "--cache-dir", help="Cache folder (default ~/.cache/mlpc or "
                                            "$MLPC_CACHE_DIR); never inside the checked tree."),
) -> None:
    """Write a round's review bundle: summary.csv, report.json, review packs, index.html, and the
    published results table summary_results.json for rounds that declare one (v6.0 on).

    One Markdown review pack per submitter (<division>-<submitter>.md) and one self-contained
    offline HTML page; the folder is written atomically and never inside the checked tree.

    Exit codes: 0 written, 2 usage error.
    """
    from checker.cache import open_cache
    from checker.commands.progress import with_progress
    from checker.pipeline import check_tree
    from checker.loaders.detect import rules_for

    if not os.path.isdir(path):
        from checker.loaders.fs import not_a_folder

        _fail(not_a_folder(path))
    try:
        if _inside(out, path):
            raise MlpcError(f"{out}: the output folder must not be inside the checked tree ({path})")
        rules, reason = rules_for(path, round)
        from checker.loaders.tree import load_top, nothing_to_check

        top, units = load_top(path, rules)
        if not units:  # a review bundle of nothing is a wrong path, not a round without findings
            raise MlpcError(nothing_to_check(path, top, rules))
        parsed = read_waivers(waivers) if waivers else None
        cache = open_cache(use_cache, cache_dir)
        result = with_progress(lambda progress: check_tree(path, rules, round_reason=reason, profile=profile.value,
                                                            jobs=jobs or None, progress=progress, cache=cache),
                               quiet, _err())
        if parsed is not None:
            result = waive(result, parsed[0], parsed[1], rules)
        extras = summary_extras(result, rules, path, private_ids)
        files = bundle(result, rules, official_csv=official_csv, extras=extras, table_all_results=table_all_results)
        write_bundle(files, out, path)
    except MlpcError as exc:
        _fail(str(exc))
    counts = result.counts()
    packs = sum(1 for n in files if n.endswith(".md"))
    table = ", summary_results.json" if "summary_results.json" in files else ""
    if "summary_results_notes.md" in files:
        table += " (with rows mlpc rejects: summary_results_notes.md says which and why)"
    _err().print(f"report written to {out}: summary.csv{table}, report.json, index.html and {packs} review pack(s); "
                 f"{counts['results']} results ({counts['valid']} valid, {counts['invalid']} invalid), "
                 f"{count(counts['errors'], 'error')}, {count(counts['warnings'], 'warning')}", markup=False)
