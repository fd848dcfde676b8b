"""``mlpc audit run TEST04 --sut pkg.module:make_sut --model resnet50 --scenario Offline --out DIR``.

The test can also be given as ``--test TEST07``. The round is ``--round``, else the round of the tree
``--round-from`` names, else the round whose seeds the installed LoadGen writes (6.0.17: v6.1); a
LoadGen that writes another round's seeds is refused with the release to install.
"""

from __future__ import annotations

import json
from typing import Optional

import typer

from checker.audit.runner import DEFAULT_TIMEOUT_S, RunnerError, RunPlan, run_audit

app = typer.Typer(help="Run compliance tests against a SUT with the real LoadGen.", no_args_is_help=True)


@app.callback()
def _group() -> None:
    """Compliance-test runner (needs the optional extra: pip install 'mlpc[audit]')."""


@app.command("run")
def run(
    test: Optional[str] = typer.Argument(None, help="TEST01, TEST04, TEST05, TEST06, TEST07, TEST08 or TEST09"),
    test_option: Optional[str] = typer.Option(None, "--test", help="the test, as an option (same as TEST)"),
    sut: str = typer.Option(..., "--sut", help="SUT factory, pkg.module:make_sut"),
    model: str = typer.Option(..., "--model", help="model, e.g. resnet50, llama2-70b-99"),
    scenario: str = typer.Option(..., "--scenario", help="SingleStream, MultiStream, Server or Offline"),
    out: str = typer.Option(..., "--out", help="new output directory (written atomically)"),
    round_name: Optional[str] = typer.Option(None, "--round", help="round whose seeds and pass criteria apply "
                                             "(default: the round of --round-from, else the installed LoadGen's)"),
    round_from: Optional[str] = typer.Option(None, "--round-from", help="submission tree or result folder whose "
                                             "round (read from its logs' seeds) is audited"),
    accept_installed_seeds: bool = typer.Option(False, "--accept-installed-seeds", help="run even when the "
                                                "installed LoadGen writes another round's seeds (verified "
                                                "against those; the verdict says so)"),
    min_duration_ms: int = typer.Option(150, "--min-duration-ms", help="short LoadGen min duration per run"),
    timeout: float = typer.Option(DEFAULT_TIMEOUT_S, "--timeout", help="seconds before a LoadGen run is killed"),
    as_json: bool = typer.Option(False, "--json", help="print the verdict as JSON"),
) -> None:
    """Run TEST against the SUT (reference run + test run), write the compliance folder, verify it."""
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if test and test_option and test.upper() != test_option.upper() or not (test or test_option):
        console.print("[red]error:[/red] give the test once, as TEST or --test")
        raise typer.Exit(2)
    plan = RunPlan((test or test_option).upper(), sut, model, scenario, round_name, min_duration_ms, timeout,
                   round_from, accept_installed_seeds)
    try:
        with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                      console=console, transient=True) as progress:
            task = progress.add_task(f"{plan.test}: starting", total=None)
            outcome = run_audit(plan, out, lambda text, i, n: progress.update(task, description=text))
    except RunnerError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps({"test": outcome.test, "passed": outcome.passed, "out": outcome.out,
                               "round": outcome.round, "round_reason": outcome.round_reason,
                               "notes": outcome.notes, "findings": outcome.findings}, indent=2, sort_keys=True))
    else:
        word = "[green]PASS[/green]" if outcome.passed else "[red]FAIL[/red]"
        Console().print(f"{outcome.test} {word}  ({outcome.seconds:.2f} s)  -> {escape(outcome.out)}",
                        soft_wrap=True)
        Console().print(f"  round {outcome.round}: {escape(outcome.round_reason)}", soft_wrap=True)
        for note in outcome.notes:
            Console().print(f"  [yellow]note:[/yellow] {escape(note)}", soft_wrap=True)
        for finding in outcome.findings:
            Console().print(f"  {finding['code']} {finding['message']}", markup=False)
    raise typer.Exit(0 if outcome.passed else 1)
