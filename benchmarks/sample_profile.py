#!/usr/bin/env python3
"""CPU-time sampling profile of a serial `mlpc check`: inclusive CPU seconds per function.

    python benchmarks/sample_profile.py TREE --round v4.1                  # top 40 functions
    python benchmarks/sample_profile.py TREE --round v6.0 --match loadgen_log --top 20

cProfile charges every call it records, Python or C (`str.find`, `dict.get`), with the clock reads
around it, so it overstates code that makes many small calls: a loop with four `str.find` calls per log
line looks twice as slow as one with two calls and two slices, while the first is the faster one without
the profiler. This script instead stops the process every 2 ms of CPU time (SIGPROF) and counts the
functions on the stack, so the figures are CPU seconds the check really spends (within the sampling
error, about the square root of a function's sample count). It runs `check TREE --jobs 1 --no-cache`
in this process (POSIX only: setitimer).
"""

from __future__ import annotations

import argparse
import collections
import os
import signal
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

INTERVAL = 0.002  # seconds of CPU time between samples


def _name(code) -> str:
    path = code.co_filename
    where = path.split("/checker/", 1)[1] if "/checker/" in path else os.path.basename(path)
    return f"{where}:{code.co_name}"


def profile(argv: list[str]) -> tuple[float, int, tuple[collections.Counter, collections.Counter]]:
    """(CPU seconds, samples, (samples per function on the stack, samples per function at the top of
    the stack)) of ``mlpc`` run with ``argv``."""
    counts: collections.Counter = collections.Counter()
    leaves: collections.Counter = collections.Counter()
    samples = 0

    def sample(signum, frame) -> None:
        nonlocal samples
        samples += 1
        if frame is not None:
            leaves[_name(frame.f_code)] += 1
        seen = set()
        while frame is not None:
            name = _name(frame.f_code)
            if name not in seen:  # a recursive function counts once per sample
                seen.add(name)
                counts[name] += 1
            frame = frame.f_back

    from checker.cli import app

    signal.signal(signal.SIGPROF, sample)
    start = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, INTERVAL, INTERVAL)
    try:
        app(argv, standalone_mode=False)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
    return time.process_time() - start, samples, (counts, leaves)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", help="submission tree to check")
    parser.add_argument("--round", required=True, help="round rules (v4.1, v5.1, v6.0, ...)")
    parser.add_argument("--top", type=int, default=40, help="functions to print (default 40)")
    parser.add_argument("--match", default="", help="print only functions whose module:name contains this")
    parser.add_argument("--self", dest="own", action="store_true",
                        help="self time: CPU seconds with the function at the top of the Python stack (its own "
                             "code and the C functions it calls), instead of inclusive time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        cpu, samples, (inclusive, own) = profile(["check", args.tree, "--round", args.round, "--format", "json", "--quiet",
                                        "--output", os.path.join(work, "report.json"), "--jobs", "1", "--no-cache"])
    counts = own if args.own else inclusive
    print(f"CPU {cpu:.3f} s, {samples} samples; {'self' if args.own else 'inclusive'} CPU seconds per function:")
    shown = [(n, c) for n, c in counts.most_common() if args.match in n][:args.top]
    for name, count in shown:
        print(f"{count / max(samples, 1) * cpu:8.3f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
