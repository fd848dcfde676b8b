"""``mlpc calc ...``: small calculators over the rules' maths.

* ``early-stopping``: LoadGen's early-stopping minima, budgets and estimates;
* ``round``: accuracy rounding to five significant figures, half to even;
* ``infer``: inferred edge results (MultiStream / Offline from SingleStream,
  Offline from MultiStream).

Wiring only: parse -> :mod:`checker.metrics` -> print with rich.  Every bad
input prints one ``error: ...`` line on stderr and exits with code 2 (numbers
are taken as text and parsed here so that typer never prints a usage panel
for them).  The small latency-file reader lives here because it is only a
CLI convenience; the checker never reads raw latencies (LoadGen does not log
them).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, Optional

import typer

if TYPE_CHECKING:  # rich is imported when a command prints: every CLI start imports this module
    from rich.console import Console

from checker.cli_console import new_console

from checker.metrics import early_stopping as es
from checker.metrics import inferred
from checker.metrics.rounding import format_sig
from checker.words import count

app = typer.Typer(
    help="Calculators: LoadGen early stopping, accuracy rounding (5 significant figures, "
    "half to even), inferred edge results.",
    no_args_is_help=True,
)

MAX_LATENCY_FILE_BYTES = 1 << 30


def _out() -> Console:
    return new_console(highlight=False, soft_wrap=True)


def _out_err() -> Console:
    return new_console(stderr=True, highlight=False, soft_wrap=True)


def _fail(message: str) -> NoReturn:
    _out_err().print(f"error: {message}", markup=False)
    raise typer.Exit(2)


def _number(name: str, text: str) -> Decimal:
    try:
        value = Decimal(text.strip())
    except (InvalidOperation, AttributeError):
        _fail(f"{name} must be a number, got {text!r}")
    if not value.is_finite():
        _fail(f"{name} must be a finite number, got {text!r}")
    return value


def _count(name: str, text: str) -> int:
    value = _number(name, text)
    if value != value.to_integral_value() or value < 0:
        _fail(f"{name} must be a non-negative integer, got {text!r}")
    return int(value)


def _percentile(text: str) -> float:
    """``90`` / ``99.9`` as percent, or ``0.9`` as a fraction."""
    value = _number("--percentile", text)
    fraction = value / 100 if value >= 1 else value
    if not (0 < fraction < 1):
        _fail(f"--percentile must be between 0 and 100 (exclusive), got {text!r}")
    return float(fraction)


def _read_latencies(path: Path) -> list[int]:
    """One latency (ns) per line, or a JSON list of numbers."""
    try:
        if path.stat().st_size > MAX_LATENCY_FILE_BYTES:
            _fail(f"{path}: larger than {MAX_LATENCY_FILE_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"{path}: cannot read latencies ({exc.__class__.__name__}: {exc})")
    stripped = text.strip()
    if not stripped:
        _fail(f"{path}: no latencies (empty file)")
    if stripped.startswith("["):
        try:
            items = json.loads(stripped)
        except (json.JSONDecodeError, RecursionError) as exc:
            _fail(f"{path}: invalid JSON list ({exc})")
        if not isinstance(items, list) or not items:
            _fail(f"{path}: expected a non-empty JSON list of latencies in ns")
        pairs = [(f"item {i + 1}", item) for i, item in enumerate(items)]
    else:
        pairs = [(f"line {i + 1}", line.strip()) for i, line in enumerate(text.splitlines()) if line.strip()]
    values: list[int] = []
    for where, item in pairs:
        if isinstance(item, bool) or not isinstance(item, (int, float, str)):
            _fail(f"{path}: {where}: not a latency: {item!r}")
        try:
            number = float(item)
        except ValueError:
            _fail(f"{path}: {where}: not a number: {item!r}")
        if not math.isfinite(number) or number < 0:
            _fail(f"{path}: {where}: latency must be a finite number >= 0, got {item!r}")
        values.append(int(number))
    return values


@app.command("early-stopping")
def early_stopping(
    percentile: str = typer.Option("90", "--percentile", "-p", help="Target percentile: 90, 99 (or 0.9, 0.99)."),
    queries: Optional[str] = typer.Option(None, "--queries", "-n", help="Queries processed by the run."),
    overlatency: Optional[str] = typer.Option(None, "--overlatency", "-t", help="Over-latency queries (Server)."),
    latencies: Optional[Path] = typer.Option(
        None, "--latencies", help="File of latencies in ns (one per line, or a JSON list): prints the estimate."
    ),
) -> None:
    """Early-stopping minima (rules Appendix A), computed the way LoadGen does."""
    p = _percentile(percentile)
    n = _count("--queries", queries) if queries is not None else None
    t = _count("--overlatency", overlatency) if overlatency is not None else None
    if n is not None and t is not None and t > n:
        _fail(f"--overlatency ({t}) cannot exceed --queries ({n})")
    values = _read_latencies(latencies) if latencies is not None else None
    out = _out()
    label = f"p{p * 100:g}"
    out.print(f"[bold]early stopping at {label}[/] (confidence 0.99, tolerance 0)")
    out.print(f"  SingleStream/MultiStream minimum queries (h(1)+1): {es.min_queries_for_percentile(p)}")
    out.print(f"  Server minimum queries with no over-latency query (h(0)): {es.server_min_queries(0, p)}")
    if t is not None:
        needed = es.server_min_queries(t, p)
        out.print(f"  Server with {count(t, 'over-latency query', 'over-latency queries')} needs at least "
                  f"{count(needed, 'query', 'queries')} (h(t)+t)")
    if n is not None:
        budget = es.max_overlatency_allowed(n, p)
        if budget is None:
            out.print(f"  {n} queries are too few for Server even with no over-latency query")
        else:
            out.print(f"  {count(n, 'query', 'queries')} allow at most "
                      f"{count(budget, 'over-latency query', 'over-latency queries')} (Server)")
        if t is not None:
            met, needed = es.server_early_stopping(n, t, p)
            verdict = "[green]met[/]" if met else f"[red]not met[/]: run at least {needed - n} more queries"
            out.print(f"  Server early stopping: {verdict}")
        exp = es.expected_early_stopping("SingleStream", n, None, p)
        if exp.met:
            out.print(f"  SingleStream/MultiStream: met; discards the {exp.discarded} highest latencies")
        else:
            out.print(f"  SingleStream/MultiStream: [red]not met[/]: needs {exp.min_queries} queries")
    if values is not None:
        estimate, discarded = es.percentile_estimate(values, p)
        if estimate is None:
            out.print(
                f"  {len(values)} latencies: [red]no estimate[/], "
                f"need at least {es.min_queries_for_percentile(p)} queries"
            )
        else:
            out.print(
                f"  {len(values)} latencies: {label} early-stopping estimate {estimate} ns "
                f"({estimate / 1e6:g} ms), {discarded} highest discarded"
            )


@app.command("round")
def round_value(
    value: str = typer.Argument(..., help="Accuracy value, e.g. 98.9995 (use `-- -1.5` for a negative)."),
    digits: str = typer.Option("5", "--digits", "-d", help="Significant figures (rules: 5)."),
) -> None:
    """Round to five significant figures, half to even (rules 4.1.1): 98.9995 -> 99.000."""
    d = _count("--digits", digits)
    if d < 1:
        _fail("--digits must be at least 1")
    try:
        text = format_sig(value, d)
    except ValueError as exc:
        _fail(str(exc))
    _out().print(text, markup=False)


_PAIRS = {
    ("singlestream", "multistream"): ("p99 latency", "ms"),
    ("singlestream", "offline"): ("mean latency", "samples/s"),
    ("multistream", "offline"): ("mean query latency", "samples/s"),
}


@app.command("infer")
def infer(
    source: str = typer.Option(..., "--from", help="Measured scenario: SingleStream or MultiStream."),
    target: str = typer.Option(..., "--to", help="Inferred scenario: MultiStream or Offline."),
    latency_ms: str = typer.Option(
        ..., "--latency-ms", help="SS->MS: the SS p99 latency; ->Offline: the mean (query) latency, in ms."
    ),
    samples_per_query: str = typer.Option("8", "--samples-per-query", help="MultiStream samples per query."),
) -> None:
    """Inferred edge result (rules 4.1.1): 25 ms SS p99 -> 200 ms MS; 25 ms SS mean -> 40 /s Offline."""
    try:
        src, dst = es.normalize_scenario(source), es.normalize_scenario(target)
    except ValueError as exc:
        _fail(str(exc))
    pair = (src.lower(), dst.lower())
    if pair not in _PAIRS:
        _fail(f"cannot infer {dst} from {src}; allowed: SingleStream->MultiStream, SingleStream->Offline, MultiStream->Offline")
    latency = _number("--latency-ms", latency_ms)
    spq = _number("--samples-per-query", samples_per_query)
    for name, value in (("--latency-ms", latency), ("--samples-per-query", spq)):
        if value <= 0:
            _fail(f"{name} must be > 0, got {value}")
    try:
        if pair == ("singlestream", "multistream"):
            result = inferred.multistream_from_singlestream(latency)
        elif pair == ("singlestream", "offline"):
            result = inferred.offline_from_singlestream(latency)
        else:
            result = inferred.offline_from_multistream(latency, spq)
    except ValueError as exc:
        _fail(str(exc))
    what, unit = _PAIRS[pair]
    _out().print(f"{dst} inferred from {src}: {result:g} {unit} (from {what} {latency} ms)", markup=False)
