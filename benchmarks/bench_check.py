#!/usr/bin/env python3
"""Time `mlpc check` on a synthetic round made by replicating the real v4.1 subset.

    python benchmarks/bench_check.py --copies 20 --jobs 2      # 20 x 46 = 920 results
    python benchmarks/bench_check.py --copies 66 --jobs 2      # >= 3000 results
    python benchmarks/bench_check.py --src ../shared/real_submissions/v5.1 --round v5.1 --copies 40

Each copy of every submitter folder gets a distinct submitter name (the system JSON's `submitter`
field is rewritten to match). Files are hard-linked where possible, so the synthetic round costs
little disk. Prints wall time, results per second and peak RSS of the checking process.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(os.environ.get("MLPC_SHARED", os.path.join(os.path.dirname(os.path.dirname(HERE)), "shared")),
                      "real_submissions")
DEFAULT_SRC = os.path.join(SHARED, "v4.1")


def _copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def build_round(src: str, dst: str, copies: int) -> int:
    results = 0
    for division in ("closed", "open", "network"):
        div = os.path.join(src, division)
        if not os.path.isdir(div):
            continue
        for submitter in sorted(os.listdir(div)):
            for index in range(copies):
                name = f"{submitter}{index:03d}"
                target = os.path.join(dst, division, name)
                shutil.copytree(os.path.join(div, submitter), target, symlinks=True, copy_function=_copy)
                for sysfile in os.listdir(os.path.join(target, "systems")):
                    path = os.path.join(target, "systems", sysfile)
                    with open(path) as handle:
                        data = json.load(handle)
                    data["submitter"] = name
                    os.remove(path)  # break the hard link before rewriting
                    with open(path, "w") as handle:
                        json.dump(data, handle, indent=1)
    return count_results(dst)


def count_results(root: str) -> int:
    """Scenario folders: <division>/<submitter>/results/<system>/<model>/<scenario>."""
    count = 0
    for division in ("closed", "open", "network"):
        base = os.path.join(root, division)
        if not os.path.isdir(base):
            continue
        for submitter in os.listdir(base):
            results = os.path.join(base, submitter, "results")
            if not os.path.isdir(results):
                continue
            for system in os.listdir(results):
                sys_dir = os.path.join(results, system)
                for model in (os.listdir(sys_dir) if os.path.isdir(sys_dir) else []):
                    model_dir = os.path.join(sys_dir, model)
                    if os.path.isdir(model_dir):
                        count += sum(1 for s in os.listdir(model_dir) if os.path.isdir(os.path.join(model_dir, s)))
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=DEFAULT_SRC)
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", help="build the round into this folder and keep it")
    parser.add_argument("--round", default="v4.1", help="round of the source tree (v4.1, v5.1)")
    args = parser.parse_args()
    if not os.path.isdir(args.src):
        print(f"source tree not found: {args.src}", file=sys.stderr)
        return 2
    work = args.keep or tempfile.mkdtemp(prefix="mlpc-bench-")
    try:
        if not os.path.isdir(os.path.join(work, "closed")):
            build_round(args.src, work, args.copies)
        count = count_results(work)
        # byte-compile the package first, as `pip install` does: with PYTHONDONTWRITEBYTECODE set (CI
        # images often set it) every run would otherwise recompile each module at start-up
        compileall.compile_dir(os.path.join(os.path.dirname(HERE), "checker"), quiet=1)
        print(f"synthetic round: {work} ({args.copies} copies, ~{count} result folders)")
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "checker.cli_main", "check", work, "--round", args.round,
                                   "--format", "json", "--jobs", str(args.jobs), "--no-cache", "--quiet", "--output", os.devnull],
                                  capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            if proc.returncode not in (0, 1):
                print(proc.stderr, file=sys.stderr)
                return 2
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        best = min(times)
        print(f"wall time: best {best:.2f} s, runs {', '.join(f'{t:.2f}' for t in times)} (jobs={args.jobs})")
        print(f"throughput: {count / best:.0f} results/s")
        print(f"peak RSS of one process (largest child): {peak_kb / 1024:.0f} MB")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
