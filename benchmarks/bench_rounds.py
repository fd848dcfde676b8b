#!/usr/bin/env python3
"""Per-result cost of `mlpc check` on synthetic rounds of different layouts and result kinds.

    python benchmarks/bench_rounds.py                          # v4.1 vs v6.0 layout, a few hundred results each
    python benchmarks/bench_rounds.py --case v6.1:v6.1:endpoint:20 --case v6.1:v6.1:loadgen:60

Each case is ``SRC:ROUND[:KIND[:COPIES]]``: the real subset ``../shared/real_submissions/SRC``
replicated COPIES times under distinct submitter names (``bench_check.build_round``), checked as ROUND;
KIND keeps only ``loadgen`` results (a LoadGen detail log in ``performance/run_1`` or ``accuracy``) or
only ``endpoint`` results (neither: the official rule for an endpoint result), ``all`` keeps every
result. Each case is timed at COPIES and at twice COPIES; the per-result cost is the slope
``(t(2n) - t(n)) / (results(2n) - results(n))``, so process start-up and the round-level work that does
not grow with the tree drop out. Best of ``--repeat`` runs, ``--jobs`` worker processes (default 1: the
cost of one core). Prints one line per case and the ratio of each case to the first.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_check import SHARED, build_round, count_results  # noqa: E402

DEFAULT_CASES = ("v4.1:v4.1:all:7", "v6.0:v6.0:all:7")
DETAIL = "mlperf_log_detail.txt"


def is_endpoint(scenario_dir: str) -> bool:
    """No LoadGen detail log in performance/run_1 nor in accuracy (rounds-v6.md 7.2)."""
    return not any(os.path.exists(os.path.join(scenario_dir, *parts, DETAIL))
                   for parts in (("performance", "run_1"), ("accuracy",)))


def keep_only(root: str, kind: str) -> None:
    """Remove the scenario folders that are not of ``kind`` (``loadgen`` or ``endpoint``)."""
    for division in ("closed", "open", "network"):
        base = os.path.join(root, division)
        for submitter in sorted(os.listdir(base)) if os.path.isdir(base) else ():
            results = os.path.join(base, submitter, "results")
            for system in sorted(os.listdir(results)) if os.path.isdir(results) else ():
                sys_dir = os.path.join(results, system)
                for model in sorted(os.listdir(sys_dir)) if os.path.isdir(sys_dir) else ():
                    model_dir = os.path.join(sys_dir, model)
                    if not os.path.isdir(model_dir):
                        continue
                    for scenario in sorted(os.listdir(model_dir)):
                        path = os.path.join(model_dir, scenario)
                        if os.path.isdir(path) and is_endpoint(path) != (kind == "endpoint"):
                            shutil.rmtree(path)


def time_check(root: str, round_name: str, jobs: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "checker.cli_main", "check", root, "--round", round_name,
                               "--format", "json", "--jobs", str(jobs), "--no-cache", "--quiet",
                               "--output", os.devnull], capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if proc.returncode not in (0, 1):
            raise SystemExit(f"mlpc check failed on {root}:\n{proc.stderr}")
        best = min(best, elapsed)
    return best


def run_case(spec: str, jobs: int, repeat: int, work: str) -> dict:
    parts = spec.split(":")
    src, round_name = parts[0], parts[1]
    kind = parts[2] if len(parts) > 2 else "all"
    copies = int(parts[3]) if len(parts) > 3 else 7
    src_dir = src if os.path.isdir(src) else os.path.join(SHARED, src)
    if not os.path.isdir(src_dir):
        raise SystemExit(f"source tree not found: {src_dir}")
    points = []
    for n in (copies, 2 * copies):
        root = os.path.join(work, f"{src.replace('/', '_')}-{kind}-{n}")
        build_round(src_dir, root, n)
        if kind != "all":
            keep_only(root, kind)
        results = count_results(root)
        points.append((results, time_check(root, round_name, jobs, repeat)))
        shutil.rmtree(root, ignore_errors=True)
    (n1, t1), (n2, t2) = points
    per_result = (t2 - t1) / (n2 - n1) if n2 > n1 else float("nan")
    return {"case": spec, "results": (n1, n2), "times": (t1, t2), "ms_per_result": 1000 * per_result}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", help="SRC:ROUND[:KIND[:COPIES]] (repeatable)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    compileall.compile_dir(os.path.join(os.path.dirname(HERE), "checker"), quiet=1)
    rows = []
    work = tempfile.mkdtemp(prefix="mlpc-bench-rounds-")
    try:
        for spec in args.case or DEFAULT_CASES:
            row = run_case(spec, args.jobs, args.repeat, work)
            rows.append(row)
            (n1, n2), (t1, t2) = row["results"], row["times"]
            print(f"{spec:<28} {n1:>5} results {t1:6.2f} s | {n2:>5} results {t2:6.2f} s | "
                  f"{row['ms_per_result']:6.2f} ms per result", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = rows[0]["ms_per_result"]
    for row in rows[1:]:
        print(f"{row['case']} / {rows[0]['case']}: {row['ms_per_result'] / base:.2f}x per result")
    return 0


if __name__ == "__main__":
    sys.exit(main())
