"""``mlpc audit ...``: eligibility, the seeded random draw, and the nomination table.

Wiring only: load (tree adapter or JSON file) → pure logic → print. ``ROUND_ROOT`` / ``--previous``
accept either a submission tree root or a JSON file of Submissions (format in
:mod:`checker.models.audit_inputs`). The ``--previous`` source must hold exactly the submissions
audited in the previous round (a JSON file is the natural form). Bad input files become warning
lines on stderr, never a traceback.

Exit codes: 0 success; 1 replay mismatch; 2 refusal (nothing eligible, ambiguous candidates,
unreadable input).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from checker.audit.eligibility import eligible as compute_eligible
from checker.audit.selection import (
    DrawLog,
    ReplayMismatch,
    SelectionError,
    candidates_from_rows,
    draw,
    replay,
)
from checker.audit.tree_adapter import load_submissions
from checker.loaders.hardware import default_tables
from checker.metrics.plausibility import assess

app = typer.Typer(help="Random audit selection and performance plausibility (rules §2.8, §9.6).",
                  no_args_is_help=True)


def _warn(msg: str) -> None:
    typer.echo(f"warning: {msg}", err=True)


def _load(src: Path, label: str | None = None):
    if not src.exists():
        typer.echo(f"error: {src} does not exist", err=True)
        raise typer.Exit(2)
    return load_submissions(src, _warn, label)


def _rows(root: Path, previous: Optional[Path], earlier: list[Path], no_guidance: bool):
    cur = _load(root)
    prev = _load(previous) if previous else []
    old = [s for p in earlier for s in _load(p)]
    try:
        return compute_eligible(cur, prev, old, apply_guidance=not no_guidance)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc


@app.command("eligible")
def eligible_cmd(
    root: Path = typer.Argument(..., help="round root (tree) or JSON file of submissions"),
    previous: Optional[Path] = typer.Option(None, "--previous", help="submissions audited in the "
                                            "previous round (tree or JSON)"),
    earlier: list[Path] = typer.Option([], "--earlier", help="submissions audited in older rounds "
                                       "(JSON with 'round' set); repeatable"),
    no_guidance: bool = typer.Option(False, "--no-guidance", help="do not apply the 10% guidance"),
    as_json: bool = typer.Option(False, "--json", help="print JSON rows"),
) -> None:
    """List every submission with its audit verdict, reason and compared numbers."""
    rows = _rows(root, previous, earlier, no_guidance)
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
    root: Path = typer.Argument(..., help="round root (tree) or JSON file of submissions"),
    seed: str = typer.Option(..., "--seed", help="decimal digits = integer seed, anything else = "
                             "string seed (sha256); see checker/audit/selection.py"),
    previous: Optional[Path] = typer.Option(None, "--previous"),
    earlier: list[Path] = typer.Option([], "--earlier"),
    no_guidance: bool = typer.Option(False, "--no-guidance"),
    log: Optional[Path] = typer.Option(None, "--log", help="write the replay log (JSON) here"),
) -> None:
    """Draw the random audit: a submitter uniformly, then one of its eligible submissions."""
    rows = _rows(root, previous, earlier, no_guidance)
    seed_value: int | str = int(seed) if seed.isascii() and seed.isdigit() else seed
    try:
        result = draw(candidates_from_rows(rows), seed_value)
    except SelectionError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    text = json.dumps(result.model_dump(mode="json"), indent=2, sort_keys=True)
    if log:
        log.write_text(text + "\n", encoding="utf-8")
    else:
        typer.echo(text)
    typer.echo(f"selected: {result.result.submission_id} (submitter {result.result.submitter})",
               err=bool(log is None))


@app.command("replay")
def replay_cmd(log: Path = typer.Argument(..., help="replay log written by 'select --log'")) -> None:
    """Re-run a recorded draw from its seed and candidate lists and verify it."""
    try:
        data = json.loads(log.read_text(encoding="utf-8"))
        res = replay(DrawLog.model_validate(data) if isinstance(data, dict) else data)
    except (OSError, ValueError) as exc:
        code = 1 if isinstance(exc, ReplayMismatch) else 2
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code) from exc
    typer.echo(f"replay ok: {res.submission_id} (submitter {res.submitter})")


@app.command("nominate")
def nominate_cmd(
    root: Path = typer.Argument(..., help="round root (tree) or JSON file of submissions"),
    reference: Optional[Path] = typer.Option(None, "--reference", help="previous round (tree or "
                                             "JSON): extra peers and 'new accelerator' detection"),
    closed_only: bool = typer.Option(True, "--closed-only/--all-divisions"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Nomination table: plausibility score per result, highest first, plus new accelerators."""
    subs = [s for s in _load(root) if not closed_only or s.division.strip().casefold() == "closed"]
    ref = _load(reference) if reference else []
    hw, work = default_tables()
    rows = assess(subs, hw, work, reference=ref)
    known = {s.accelerator_identity for s in ref}
    new_acc = sorted({s.accelerator_identity for s in subs} - known) if ref else []
    if as_json:
        typer.echo(json.dumps({"results": [a.model_dump(mode="json") for a in rows],
                               "new_accelerators": new_acc}, indent=2))
        return
    for a in rows:
        score = f"{a.score:.2f}" if a.score is not None else "  - "
        detail = a.roofline.line if a.roofline else f"no assessment: {a.reason}"
        extra = []
        if a.peer_ratio is not None:
            extra.append(f"peer ratio {a.peer_ratio:.2f} (n={a.peer_count})")
        if a.server_offline_ratio is not None:
            extra.append(f"S/O {a.server_offline_ratio:.3f}")
        flags = "".join(f" [{f.level}: {f.name}]" for f in a.flags)
        typer.echo(f"{score} {a.submission_id} {a.model}/{a.scenario} {a.value:g} {a.units}: "
                   f"{detail}{'; ' + ', '.join(extra) if extra else ''}{flags}")
    if new_acc:
        typer.echo("new accelerators (added to the nomination list by the chairs, rules §2.8): "
                   + ", ".join(new_acc))


def main() -> None:  # pragma: no cover - convenience for `python -m`
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
