"""``mlpc audit run TEST04 --sut pkg.module:make_sut --model resnet50 --scenario Offline --out DIR``."""

from __future__ import annotations

import json

import typer

from checker.audit.runner import DEFAULT_TIMEOUT_S, RunnerError, RunPlan, run_audit

app = typer.Typer(help="Run compliance tests against a SUT with the real LoadGen.", no_args_is_help=True)


@app.callback()
def _group() -> None:
    """Compliance-test runner (needs the optional extra: pip install 'mlpc[audit]')."""


@app.command("run")
def run(
    test: str = typer.Argument(..., help="TEST01, TEST04, TEST05 or TEST06"),
    sut: str = typer.Option(..., "--sut", help="SUT factory, pkg.module:make_sut"),
    model: str = typer.Option(..., "--model", help="model, e.g. resnet50, llama2-70b-99"),
    scenario: str = typer.Option(..., "--scenario", help="SingleStream, MultiStream, Server or Offline"),
    out: str = typer.Option(..., "--out", help="new output directory (written atomically)"),
    round_name: str = typer.Option("v5.1", "--round", help="round whose pass criteria apply"),
    min_duration_ms: int = typer.Option(150, "--min-duration-ms", help="short LoadGen min duration per run"),
    timeout: float = typer.Option(DEFAULT_TIMEOUT_S, "--timeout", help="seconds before a LoadGen run is killed"),
    as_json: bool = typer.Option(False, "--json", help="print the verdict as JSON"),
) -> None:
    """Run TEST against the SUT (reference run + test run), write the compliance folder, verify it."""
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    plan = RunPlan(test.upper(), sut, model, scenario, round_name, min_duration_ms, timeout)
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
                               "findings": outcome.findings}, indent=2, sort_keys=True))
    else:
        word = "[green]PASS[/green]" if outcome.passed else "[red]FAIL[/red]"
        Console().print(f"{outcome.test} {word}  ({outcome.seconds:.2f} s)  -> {escape(outcome.out)}",
                        soft_wrap=True)
        for finding in outcome.findings:
            Console().print(f"  {finding['code']} {finding['message']}", markup=False)
    raise typer.Exit(0 if outcome.passed else 1)
