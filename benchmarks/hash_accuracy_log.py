"""Benchmark: streaming sha256 of a large accuracy log versus ``sha256sum``.

Writes a synthetic ``mlperf_log_accuracy.json`` (default 2048 MiB) into a
temporary directory, hashes it with :func:`checker.loaders.accuracy_log.sha256_file`
and with coreutils ``sha256sum`` (each in its own child process, so peak RSS
is measured per hasher with ``os.wait4``), prints throughput, the ratio and
peak RSS, then deletes the file.  Each hasher runs ``--repeat`` times
(alternating, file warm in the page cache after generation); the best time
counts.

    python benchmarks/hash_accuracy_log.py [--size-mb 2048] [--repeat 2] [--dir /tmp]

Targets: at least 80% of sha256sum's speed, under 100 MB peak RSS.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MIB = 1 << 20


def write_synthetic_log(path: Path, size_bytes: int) -> int:
    """Write a JSON list of LoadGen-like entries of about ``size_bytes``."""
    payload = os.urandom(512).hex().upper()  # 1024 hex chars per entry
    seq = 0
    written = 0
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write("[\n")
        written += 2
        while written < size_bytes:
            lines = []
            for _ in range(1000):
                lines.append(f'{{ "seq_id" : {seq}, "qsl_idx" : {seq % 50000}, "data" : "{payload}" }},\n')
                seq += 1
            block = "".join(lines)
            f.write(block)
            written += len(block)
        f.write(f'{{ "seq_id" : {seq}, "qsl_idx" : 0, "data" : "{payload}" }}\n]\n')
    return path.stat().st_size


def run_child(argv: list[str]) -> tuple[float, int, str]:
    """Run ``argv``; return (wall seconds, peak RSS in KiB, stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, cwd=REPO)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]} failed with exit code {proc.returncode}")
    return elapsed, usage.ru_maxrss, out  # ru_maxrss is KiB on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=2048, help="log size in MiB (default 2048)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per hasher, best counts (default 2)")
    parser.add_argument("--dir", default=None, help="directory for the temporary file")
    args = parser.parse_args()
    if args.size_mb <= 0 or args.repeat <= 0:
        parser.error("--size-mb and --repeat must be positive")
    if shutil.which("sha256sum") is None:
        print("sha256sum not found on PATH", file=sys.stderr)
        return 2

    ours_cmd = [
        sys.executable,
        "-c",
        "import sys; from checker.loaders.accuracy_log import sha256_file; print(sha256_file(sys.argv[1]))",
    ]
    tmpdir = Path(tempfile.mkdtemp(prefix="mlpc-bench-", dir=args.dir))
    try:
        log = tmpdir / "mlperf_log_accuracy.json"
        t0 = time.perf_counter()
        size = write_synthetic_log(log, args.size_mb * MIB)
        print(f"generated {size / MIB:.0f} MiB in {time.perf_counter() - t0:.1f} s: {log}")

        best = {"mlpc": (float("inf"), 0), "sha256sum": (float("inf"), 0)}
        digests = {}
        for _ in range(args.repeat):
            for name, argv in (("mlpc", ours_cmd + [str(log)]), ("sha256sum", ["sha256sum", str(log)])):
                secs, rss, out = run_child(argv)
                digests[name] = out.split()[0]
                best[name] = (min(best[name][0], secs), max(best[name][1], rss))
        if digests["mlpc"] != digests["sha256sum"]:
            print(f"DIGEST MISMATCH: {digests}", file=sys.stderr)
            return 1

        mib = size / MIB
        for name, (secs, rss) in best.items():
            print(f"{name:>10}: {secs:6.2f} s  {mib / secs:8.1f} MiB/s  peak RSS {rss / 1024:6.1f} MiB")
        ratio = best["sha256sum"][0] / best["mlpc"][0]
        print(f"throughput ratio mlpc / sha256sum: {ratio:.2f}  (target >= 0.80)")
        print(f"mlpc peak RSS: {best['mlpc'][1] / 1024:.1f} MiB  (target < 100 MB)")
        print(f"digest: {digests['mlpc']}")
        ok = ratio >= 0.8 and best["mlpc"][1] * 1024 < 100 * 10**6
        print("PASS" if ok else "MISS")
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
