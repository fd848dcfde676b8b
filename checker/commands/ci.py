"""``mlpc ci ...``: mlpc where submitters and reviewers work.

    mlpc ci github [PATH]          the GitHub Action's step (action.yml): job summary, annotations,
                                   SARIF file, step outputs, exit status
    mlpc ci pre-commit [FILES]...  the pre-commit hook (.pre-commit-hooks.yaml): checks the submitters
                                   holding FILES (the staged files pre-commit passes)

Both are built on :func:`checker.api.check`. Exit codes: 0 passed, 1 failed (an error or an invalid
result; with ``--fail-on warning`` / ``--strict`` a warning too), 2 usage or tool failure.
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from typing import TYPE_CHECKING, List, NoReturn, Optional

import typer

if TYPE_CHECKING:  # rich is imported when a command prints: every CLI start imports this module
    from rich.console import Console

from checker.cli_console import new_console

from checker.diagnostics import MlpcError
from checker.words import count

app = typer.Typer(help="Continuous integration: the GitHub Action's step and the pre-commit hook.",
                  no_args_is_help=True)


class FailOn(str, Enum):
    error = "error"
    warning = "warning"


class Scope(str, Enum):
    auto = "auto"
    all = "all"
    changed = "changed"


class ProfileName(str, Enum):
    official = "official"
    smoke = "smoke"


def _err() -> Console:
    return new_console(stderr=True, highlight=False, soft_wrap=True)


def _append(path: str | None, text: str) -> None:
    """Append to a file GitHub gave us ($GITHUB_STEP_SUMMARY, $GITHUB_OUTPUT); nothing without one."""
    if not path:
        return
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise MlpcError(f"cannot write {path}: {exc.strerror or exc}") from None


def _outputs(values: dict) -> str:
    return "".join(f"{key}={value}\n" for key, value in values.items())


def _prefix(root: str, workspace: str) -> str:
    """Where the submission root lies in the repository (the workspace), with / separators."""
    rel = os.path.relpath(os.path.realpath(root), os.path.realpath(workspace))
    return "" if rel == "." else rel.replace(os.sep, "/")


@app.command("github")
def github(
    path: str = typer.Argument(".", help="Submission root, division or submitter folder."),
    round: Optional[str] = typer.Option(None, "--round", "-r", help="Round rules (detected when omitted)."),
    profile: ProfileName = typer.Option(ProfileName.official, "--profile", help="'smoke' for short test runs."),
    waivers: Optional[str] = typer.Option(None, "--waivers", help="Waiver file ({code, path, reason} list)."),
    fail_on: FailOn = typer.Option(FailOn.error, "--fail-on", help="Fail on errors (and invalid results), or on "
                                   "warnings too."),
    scope: Scope = typer.Option(Scope.auto, "--scope", help="all: the whole tree; changed: only the submitters "
                                "holding a file changed since --base; auto: changed when --base is given."),
    base: Optional[str] = typer.Option(None, "--base", help="The pull request's base commit (the action passes "
                                       "github.event.pull_request.base.sha)."),
    sarif: Optional[str] = typer.Option(None, "--sarif", help="SARIF file to write (outside the checked tree)."),
    summary: Optional[str] = typer.Option(None, "--summary", envvar="GITHUB_STEP_SUMMARY",
                                          help="Job summary file to append the Markdown verdict to."),
    outputs: Optional[str] = typer.Option(None, "--outputs", envvar="GITHUB_OUTPUT",
                                          help="Step outputs file (verdict, exit-code, sarif, counts)."),
    workspace: Optional[str] = typer.Option(None, "--workspace", envvar="GITHUB_WORKSPACE",
                                            help="The repository's folder (paths are shown relative to it)."),
    max_annotations: int = typer.Option(50, "--max-annotations", min=0, help="Annotate at most this many "
                                        "findings (errors first)."),
) -> None:
    """Check a submission repository in GitHub Actions (see action.yml).

    Writes the Markdown verdict to the job summary, prints an ::error / ::warning annotation per finding
    (file and line relative to the repository), writes the SARIF file for code scanning and the step
    outputs verdict, exit-code, sarif, results, invalid, errors, warnings. Exit 0 passed, 1 failed,
    2 usage or tool failure."""
    from checker import api
    from checker.commands.report import _inside
    from checker.commands.report_output import write_report
    from checker.loaders.rules import load_rules
    from checker.reporters import github as gh
    from checker.reporters import sarif as sarif_report

    console = _err()
    try:
        if scope == Scope.changed and not base:
            raise MlpcError("--scope changed needs --base (the pull request's base commit)")
        only, scope_text = None, "the whole tree"
        if base and scope != Scope.all:
            from checker.loaders.git_tree import changed_since

            if not os.path.isdir(path):
                raise MlpcError(f"{path}: not a directory")
            only = changed_since(path, base)
            scope_text = f"the submitters changed since {base[:12]} ({len(only)} files changed)"
        report = api.check(path, round=round, profile=profile.value, waivers=waivers, only=only, jobs=None)
        prefix = _prefix(report.root, workspace or os.getcwd())
        failed = gh.failed(report, fail_on.value)
        if sarif and _inside(sarif, report.root):
            raise MlpcError(f"--sarif {sarif} lies inside the checked tree ({report.root}); write it elsewhere "
                            "(the action writes it to $RUNNER_TEMP)")
        if sarif:
            write_report(sarif, sarif_report.render(report, load_rules(report.round).severities, uri_prefix=prefix))
        for line in gh.annotations(report, prefix, max_annotations):
            typer.echo(line)
        _append(summary, gh.summary(report, fail_on.value, scope_text, prefix))
        counts = report.counts()
        _append(outputs, _outputs({"verdict": "failed" if failed else "passed", "exit-code": int(failed),
                                   "sarif": sarif or "", "results": counts["results"], "invalid": counts["invalid"],
                                   "errors": counts["errors"], "warnings": counts["warnings"]}))
    except MlpcError as exc:
        _usage_failure(str(exc), outputs, summary)
    console.print(f"mlpc: {'FAILED' if failed else 'passed'} ({counts['results']} results, {counts['invalid']} "
                  f"invalid, {count(counts['errors'], 'error')}, {count(counts['warnings'], 'warning')}; "
                  f"fail on {fail_on.value}s)",
                  markup=False)
    raise typer.Exit(1 if failed else 0)


def _usage_failure(message: str, outputs: str | None, summary: str | None) -> NoReturn:
    """A usage or tool failure: an ::error annotation, the summary and outputs say so; exit 2."""
    from checker.reporters.github import escape_data

    typer.echo(f"::error title=mlpc::{escape_data(message)}")
    try:
        _append(summary, f"## mlpc: could not check\n\n{message}\n")
        _append(outputs, _outputs({"verdict": "error", "exit-code": 2}))
    except MlpcError as exc:
        _err().print(f"error: {exc}", markup=False)
    _err().print(f"error: {message}", markup=False)
    raise typer.Exit(2)


@app.command("pre-commit")
def pre_commit(
    files: Optional[List[str]] = typer.Argument(None, help="Changed files (pre-commit passes the staged ones); the "
                                               "submitters holding them are checked."),
    root: str = typer.Option(".", "--root", help="The submission root (the folder holding closed/, open/, ...)."),
    round: Optional[str] = typer.Option(None, "--round", "-r", help="Round rules (detected when omitted)."),
    profile: ProfileName = typer.Option(ProfileName.official, "--profile", help="'smoke' for short test runs."),
    waivers: Optional[str] = typer.Option(None, "--waivers", help="Waiver file ({code, path, reason} list)."),
    strict: bool = typer.Option(False, "--strict", help="Refuse the commit on warnings too."),
    staged: bool = typer.Option(True, "--staged/--no-staged", help="Also check the submitters of every path "
                                "staged in git's index, deletions included (pre-commit passes no deleted file)."),
) -> None:
    """Check the submitters holding FILES and the staged paths (the pre-commit hook; .pre-commit-hooks.yaml).

    One line per error and warning (path: CODE severity name: message), then the verdict. Files outside
    every submitter folder only bring the root and division checks. Exit 0 passed, 1 refused, 2 usage
    error. The incremental cache makes a re-check of an unchanged submitter cheap."""
    from checker import api
    from checker.reporters import compact

    paths = list(files or [])
    try:
        if staged:
            from checker.loaders.git_tree import staged_paths

            if not os.path.isdir(root):
                raise MlpcError(f"{root}: not a directory")
            paths += staged_paths(root)
        report = api.check(root, round=round, profile=profile.value, waivers=waivers, only=paths)
    except MlpcError as exc:
        _err().print(f"error: {exc}", markup=False)
        raise typer.Exit(2)
    sys.stdout.write(compact.render(report, strict))
    raise typer.Exit(0 if report.ok(strict) else 1)
