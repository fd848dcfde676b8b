#!/usr/bin/env python3
"""mlpc and the official checker side by side on one existing round, paired run by run.

    python benchmarks/bench_official.py TREE --round v4.1 \\
        --official "python3 /path/to/submission_checker.py --input {tree} --version {round}" --pairs 5

Runs ``mlpc check TREE --no-cache`` (default ``--jobs``) and the official command in turn, each
as a new process measured as ``bench_scale.py`` measures it (wall time, CPU time of the whole process tree
from ``wait4``, peak RSS of its largest process), and prints each command's median and range and the median
of the per-pair ratios (official / mlpc). Pairing keeps the comparison when the machine's speed drifts from
minute to minute; the first pair is a warm-up and is not counted. The official checker runs in a temporary
folder (it writes its summary.csv where it runs). Without ``--official`` only mlpc is timed.

On a small virtual machine, mind what the official checker leaves: it keeps one core busy and the other idle
for its whole run, and a core left idle that long may run slower for the first second of work that follows
(and its reading of the whole tree may leave less of the file system's metadata in memory). ``--order``
says which run follows which:

* ``alternate`` (default): the pairs take turns, mlpc first in one, the official checker first in the next
  (A B, B A, A B, ...), so that each command follows the other in half of its runs and itself in the other
  half (the usual counterbalanced order: neither command is always measured in the state the other leaves);
* ``mlpc-first``: A B, A B, ...: every counted mlpc run follows a run of the official checker.

``--rest`` waits that many seconds before every run (both commands), so that each starts on an idle machine.
The README's Speed section gives the figures of both orders here.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import tempfile
import time

from bench_scale import REPO, Run, measure, mlpc_cmd, read_counts, start_launcher


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):8.3f}  ({min(values):.3f}-{max(values):.3f})"


def _rows(label: str, runs: list[Run]) -> list[str]:
    return [f"{label:<10}wall s {_spread([r.wall for r in runs])}   CPU s {_spread([r.cpu for r in runs])}   "
            f"peak MB {statistics.median(r.peak_mb for r in runs):.0f}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("tree", help="the round to check (a submission root, as both checkers take it)")
    parser.add_argument("--round", metavar="ROUND", help="mlpc --round, and {round} in --official (default: "
                        "mlpc detects it; then --official must not name {round})")
    parser.add_argument("--official", metavar="CMD", help="the official checker's command line ({tree}: the "
                        "round's path, {round}: --round)")
    parser.add_argument("--pairs", type=int, default=5, help="counted pairs (default 5)")
    parser.add_argument("--order", choices=("alternate", "mlpc-first"), default="alternate",
                        help="which command runs first in each pair (default alternate: each in turn)")
    parser.add_argument("--rest", type=float, default=0.0, metavar="SECONDS",
                        help="seconds to wait before every run (default 0)")
    parser.add_argument("--jobs", type=int, default=0, help="mlpc --jobs (default 0: mlpc's default, one per core)")
    args = parser.parse_args()
    tree = os.path.abspath(args.tree)
    if not os.path.isdir(tree):
        print(f"not a folder: {args.tree}", file=sys.stderr)
        return 2
    if args.pairs < 1:
        print("--pairs must be at least 1", file=sys.stderr)
        return 2
    if args.official and "{round}" in args.official and not args.round:
        print("--official names {round}: give --round", file=sys.stderr)
        return 2
    start_launcher()
    with tempfile.TemporaryDirectory(prefix="mlpc-official-") as work:
        report = os.path.join(work, "report.json")
        mine = mlpc_cmd(tree, args.round, args.jobs, report, None)
        theirs = (shlex.split(args.official.replace("{tree}", shlex.quote(tree)).replace("{round}", args.round or ""))
                  if args.official else None)
        ours: list[Run] = []
        official: list[Run] = []
        def timed(cmd: list[str], cwd: str) -> Run:
            if args.rest > 0:
                time.sleep(args.rest)
            return measure(cmd, cwd=cwd)

        for index in range(args.pairs + 1):  # (the first pair warms both up)
            official_first = bool(theirs) and args.order == "alternate" and index % 2 == 1
            if official_first:
                other = timed(theirs, work)
                run = timed(mine, REPO)
            else:
                run = timed(mine, REPO)
                other = timed(theirs, work) if theirs else None
            if index:
                ours.append(run)
                if other is not None:
                    official.append(other)
            runs = [f"mlpc {run.wall:.2f} s"] + ([f"official {other.wall:.2f} s"] if other is not None else [])
            print(f"pair {index}{' (warm-up)' if not index else ''}: "
                  f"{', '.join(reversed(runs) if official_first else runs)}", file=sys.stderr)
        results, valid = read_counts(report)
    load = os.getloadavg()
    order = f"order {args.order}" + (f", {args.rest:g} s rest before each run" if args.rest > 0 else "")
    print(f"\n{tree}: {results} results ({valid} valid by mlpc); {os.cpu_count()} cores, load average "
          f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; {order}; medians of {args.pairs} (min-max)\n")
    print("\n".join(_rows("mlpc", ours) + (_rows("official", official) if official else [])))
    if official:
        wall = statistics.median(o.wall / m.wall for m, o in zip(ours, official))
        cpu = statistics.median(o.cpu / max(m.cpu, 1e-9) for m, o in zip(ours, official))
        print(f"\nper pair, official / mlpc (median of {len(official)}): {wall:.1f}x the wall time, {cpu:.1f}x the CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
