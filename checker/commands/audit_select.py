"""``mlpc audit ...``: eligibility, the seeded random draw, and the nomination table (rules §2.8, §9.6).

Wiring only: source → Submissions → pure logic → print. A source is either a submission tree — checked
by the engine exactly as ``mlpc check`` checks it (round detected from the logs, or ``--round``), valid
results only (checker/audit/tree_adapter.py, checker/audit/from_report.py) — or a JSON file of
Submissions (format in :mod:`checker.models.audit_inputs`).

``--previous`` names what was audited in the previous round: a JSON file of exactly the audited
submissions, or the previous round's tree together with ``--audited ID`` for each audited submission
(a tree without ``--audited`` counts every submission in it as audited, with a warning). Bad input
files become warning lines on stderr, never a traceback.

Exit codes: 0 success; 1 replay mismatch; 2 refusal or unusable input (nothing eligible, ambiguous
candidates, a missing path, a tree whose round cannot be detected, an unknown ``--audited`` id).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

# The audit libraries (pydantic models, hardware tables) are imported inside the commands: `mlpc check`
# and `mlpc --help` do not pay for them.

app = typer.Typer(help="Random audit selection and performance plausibility (rules §2.8, §9.6).",
                  no_args_is_help=True)

ROOT_HELP = "round root (a submission tree, checked as `mlpc check` does) or a JSON file of submissions"
ROUND_HELP = "rules of this round for a tree (default: detected from the logs)"


def _warn(msg: str) -> None:
    typer.echo(f"warning: {msg}", err=True)


def _fail(msg: str) -> None:
    typer.echo(f"error: {msg}", err=True)
    raise typer.Exit(2)


def _load(src: Path, what: str, round_name: str | None = None, jobs: int = 0) -> list:
    from checker.audit.tree_adapter import check_round, is_json_file, submissions_from_json

    if not src.exists():
        _fail(f"{what} {src} does not exist")
    if is_json_file(src):
        return submissions_from_json(src, _warn)
    checked = check_round(src, _warn, round_name=round_name, jobs=jobs or None)
    if checked is None:
        _fail(f"{what} {src} could not be checked (see the warning above)")
    inputs = checked.inputs
    typer.echo(f"{what}: {src}: round {checked.rules.round} ({checked.round_reason}); "
               f"{len(inputs.submissions)} submissions with valid results", err=True)
    for note in inputs.notes:
        typer.echo(f"note: {note}", err=True)
    return list(inputs.submissions)


def _previous(previous: Optional[Path], audited: list[str], round_name: Optional[str], jobs: int) -> list:
    if previous is None:
        if audited:
            _fail("--audited needs --previous (the previous round's tree)")
        return []
    from checker.audit.tree_adapter import is_json_file

    subs = _load(previous, "previous round", round_name, jobs)
    if is_json_file(previous):
        if audited:
            _warn("--audited is ignored with a JSON --previous file (it lists the audited submissions)")
        return subs
    if not audited:
        _warn(f"{previous} is a tree and no --audited id was given: every one of its {len(subs)} "
              "submissions is treated as audited")
        return subs
    by_id = {s.id: s for s in subs}
    unknown = sorted(set(audited) - set(by_id))
    if unknown:
        _fail(f"--audited {', '.join(unknown)}: not a submission of {previous} "
              f"(ids look like closed/<submitter>/<system>)")
    return [by_id[i] for i in sorted(set(audited))]


def _rows(root: Path, previous: Optional[Path], audited: list[str], earlier: list[Path], no_guidance: bool,
          round_name: Optional[str], previous_round: Optional[str], jobs: int):
    cur = _load(root, "round", round_name, jobs)
    prev = _previous(previous, audited, previous_round, jobs)
    old = [s for p in earlier for s in _load(p, "earlier audits", None, jobs)]
    from checker.audit.eligibility import eligible as compute_eligible

    try:
        return compute_eligible(cur, prev, old, apply_guidance=not no_guidance)
    except ValueError as exc:
        _fail(str(exc))


PREVIOUS = typer.Option(None, "--previous", help="what was audited in the previous round: a JSON file of "
                        "the audited submissions, or the previous round's tree with --audited")
AUDITED = typer.Option([], "--audited", help="id of a submission audited in the previous round "
                       "(division/submitter/system) when --previous is a tree; repeatable")
EARLIER = typer.Option([], "--earlier", help="submissions audited in older rounds (JSON with 'round' set); "
                       "repeatable")
ROUND = typer.Option(None, "--round", "-r", help=ROUND_HELP)
PREVIOUS_ROUND = typer.Option(None, "--previous-round", help="rules of the --previous tree (default: detected)")
JOBS = typer.Option(0, "--jobs", "-j", min=0, help="parallel worker processes for checking a tree (0 = auto)")


@app.command("eligible")
def eligible_cmd(
    root: Path = typer.Argument(..., help=ROOT_HELP),
    previous: Optional[Path] = PREVIOUS,
    audited: list[str] = AUDITED,
    earlier: list[Path] = EARLIER,
    no_guidance: bool = typer.Option(False, "--no-guidance", help="do not apply the 10% guidance"),
    round_name: Optional[str] = ROUND,
    previous_round: Optional[str] = PREVIOUS_ROUND,
    jobs: int = JOBS,
    as_json: bool = typer.Option(False, "--json", help="print JSON rows"),
) -> None:
    """List every submission with its audit verdict, reason and compared numbers."""
    rows = _rows(root, previous, audited, earlier, no_guidance, round_name, previous_round, jobs)
    if as_json:
        typer.echo(json.dumps([r.model_dump(mode="json") for r in rows], indent=2))
        return
    for r in rows:
        typer.echo(f"{r.verdict:20s} {r.submission_id}: {r.reason}")
        for c in r.comparisons:
            typer.echo(f"    {c.model}/{c.scenario} {c.metric}: {c.current:.6g} vs {c.audited:.6g} "
                       f"({c.deviation:+.1%}) {'ok' if c.within else 'OUTSIDE'}")
    n = sum(r.eligible for r in rows)
    typer.echo(f"{n} eligible of {len(rows)} submissions")


@app.command("select")
def select_cmd(
    root: Path = typer.Argument(..., help=ROOT_HELP),
    seed: str = typer.Option(..., "--seed", help="decimal digits = integer seed, anything else = "
                             "string seed (sha256); see checker/audit/selection.py"),
    previous: Optional[Path] = PREVIOUS,
    audited: list[str] = AUDITED,
    earlier: list[Path] = EARLIER,
    no_guidance: bool = typer.Option(False, "--no-guidance"),
    round_name: Optional[str] = ROUND,
    previous_round: Optional[str] = PREVIOUS_ROUND,
    jobs: int = JOBS,
    log: Optional[Path] = typer.Option(None, "--log", help="write the replay log (JSON) here"),
) -> None:
    """Draw the random audit: a submitter uniformly, then one of its eligible submissions."""
    from checker.audit.selection import SelectionError, candidates_from_rows, draw

    rows = _rows(root, previous, audited, earlier, no_guidance, round_name, previous_round, jobs)
    seed_value: int | str = int(seed) if seed.isascii() and seed.isdigit() else seed
    try:
        result = draw(candidates_from_rows(rows), seed_value)
    except SelectionError as exc:
        _fail(str(exc))
    text = json.dumps(result.model_dump(mode="json"), indent=2, sort_keys=True)
    if log:
        try:
            log.write_text(text + "\n", encoding="utf-8")
        except OSError as exc:
            _fail(f"cannot write {log}: {exc.strerror or exc}")
    else:
        typer.echo(text)
    typer.echo(f"selected: {result.result.submission_id} (submitter {result.result.submitter})",
               err=bool(log is None))


@app.command("replay")
def replay_cmd(log: Path = typer.Argument(..., help="replay log written by 'select --log'")) -> None:
    """Re-run a recorded draw from its seed and candidate lists and verify it."""
    from checker.audit.selection import DrawLog, ReplayMismatch, replay

    try:
        data = json.loads(log.read_text(encoding="utf-8"))
        res = replay(DrawLog.model_validate(data) if isinstance(data, dict) else data)
    except (OSError, ValueError, RecursionError) as exc:
        code = 1 if isinstance(exc, ReplayMismatch) else 2
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code) from exc
    typer.echo(f"replay ok: {res.submission_id} (submitter {res.submitter})")


@app.command("nominate")
def nominate_cmd(
    root: Path = typer.Argument(..., help=ROOT_HELP),
    reference: Optional[Path] = typer.Option(None, "--reference", help="previous round (tree or JSON): extra "
                                             "peers, and accelerators absent from it are marked new"),
    round_name: Optional[str] = ROUND,
    reference_round: Optional[str] = typer.Option(None, "--reference-round", help="rules of the --reference tree "
                                                  "(default: detected)"),
    closed_only: bool = typer.Option(True, "--closed-only/--all-divisions"),
    jobs: int = JOBS,
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Nomination table: one row per submission (ID, submitter, system, results per scenario, plausibility
    figures, reason), ranked by audit priority."""
    from checker.audit.nomination import nominations, render_text
    from checker.loaders.hardware import default_tables
    from checker.metrics.plausibility import assess

    subs = [s for s in _load(root, "round", round_name, jobs)
            if not closed_only or s.division.strip().casefold() == "closed"]
    ref = _load(reference, "reference round", reference_round, jobs) if reference else []
    hw, work = default_tables()
    assessed = assess(subs, hw, work, reference=ref)
    rows = nominations(subs, assessed, ref if reference else None)
    if as_json:
        typer.echo(json.dumps({"submissions": [r.model_dump(mode="json") for r in rows],
                               "results": [a.model_dump(mode="json") for a in assessed],
                               "new_accelerators": sorted({r.accelerator for r in rows if r.new_accelerator})},
                              indent=2))
        return
    typer.echo(render_text(rows), nl=False)
    new = sorted({r.accelerator for r in rows if r.new_accelerator})
    if new:
        typer.echo("new accelerators (added to the nomination list by the chairs, rules §2.8): " + ", ".join(new))
    typer.echo(f"{len(rows)} submissions ranked by audit priority (score >= 1: a plausibility flag fired)")


def main() -> None:  # pragma: no cover - convenience for `python -m`
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
