"""``mlpc calc bandwidth MODEL THROUGHPUT [--dtype fp16] [--system X.json]``: Appendix B minima.

Wiring only: parse -> :mod:`checker.metrics.bandwidth` / :mod:`checker.metrics.nic` -> print. Prints the
ingress and egress minima with their formula and inputs and, with ``--system``, the declared network
capacity read from a system description and the comparison. Exit codes: 0 the capacity meets both minima
(or no system given), 1 below a minimum or the capacity cannot be read, 2 usage errors.
"""

from __future__ import annotations

import math
import os
from typing import NoReturn, Optional

import typer


def _fail(message: str) -> NoReturn:
    from rich.console import Console  # imported when used: every CLI start imports this module

    Console(stderr=True, highlight=False, soft_wrap=True).print(f"error: {message}", markup=False)
    raise typer.Exit(2)


def bandwidth(
    model: str = typer.Option(..., "--model", "-m", help="Benchmark / MLPerf model name (resnet, bert-99, llama2-70b-99, ...)."),
    throughput: str = typer.Option(..., "--throughput", "-t", help="Measured throughput in samples per second."),
    dtype: Optional[str] = typer.Option(None, "--dtype", "-d",
                                        help="Input data type(s) as in input_data_types, e.g. fp16 or "
                                             "'fp16,int32' (DLRMv2: numerical, categorical)."),
    system: Optional[str] = typer.Option(None, "--system", "-s", help="A systems/<system>.json to compare with."),
) -> None:
    """Appendix B ingress / egress minimum bandwidth for a throughput, optionally against a system JSON."""
    from checker.loaders.fs import Sandbox
    from checker.metrics.bandwidth import declared_types, load_appendix_b, minima
    from checker.metrics.nic import parse_system_network

    try:
        rate = float(throughput.strip())
    except ValueError:
        _fail(f"throughput must be a number of samples per second, got {throughput!r}")
    if not math.isfinite(rate) or rate < 0:
        _fail(f"throughput must be a finite, non-negative number, got {throughput!r}")
    table = load_appendix_b()
    entry = table.for_model(model)
    if entry is None:
        known = sorted({m for b in table.benchmarks.values() for m in b.models})
        _fail(f"no Appendix B row for model {model!r}; known: {', '.join(known)}")
    key, bench = entry
    types = declared_types(dtype, table)
    if dtype and types.assumed:
        _fail(f"unknown data type {dtype!r}; known: {', '.join(table.dtype_sizes)}")
    from rich.console import Console

    out = Console(highlight=False, soft_wrap=True)
    out.print(f"{bench.name} ({bench.dataset}), {table.source}", markup=False)
    needs = minima(table, key, rate, types)
    for need in needs:
        out.print(f"  {need.explanation}", markup=False)
    if system is None:
        raise typer.Exit(0)
    if not os.path.isfile(system):
        _fail(f"{system}: not a file")
    box = Sandbox(os.path.dirname(os.path.abspath(system)))
    data, error = box.read_json(os.path.basename(system))
    if error or not isinstance(data, dict):
        out.print(f"{system}: cannot read the system description: "
                  f"{error or 'not a JSON object'}", markup=False)
        raise typer.Exit(1)
    capacity = parse_system_network(data)
    if not capacity.ok:
        out.print(f"  capacity: unknown ({capacity.explanation})", markup=False)
        raise typer.Exit(1)
    out.print(f"  capacity: {capacity.total_bytes_per_s:.6g} B/s ({capacity.explanation})", markup=False)
    failed = False
    for need in needs:
        ok = need.negligible or capacity.total_bytes_per_s >= need.bytes_per_s
        failed |= not ok
        verdict = "OK" if ok else "BELOW MINIMUM"
        bound = "> 0" if need.negligible else f">= {need.bytes_per_s:.6g} B/s"
        out.print(f"  {need.direction}: {verdict} (needs {bound}, has {capacity.total_bytes_per_s:.6g} B/s)",
                  markup=False)
    raise typer.Exit(1 if failed else 0)
