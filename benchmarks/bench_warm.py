#!/usr/bin/env python3
"""Time a warm re-check (an unchanged tree, every entry in the cache) and the start-up of the light commands,
each as a new process, as a user runs them.

    python benchmarks/bench_warm.py /tmp/bench/v4.1 /tmp/bench/v6.0          # median of 5 per figure
    python benchmarks/bench_warm.py TREE --round v4.1 --repeat 9 --code /work/main   # another checkout

For each tree: one `mlpc check TREE --cache-dir D` fills a fresh cache (not timed), then `--repeat` more
runs re-check it (`--format json --quiet --output FILE`, the round detected unless `--round` is given);
the median wall time and the median CPU time (user + sys, from `wait4`) are printed, and the last
report must equal the first byte for byte. Then `mlpc --version`, `mlpc --help` and `mlpc checks`, the
same way. The code runs from a compiled snapshot of the checkout (``--code``: this one by default), as an
installed package would (``PYTHONDONTWRITEBYTECODE`` would otherwise make every run compile the
sources). A tree whose files changed in the last two seconds, or that other processes hard-link (their
links change the files' ctime), is re-checked the careful way: build it with `bench_scale.py --copy`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from bench_incremental import snapshot  # noqa: E402


def measure(cmd: list[str], cwd: str) -> tuple[float, float, int]:
    """(wall s, CPU s of the process and its children, exit code) of one new process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({code}): {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, code


def medians(cmd: list[str], cwd: str, repeat: int) -> tuple[float, float]:
    runs = [measure(cmd, cwd) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", help="submission trees (e.g. /tmp/bench/v4.1 from bench_scale.py)")
    parser.add_argument("--round", help="pass --round (default: detected, as a user's plain `mlpc check TREE`)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--code", default=REPO, help="the checkout to run (default: this one)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="mlpc-bench-warm-")
    try:
        code = snapshot(os.path.join(work, "code"), os.path.abspath(args.code))
        mlpc = [sys.executable, "-m", "checker.cli_main"]
        load = os.getloadavg()
        print(f"code: {args.code} (compiled snapshot); machine: {os.cpu_count()} cores, load average "
              f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; median of {args.repeat} new processes each")
        for tree in args.trees:
            cache, first, last = (os.path.join(work, name) for name in ("cache", "first.json", "last.json"))
            shutil.rmtree(cache, ignore_errors=True)
            check = [*mlpc, "check", os.path.abspath(tree), "--format", "json", "--quiet", "--cache-dir", cache,
                     *(["--round", args.round] if args.round else [])]
            cold = measure([*check, "--output", first], code)
            wall, cpu = medians([*check, "--output", last], code, args.repeat)
            same = open(first, "rb").read() == open(last, "rb").read()
            print(f"{'warm re-check ' + tree:60s} wall {wall:6.3f} s  CPU {cpu:6.3f} s  (filling the cache: "
                  f"{cold[0]:.1f} s wall)  report identical: {same}")
            if not same:
                return 1
        for name, argv in (("mlpc --version", ["--version"]), ("mlpc --help", ["--help"]),
                           ("mlpc checks", ["checks"])):
            wall, cpu = medians([*mlpc, *argv], code, args.repeat)
            print(f"{name:60s} wall {wall:6.3f} s  CPU {cpu:6.3f} s")
        wall, cpu = medians([sys.executable, "-c", "pass"], code, args.repeat)
        print(f"{'(python -c pass: the interpreter alone)':60s} wall {wall:6.3f} s  CPU {cpu:6.3f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
