#!/usr/bin/env python3
"""CPU time of the power work of a tree: the power loader and the PW checks, per power result.

    python benchmarks/bench_power.py /tmp/bench/v4.1 --round v4.1
    python benchmarks/bench_power.py ../shared/real_submissions/v5.1 --round v5.1 --repeat 20

The tree is loaded once; then, ``--repeat`` times over every power result: the power part of the
loader (`checker.loaders.power.load_power`: reading and parsing spl.txt, the PTD log and the session
files; the ranging detail log is parsed there too), the PW checks (`checker.checks.power`, the PTD
log walk included) and the power metric of the summary. Prints CPU milliseconds (user+sys of this
process, best repeat) per stage and per power result, and the number of PW findings (which must not
change when the code gets faster).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from checker.checks import power as power_checks  # noqa: E402
from checker.checks.memo import forget  # noqa: E402
from checker.loaders import tree as tree_loader  # noqa: E402
from checker.loaders.fs import Sandbox  # noqa: E402
from checker.loaders.loadgen_log import forget_logs  # noqa: E402
from checker.loaders.power import load_power  # noqa: E402
from checker.loaders.rules import load_rules  # noqa: E402
from checker.metrics.power import PowerError, average_power  # noqa: E402


def _cpu() -> float:
    return time.process_time()  # user+sys of this process, fine-grained


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree")
    parser.add_argument("--round", required=True)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    rules = load_rules(args.round)
    tree = tree_loader.load_tree(os.path.abspath(args.tree), rules)
    results = [r for r in tree.results if r.power is not None]
    if not results:
        print(f"{args.tree}: no power results")
        return 1
    box = Sandbox(tree.root.root)
    best = {"load": float("inf"), "checks": float("inf"), "summary": float("inf")}
    findings = 0
    for _ in range(args.repeat):
        forget_logs()
        start = _cpu()
        for result in results:
            load_power(box, f"{result.rel}/performance", tree_loader.parse_log)
        best["load"] = min(best["load"], _cpu() - start)
        forget()
        start = _cpu()
        findings = sum(len(list(check.run(r, rules))) for r in results for check in power_checks.CHECKS)
        best["checks"] = min(best["checks"], _cpu() - start)
        start = _cpu()
        for r in results:
            log = r.perf.log if r.perf is not None and r.perf.log is not None else None
            if log is not None and r.power.run_samples is not None:
                try:
                    average_power(r.power.run_samples, log.get("power_begin"), log.get("power_end"))
                except PowerError:
                    pass
        best["summary"] = min(best["summary"], _cpu() - start)
    total = sum(best.values())
    print(f"{len(results)} power results, {findings} PW findings, best of {args.repeat} (CPU ms):")
    for name, seconds in best.items():
        print(f"  {name:8s} {seconds * 1000:8.1f}  ({seconds * 1000 / len(results):.2f} per result)")
    print(f"  {'total':8s} {total * 1000:8.1f}  ({total * 1000 / len(results):.2f} per result)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
