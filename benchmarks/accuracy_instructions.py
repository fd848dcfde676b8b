#!/usr/bin/env python3
"""Count the CPU instructions of the accuracy readers alone (callgrind), on every accuracy log and
``accuracy.txt`` of a tree: the result's log as the load stage reads it (``ResultAccuracyLog``: head,
shape, digest, then its entries once more through the digest), each compliance test's log
(``AccuracyEntries.batches``), and each result's ``accuracy.txt`` (``read_accuracy`` with its model's
targets and limits).

    python benchmarks/accuracy_instructions.py TREE --round v4.1                 # this checkout
    python benchmarks/accuracy_instructions.py TREE --round v4.1 --code ../old   # another checkout

Like benchmarks/instructions.py it runs once with and once without the reading (same imports, same walk
of the tree) and prints the difference in millions of instructions. Needs valgrind.
"""

from __future__ import annotations

import sys

from instructions import main  # (this folder: the scripts run from it)

PROGRAM = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
import checker
assert checker.__file__.startswith(sys.argv[1]), checker.__file__
from functools import partial
from checker.loaders.rules import load_rules
from checker.loaders.fs import Sandbox
from checker.loaders.accuracy_entries import AccuracyEntries
from checker.loaders.result_accuracy_log import ResultAccuracyLog
from checker.metrics.accuracy_metrics import read_accuracy
rules = load_rules(sys.argv[3])
root = os.path.abspath(sys.argv[2])
results, tests, texts = [], [], []
for folder, dirs, files in os.walk(root):
    dirs.sort()
    rel = os.path.relpath(folder, root).replace(os.sep, "/")
    parts = rel.split("/")
    if parts[-1] != "accuracy":
        continue
    if "mlperf_log_accuracy.json" in files:
        (tests if "compliance" in parts else results).append(f"{rel}/mlperf_log_accuracy.json")
    if "accuracy.txt" in files and "results" in parts and len(parts) >= 4:
        model = rules.models.get(parts[-3])
        if model is not None:
            with open(os.path.join(folder, "accuracy.txt"), encoding="utf-8", errors="replace") as f:
                texts.append((f.read(), model, parts[-2]))
box = Sandbox(root)
if sys.argv[4] == "1":
    for rel in results:
        with ResultAccuracyLog(box, rel, rules.max_accuracy_log_bytes) as log:
            if log.exists:
                for rows in AccuracyEntries(box.abs(rel), opener=log.start).batches():
                    pass
            log.facts()
    for rel in tests:
        for rows in AccuracyEntries(box.abs(rel), opener=partial(box.open, rel)).batches():
            pass
    for text, model, scenario in texts:
        targets = [(t.metric, t.target) for t in model.targets_for(scenario)]
        limits = [(u.metric, u.limit) for u in model.upper_limits]
        read_accuracy(text, rules.accuracy_patterns, targets, limits)
print(len(results), len(tests), len(texts), file=sys.stderr)
"""


if __name__ == "__main__":
    sys.exit(main(PROGRAM, "accuracy readers on {tree}", __doc__, digits=1))
