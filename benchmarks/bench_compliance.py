"""Benchmark: the compliance stage of `mlpc check` alone (the CP checks' verification of every result's
TEST0x folders), in CPU seconds.

Loads each submitter the way the pipeline does, then runs only the compliance verification of its
results and adds up the CPU time (``time.process_time``) spent there; the loading is not counted.
On a shared machine CPU time is steadier than wall time; compare two trees of code in the same
minute, several times each.

    python benchmarks/bench_compliance.py TREE --round v4.1 [--repeat 3] [--profile OUT.prof]

Prints the best and median CPU seconds of the stage over ``--repeat`` passes, the number of results
verified and of findings (the same code must give the same count). ``--profile`` writes a cProfile of
one more pass (the stage only).
"""

from __future__ import annotations

import argparse
import cProfile
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from checker.checks import compliance  # noqa: E402
from checker.checks.memo import forget  # noqa: E402
from checker.loaders.loadgen_log import forget_logs  # noqa: E402
from checker.loaders.rules import load_rules  # noqa: E402
from checker.loaders.tree import load_submitter, load_top  # noqa: E402


def one_pass(root: str, rules, profiler: cProfile.Profile | None = None) -> tuple[float, int, int]:
    """(CPU seconds in the compliance stage, results, findings) over every submitter of ``root``."""
    top, units = load_top(root, rules)
    spent, results, found = 0.0, 0, 0
    for division, submitter in units:
        tree = load_submitter(top.root.root, division, submitter, rules)
        if profiler is not None:
            profiler.enable()
        started = time.process_time()
        for result in tree.results:
            found += len(compliance._findings(result, rules))
        spent += time.process_time() - started
        if profiler is not None:
            profiler.disable()
        results += len(tree.results)
        forget()
        forget_logs()
    return spent, results, found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tree")
    parser.add_argument("--round", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile")
    args = parser.parse_args()
    rules = load_rules(args.round)
    times = []
    for _ in range(args.repeat):
        spent, results, found = one_pass(args.tree, rules)
        times.append(spent)
    print(f"{args.tree} ({args.round}): compliance stage {min(times):.3f} s CPU best, "
          f"{statistics.median(times):.3f} s median of {len(times)}; {results} results, {found} findings")
    if args.profile:
        profiler = cProfile.Profile()
        one_pass(args.tree, rules, profiler)
        profiler.dump_stats(args.profile)
        print(f"profile of one pass written to {args.profile}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
