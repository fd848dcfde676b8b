"""Benchmark: recomputing TEST08 and TEST09 from whole accuracy logs (what `mlpc check` does when a
tree ships them untruncated, and what `mlpc audit run` does after each run).

Writes synthetic logs into a temporary folder and times the recomputation:

- TEST09: ``--test09-samples`` outputs of ``--tokens`` 4-byte tokens (gpt-oss-120b: 6396 x ~1278);
- TEST08: an accuracy-run log of ``--test08-acc`` entries with ``--candidates`` candidates each
  (dlrm-v3: 349823 entries; the published logs hold several hundred floats per entry) and a
  performance-run log of ``--test08-perf`` matched entries (published: about 4040).

    python benchmarks/bench_compliance_v6.py [--test09-samples 6396] [--tokens 1278]
        [--test08-acc 349823] [--test08-perf 4046] [--candidates 128] [--repeat 2]

Prints, per test, the log sizes, the best wall time and entries per second.
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from checker.audit import verify_tests_v6 as v6  # noqa: E402
from checker.audit.compliance import AccuracyLogReader  # noqa: E402
from checker.loaders.audit_spec import load_round_spec  # noqa: E402


def _write_log(path: str, entries) -> int:
    with open(path, "w", encoding="ascii") as handle:
        handle.write("[\n")
        first = True
        for seq, (qsl, data) in enumerate(entries):
            handle.write(("" if first else ",\n") + f'{{ "seq_id" : {seq}, "qsl_idx" : {qsl}, "data" : "{data.hex().upper()}" }}')
            first = False
        handle.write("\n]\n")
    return os.path.getsize(path)


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--test09-samples", type=int, default=6396)
    parser.add_argument("--tokens", type=int, default=1278)
    parser.add_argument("--test08-acc", type=int, default=349823)
    parser.add_argument("--test08-perf", type=int, default=4046)
    parser.add_argument("--candidates", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    spec = load_round_spec("v6.0")
    with tempfile.TemporaryDirectory() as tmp:
        t09 = os.path.join(tmp, "t09.json")
        token = struct.pack(f"<{args.tokens}i", *range(args.tokens))
        size = _write_log(t09, ((q, token) for q in range(args.test09_samples)))
        seconds = _best(lambda: v6.output_length_stats(AccuracyLogReader(t09), 4), args.repeat)
        print(f"TEST09 mean length: {args.test09_samples} entries, {size / 2**20:.1f} MiB: {seconds:.2f} s "
              f"({args.test09_samples / seconds:,.0f} entries/s, {size / 2**20 / seconds:.0f} MiB/s)")

        n = args.candidates
        acc = os.path.join(tmp, "acc.json")
        perf = os.path.join(tmp, "perf.json")

        def acc_entries():
            for q in range(args.test08_acc):
                preds = [((q * 7 + k) % 97) / 100 + 0.01 for k in range(n)]
                yield q, struct.pack(f"<{3 + 3 * n}f", q // 1000, q % 1000, *preds, *[float(k % 2) for k in range(n)],
                                     *[1.0] * n, n)

        def perf_entries():
            step = max(1, args.test08_acc // args.test08_perf)
            for q in range(0, args.test08_acc, step)[: args.test08_perf]:
                preds = [((q * 7 + k) % 97) / 100 + 0.01 for k in range(n)]
                yield q, struct.pack(f"<{2 + n}f", q // 1000, q % 1000, *preds)

        acc_size, perf_size = _write_log(acc, acc_entries()), _write_log(perf, perf_entries())
        rule = spec.tests["TEST08"].ne_match
        verdict = None

        def run08():
            nonlocal verdict
            verdict = v6.verify_test08(AccuracyLogReader(acc), AccuracyLogReader(perf), rule)

        seconds = _best(run08, args.repeat)
        print(f"TEST08 NE match: {args.test08_acc} + {args.test08_perf} entries, {(acc_size + perf_size) / 2**20:.1f} MiB, "
              f"{n} candidates: {seconds:.2f} s ({args.test08_acc / seconds:,.0f} accuracy entries/s, "
              f"{(acc_size + perf_size) / 2**20 / seconds:.0f} MiB/s); verdict {'PASS' if verdict.passed else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
