#!/usr/bin/env python3
"""Count the CPU instructions of a serial check with callgrind: a yardstick that does not move with
the machine's speed (wall times on a shared 2-core VM can differ by 2x from one minute to the next).

    python benchmarks/instructions.py TREE --round v4.1                 # this checkout
    python benchmarks/instructions.py TREE --round v5.1 --code ../old   # another checkout, to compare

It runs `check_tree(TREE, jobs=1)` under `valgrind --tool=callgrind` once with and once without the
check (same imports, rules loaded, numpy and scipy.special imported) and prints the difference in
millions of instructions. Needs valgrind (Debian package `valgrind`). Use a small tree: callgrind runs
about 50x slower than the plain interpreter (a few minutes for ~200 results).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

PROGRAM = """
import sys
sys.path.insert(0, sys.argv[1])
import checker
assert checker.__file__.startswith(sys.argv[1]), checker.__file__
import numpy, scipy.special  # imported in both runs: the check's own work is what is counted
from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
rules = load_rules(sys.argv[3])
if sys.argv[4] == "1":
    check_tree(sys.argv[2], rules, jobs=1)
"""


def callgrind_count(program: str, args: list[str], options: tuple[str, ...] = (), out: str = "/dev/null") -> int:
    """Instructions callgrind collects running ``python -c program *args`` (``options``: callgrind's own);
    the other instruction benchmarks count through this too."""
    proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *options, sys.executable,
                           "-c", program, *args], capture_output=True, text=True)
    match = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or match is None:
        raise SystemExit(f"callgrind run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return int(match.group(1))


def collected(code: str, tree: str, round_name: str, run: bool, program: str = PROGRAM) -> int:
    return callgrind_count(program, [code, tree, round_name, "1" if run else "0"])


def main(program: str = PROGRAM, what: str = "check_tree({tree})", doc: str = __doc__, digits: int = 0) -> int:
    """Count ``program`` run with and without its work (its fourth argument "1" or "0") and print the
    difference as ``what``; the accuracy-reader count runs through here with its own program."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("tree", help="submission tree to check (keep it small)")
    parser.add_argument("--round", required=True, help="round rules (v4.1, v5.0, v5.1, v6.0, v6.1)")
    parser.add_argument("--code", default=REPO, help="checkout whose checker package is measured")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    code = os.path.abspath(args.code)
    base = collected(code, args.tree, args.round, run=False, program=program)
    total = collected(code, args.tree, args.round, run=True, program=program)
    print(f"{code}: {what.format(tree=args.tree)} = {(total - base) / 1e6:,.{digits}f} M instructions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
