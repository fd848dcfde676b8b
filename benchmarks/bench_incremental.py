#!/usr/bin/env python3
"""Time a full check and an incremental re-check (warm cache, one result's file changed).

    python benchmarks/bench_incremental.py --copies 66 --jobs 2           # >= 3000 results
    python benchmarks/bench_incremental.py --copies 66 --keep /tmp/round  # keep the synthetic round

The synthetic round is `bench_check.build_round` (the real v4.1 subset replicated, hard links).
Phases, each a fresh `mlpc check` process (`--format json`, output discarded):

1. full check, no cache;
2. full check, cold cache (hashes every file, stores every entry);
3. re-check, warm cache, nothing changed;
4. re-check, warm cache, after changing one result's accuracy.txt (a new file, not an in-place
   edit: the synthetic round shares inodes between copies);
5. `mlpc check --watch` (a resident process): the time from writing one more change to that file
   until the re-checked report is written (what a user waits for), and the re-check as the watch
   reports it.

For each: wall time and peak RSS (the largest single process of that run: the parent or one
worker). Phase 4 is also timed inside one process (check_tree only, without interpreter start-up
and imports). `--verify` also checks that the phase-4 report equals a check without cache.

The cache key holds a digest of the checker's source, so an edit to the package while the benchmark
runs would empty the cache half-way; the phases therefore run a snapshot copy of the package
(`--live` runs the work tree itself).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from bench_check import DEFAULT_SRC, build_round  # noqa: E402


CODE = REPO  # where the checker package is run from (a snapshot unless --live)


def snapshot(dest: str, source: str = REPO) -> str:
    """A compiled copy of the checkout ``source`` (the package and its data folders) in ``dest``."""
    for name in ("checker", "rules", "audits", "schemas"):
        if os.path.isdir(os.path.join(source, name)):
            shutil.copytree(os.path.join(source, name), os.path.join(dest, name),
                            ignore=shutil.ignore_patterns("__pycache__"))
    compileall.compile_dir(os.path.join(dest, "checker"), quiet=1)  # as `pip install` does
    return dest


def run(args: list[str], output: str = os.devnull) -> tuple[float, float, int]:
    """(wall seconds, peak RSS MB of the largest process, exit code) of one `mlpc check`."""
    cmd = [sys.executable, "-m", "checker.cli_main", "check", *args, "--format", "json", "--quiet",
           "--output", output]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=CODE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode not in (0, 1):
        raise SystemExit(f"mlpc check failed ({proc.returncode}): {err}")
    return wall, usage.ru_maxrss / 1024, proc.returncode


IN_PROCESS = """
import json, sys, time
from checker.cache import ResultCache
from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
rules = load_rules("v4.1")
cache = ResultCache(sys.argv[2])
start = time.perf_counter()
check_tree(sys.argv[1], rules, jobs=int(sys.argv[3]), cache=cache)
print(json.dumps({"seconds": time.perf_counter() - start, "checked": cache.stats.checked,
                  "reused": cache.stats.results_reused}))
"""


def watch_latency(args: list[str], changed: str, report: str) -> tuple[float, str, float]:
    """(seconds from a change until the new report is written, the watch's status line, seconds of the
    first full check) for `mlpc check --watch`."""
    import queue
    import signal
    import threading

    cmd = [sys.executable, "-m", "checker.cli_main", "check", *args, "--watch", "--format", "json", "--quiet",
           "--output", report]
    proc = subprocess.Popen(cmd, cwd=CODE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: "queue.Queue[tuple[float, str]]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put((time.perf_counter(), line)) for line in proc.stderr],
                     daemon=True).start()

    def next_report(since: float) -> tuple[float, str]:
        while True:
            try:
                when, line = lines.get(timeout=120)
            except queue.Empty:
                raise SystemExit("the watch wrote no report within 120 s") from None
            if line.startswith("report written") and when >= since:
                return when, line.strip()

    try:
        begun = time.perf_counter()
        first, _ = next_report(begun)
        time.sleep(3.0)  # let the watch settle (link census, imports for re-checks), as a user's next save would
        written = time.perf_counter()
        with open(changed, "a", encoding="utf-8") as handle:
            handle.write("\n")
        when, status = next_report(written)
        return when - written, status.split(" · ", 1)[-1], first - begun
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def change_one_result(root: str) -> tuple[str, str]:
    """Rewrite one accuracy.txt as a new file (breaking the hard link); returns (path, old text)."""
    for folder, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        if folder.endswith("/accuracy") and "accuracy.txt" in files and "/closed/" in folder:
            path = os.path.join(folder, "accuracy.txt")
            with open(path, encoding="utf-8") as handle:
                old = handle.read()
            os.remove(path)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(old + "\n")  # a trailing blank line: new content, same verdict
            return path, old
    raise SystemExit("no accuracy.txt found in the synthetic round")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=DEFAULT_SRC)
    parser.add_argument("--copies", type=int, default=66)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", help="build the round into this folder and keep it")
    parser.add_argument("--verify", action="store_true", help="compare the incremental report with a full check")
    parser.add_argument("--live", action="store_true", help="run the work tree's package, not a snapshot")
    args = parser.parse_args()
    global CODE
    if not os.path.isdir(args.src):
        print(f"source tree not found: {args.src}", file=sys.stderr)
        return 2
    work = args.keep or tempfile.mkdtemp(prefix="mlpc-bench-")
    cache_dir = tempfile.mkdtemp(prefix="mlpc-bench-cache-")
    code_dir = None
    changed = None
    try:
        if args.live:
            compileall.compile_dir(os.path.join(REPO, "checker"), quiet=1)
        else:
            code_dir = tempfile.mkdtemp(prefix="mlpc-bench-code-")
            CODE = snapshot(code_dir)
        if not os.path.isdir(os.path.join(work, "closed")):
            build_round(args.src, work, args.copies)
        results = sum(1 for d, sub, _ in os.walk(work)
                      if d.split(os.sep)[-4:-3] == ["results"] and "performance" in sub)
        files = sum(len(f) for _, _, f in os.walk(work))
        print(f"synthetic round: {work} ({results} results, {files} files), jobs={args.jobs}, "
              f"cache: {cache_dir}")
        base = [work, "--round", "v4.1", "--jobs", str(args.jobs)]
        cache = ["--cache-dir", cache_dir]
        rows = [("full check, no cache", *run([*base, "--no-cache"])),
                ("full check, cold cache", *run([*base, *cache])),
                ("re-check, warm cache, nothing changed", *run([*base, *cache]))]
        changed = change_one_result(work)
        incremental = os.path.join(cache_dir, "incremental.json")
        rows.append(("re-check, warm cache, one file changed", *run([*base, *cache], incremental)))
        for name, wall, rss, code in rows:
            print(f"{name:42s} wall {wall:7.2f} s   peak RSS {rss:6.0f} MB   exit {code}")
        # the same incremental re-check timed inside one process (after another one-file change)
        with open(changed[0], "a", encoding="utf-8") as handle:
            handle.write("\n")
        proc = subprocess.run([sys.executable, "-c", IN_PROCESS, work, cache_dir, str(args.jobs)], cwd=CODE,
                              capture_output=True, text=True, check=True)
        inner = json.loads(proc.stdout)
        print(f"{'  check_tree only (no start-up, imports)':42s} wall {inner['seconds']:7.2f} s   "
              f"re-checked {len(inner['checked'])} result(s), reused {inner['reused']}")
        latency, status, first = watch_latency([*base, *cache], changed[0], os.path.join(cache_dir, "watch.json"))
        print(f"{'--watch: first full check (warm cache)':42s} wall {first:7.2f} s")
        print(f"{'--watch: change written -> report written':42s} wall {latency:7.2f} s   ({status})")
        if args.verify:
            plain = os.path.join(cache_dir, "plain.json")
            with open(changed[0], "w", encoding="utf-8") as handle:
                handle.write(changed[1] + "\n")  # back to the content of the phase-4 report
            run([*base, "--no-cache"], plain)
            same = open(plain, "rb").read() == open(incremental, "rb").read()
            print(f"incremental report identical to a full check without cache: {same}")
            if not same:
                return 1
    finally:
        if changed is not None:
            os.remove(changed[0])
            with open(changed[0], "w", encoding="utf-8") as handle:
                handle.write(changed[1])
        shutil.rmtree(cache_dir, ignore_errors=True)
        if code_dir:
            shutil.rmtree(code_dir, ignore_errors=True)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
