#!/usr/bin/env python3
"""Speed and memory of `mlpc check` at round scale: synthetic rounds of 1k, 3k and 10k results.

    python benchmarks/bench_scale.py                          # v4.1 and v6.0 layouts, 1k 3k 10k results
    python benchmarks/bench_scale.py --layout v4.1 --sizes 1000 --repeat 3
    python benchmarks/bench_scale.py --cache                  # also: re-check from the cache, new process
    python benchmarks/bench_scale.py --official "python3 submission_checker.py --input {tree} --version v4.1"

A synthetic round replicates a real published subset (`../shared/real_submissions/v4.1` for the v4.1
layout, `.../v6.0` for the folded v6.0 layout) under distinct submitter names (`NVIDIA0000`, ...; only
the `"submitter"` value of each system JSON is rewritten, in place in the text, so every other byte,
duplicate keys included, stays as published). Files are hard links, so a 10k-result round costs
inodes, not gigabytes; the real log sizes are kept. ``--copy`` copies them instead: other processes
linking the same shared files change the ctime of every link, which a warm ``--cache`` re-check reads as a
change (it then hashes the files again), so on a shared machine its figures need ``--copy``. The round is built in a temporary folder (never
inside the repository or the shared data) and grown from one size to the next.

Every figure is measured the same way, for mlpc and for `--official`: one new process per run, its
wall time, the CPU time (user + sys) of the whole process tree (the process and every worker it
waited for, from `wait4`), and the peak RSS of its largest process (`ru_maxrss` of the same call).
The median run by wall time of `--repeat` runs is reported. `KB/result` is the growth of peak memory
per added result from the previous size (the first size: peak / results). The machine's load is
printed with the table: on a shared machine wall time is noisy, CPU time much less so.
"""

from __future__ import annotations

import argparse
import compileall
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)
from checker.cache import RACY_NS  # noqa: E402  (files changed more recently are hashed on every re-check)
# MLPC_SHARED as in the tests, else shared/ next to the checkout (or next to the folder of work trees)
SHARED = os.environ.get("MLPC_SHARED") or next(
    (p for p in (os.path.join(os.path.dirname(REPO), "shared"), os.path.join(os.path.dirname(os.path.dirname(REPO)), "shared"))
     if os.path.isdir(p)), os.path.join(os.path.dirname(REPO), "shared"))
SOURCES = {"v4.1": os.path.join(SHARED, "real_submissions", "v4.1"),
           "v6.0": os.path.join(SHARED, "real_submissions", "v6.0")}
DIVISIONS = ("closed", "open", "network")
_SUBMITTER = re.compile(rb'("submitter"\s*:\s*)"(?:[^"\\]|\\.)*"')


@dataclass
class Run:
    wall: float
    cpu: float
    peak_mb: float
    status: int


@dataclass
class Row:
    label: str
    results: int
    valid: int
    run: Run


def _link(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def add_copies(src: str, dst: str, first: int, last: int, copy: bool = False) -> None:
    """Copies ``first`` .. ``last - 1`` of every submitter folder of ``src`` into the round ``dst`` (hard
    links, or real copies with ``copy``)."""
    for division in DIVISIONS:
        div = os.path.join(src, division)
        if not os.path.isdir(div):
            continue
        for submitter in sorted(os.listdir(div)):
            if not os.path.isdir(os.path.join(div, submitter)):
                continue
            for index in range(first, last):
                name = f"{submitter}{index:04d}"
                target = os.path.join(dst, division, name)
                shutil.copytree(os.path.join(div, submitter), target, symlinks=True,
                                copy_function=shutil.copy2 if copy else _link)
                systems = os.path.join(target, "systems")
                for entry in sorted(os.listdir(systems)) if os.path.isdir(systems) else ():
                    path = os.path.join(systems, entry)
                    if not entry.endswith(".json") or os.path.islink(path):
                        continue
                    with open(path, "rb") as handle:
                        data = handle.read()
                    renamed = _SUBMITTER.sub(lambda m: m.group(1) + json.dumps(name).encode(), data)
                    if renamed != data:
                        os.remove(path)  # a new file: the hard link is shared with the source
                        with open(path, "wb") as handle:
                            handle.write(renamed)


# Each command runs as a child of a small launcher process started before any round is built. A child's peak
# memory (ru_maxrss) counts what the process that forked it held at the fork: forked from this script after it
# had built a 10k round (about 100 MB), every check read as at least that much.
_LAUNCHER = r"""
import json, os, subprocess, sys, tempfile, time
for line in sys.stdin:
    job = json.loads(line)
    # stderr goes to a file, not a pipe: a checker that logs more than a pipe holds (the official one writes
    # megabytes of log on a 1k round) would block on a pipe nobody reads while we wait for it
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        proc = subprocess.Popen(job["cmd"], cwd=job["cwd"], stdout=subprocess.DEVNULL, stderr=log)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        log.seek(0)
        err = log.read().decode(errors="replace")[-2000:]
    print(json.dumps([wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, status, err]), flush=True)
"""
_launcher: subprocess.Popen | None = None


def start_launcher() -> None:
    global _launcher
    if _launcher is None:
        _launcher = subprocess.Popen([sys.executable, "-c", _LAUNCHER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)


def measure(cmd: list[str], cwd: str | None = None) -> Run:
    start_launcher()
    assert _launcher is not None and _launcher.stdin is not None and _launcher.stdout is not None
    _launcher.stdin.write(json.dumps({"cmd": cmd, "cwd": cwd}) + "\n")
    _launcher.stdin.flush()
    wall, cpu, maxrss, status, err = json.loads(_launcher.stdout.readline())
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{shlex.join(cmd)} failed with status {code}:\n{err}")
    return Run(wall, cpu, maxrss / 1024, code)


def median_run(cmd: list[str], repeat: int, cwd: str | None = None) -> Run:
    runs = sorted((measure(cmd, cwd) for _ in range(repeat)), key=lambda r: r.wall)
    return runs[len(runs) // 2]


def mlpc_cmd(tree: str, round_name: str | None, jobs: int, report: str, cache: str | None) -> list[str]:
    """``mlpc check`` as a new process (the round detected when ``round_name`` is None)."""
    cmd = [sys.executable, "-m", "checker.cli_main", "check", tree, "--format", "json", "--quiet", "--output",
           report, "--jobs", str(jobs)] + (["--round", round_name] if round_name else [])
    return cmd + (["--cache-dir", cache] if cache else ["--no-cache"])


def read_counts(report: str) -> tuple[int, int]:
    with open(report) as handle:
        results = json.load(handle)["results"]
    return len(results), sum(1 for r in results if r.get("valid"))


def table(rows: list[Row]) -> str:
    lines = [f"{'':<14}{'results':>8}{'valid':>7}{'wall s':>9}{'CPU s':>8}{'peak MB':>9}{'results/s':>11}"
             f"{'KB/result':>11}"]
    previous: Row | None = None
    for row in rows:
        if previous is None or row.label.split()[0] != previous.label.split()[0]:
            per = row.run.peak_mb * 1024 / row.results if row.results else 0.0
        else:
            grown = row.results - previous.results
            per = (row.run.peak_mb - previous.run.peak_mb) * 1024 / grown if grown else 0.0
        rate = row.results / row.run.wall if row.run.wall else 0.0
        valid = str(row.valid) if row.valid >= 0 else "-"
        lines.append(f"{row.label:<14}{row.results:>8}{valid:>7}{row.run.wall:>9.2f}{row.run.cpu:>8.2f}"
                     f"{row.run.peak_mb:>9.0f}{rate:>11.0f}{per:>11.1f}")
        previous = row
    return "\n".join(lines)


def curve(rows: list[Row], width: int = 32) -> str:
    """results vs wall seconds and peak MB, as bars."""
    top_s = max((r.run.wall for r in rows), default=1.0) or 1.0
    top_mb = max((r.run.peak_mb for r in rows), default=1.0) or 1.0
    lines = [f"{'':<14}{'results':>8}  {'wall s':<{width + 8}}  peak MB"]
    for row in rows:
        bar_s = "#" * max(1, round(row.run.wall / top_s * width))
        bar_mb = "#" * max(1, round(row.run.peak_mb / top_mb * width // 2))
        lines.append(f"{row.label:<14}{row.results:>8}  {bar_s:<{width}}{row.run.wall:>7.2f}   {bar_mb} "
                     f"{row.run.peak_mb:.0f}")
    return "\n".join(lines)


def per_copy(src: str) -> int:
    """Scenario folders of the source subset (results/<system>/<model>/<scenario>)."""
    count = 0
    for division in DIVISIONS:
        for submitter in sorted(os.listdir(os.path.join(src, division))) if os.path.isdir(os.path.join(src, division)) else ():
            results = os.path.join(src, division, submitter, "results")
            for system in sorted(os.listdir(results)) if os.path.isdir(results) else ():
                sys_dir = os.path.join(results, system)
                for model in sorted(os.listdir(sys_dir)) if os.path.isdir(sys_dir) else ():
                    model_dir = os.path.join(sys_dir, model)
                    if os.path.isdir(model_dir):
                        count += sum(1 for s in os.listdir(model_dir) if os.path.isdir(os.path.join(model_dir, s)))
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layout", choices=("v4.1", "v6.0", "both"), default="both")
    parser.add_argument("--sizes", default="1000,3000,10000", help="result counts, ascending (default 1000,3000,10000)")
    parser.add_argument("--jobs", type=int, default=0, help="mlpc --jobs (default 0: mlpc's default, one per core)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per figure; the median by wall time is shown")
    parser.add_argument("--cache", action="store_true", help="also time a re-check of the unchanged round from "
                        "a warm cache in a new process (after one run that fills the cache)")
    parser.add_argument("--official", metavar="CMD", help="an official checker command to time side by side on "
                        "each synthetic round ({tree}: the round's path, {round}: its round), e.g. \"python3 "
                        "submission_checker.py --input {tree} --version v4.1\"")
    parser.add_argument("--work", help="build the rounds in this folder (created; kept afterwards)")
    parser.add_argument("--copy", action="store_true", help="copy the files instead of hard-linking them (about "
                        "24 MB per 46 results): on a shared machine other processes that link the same source "
                        "files change the ctime of every link, which makes the --cache re-check hash again")
    args = parser.parse_args()
    sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    layouts = ("v4.1", "v6.0") if args.layout == "both" else (args.layout,)
    if args.official and len(layouts) > 1 and "{round}" not in args.official:
        # one official checker, one round: run on the other layout it fails at once, and its row means nothing
        print("--official names no {round} but --layout both times it on both layouts: give one --layout, "
              "or a command that takes the round (--version {round})", file=sys.stderr)
        return 2
    for layout in layouts:
        if not os.path.isdir(SOURCES[layout]):
            print(f"source tree not found: {SOURCES[layout]} (set MLPC_SHARED)", file=sys.stderr)
            return 2
    # byte-compile the package first, as an installed wheel is: with PYTHONDONTWRITEBYTECODE set every
    # run would otherwise compile each module at start-up
    compileall.compile_dir(os.path.join(REPO, "checker"), quiet=1)
    start_launcher()  # while this process is small (see measure)
    work = args.work or tempfile.mkdtemp(prefix="mlpc-scale-")
    for path in (REPO, SHARED):
        if os.path.realpath(work).startswith(os.path.realpath(path) + os.sep):
            print(f"refusing to build inside {path}", file=sys.stderr)
            return 2
    os.makedirs(work, exist_ok=True)
    rows: list[Row] = []
    official: list[Row] = []
    cached: list[Row] = []
    try:
        for layout in layouts:
            tree = os.path.join(work, layout)
            unit = per_copy(SOURCES[layout])
            made, built = 0, 0
            for size in sizes:
                copies = max(1, math.ceil(size / unit))
                if copies > made:
                    started = time.perf_counter()
                    add_copies(SOURCES[layout], tree, made, copies, copy=args.copy)
                    built = time.time_ns()
                    print(f"[{layout}] {copies} copies of {unit} results: built in "
                          f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
                    made = copies
                report = os.path.join(work, "report.json")
                run = median_run(mlpc_cmd(tree, layout, args.jobs, report, None), args.repeat, cwd=REPO)
                results, valid = read_counts(report)
                rows.append(Row(f"{layout} mlpc", results, valid, run))
                print(f"[{layout}] {results} results: {run.wall:.2f} s wall, {run.cpu:.2f} s CPU, "
                      f"{run.peak_mb:.0f} MB", file=sys.stderr)
                if args.cache:
                    cache = os.path.join(work, f"cache-{layout}-{size}")
                    # the cache does not trust the stat fields of a file changed in the last RACY_NS (a change
                    # within one clock tick could go unseen): it hashes such files again on every re-check.
                    # Linking a file changes its ctime, so the cache is filled once the round is that old.
                    time.sleep(max(0.0, (built + RACY_NS - time.time_ns()) / 1e9))
                    measure(mlpc_cmd(tree, layout, args.jobs, report, cache), cwd=REPO)  # fills the cache
                    run = median_run(mlpc_cmd(tree, layout, args.jobs, report, cache), args.repeat, cwd=REPO)
                    cached.append(Row(f"{layout} cached", *read_counts(report), run))
                    shutil.rmtree(cache, ignore_errors=True)
                if args.official:
                    cmd = shlex.split(args.official.replace("{tree}", shlex.quote(tree)).replace("{round}", layout))
                    # run in the work folder: the official checker writes its summary.csv where it runs
                    official.append(Row(f"{layout} official", results, -1, median_run(cmd, args.repeat, cwd=work)))
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()
    print(f"\nmachine: {os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} "
          f"(wall time on a shared machine is noisy; CPU time much less so); mlpc --jobs {args.jobs}, "
          f"median of {args.repeat}, --no-cache\n")
    print(table(rows))
    print("\n" + curve(rows))
    if cached:
        print("\nre-check of the unchanged round from a warm cache, new process:\n" + table(cached))
    if official:
        print("\nofficial checker, same rounds, same measure:\n" + table(official))
        for mine, theirs in zip(rows, official):
            print(f"{mine.label} at {mine.results} results: {theirs.run.wall / mine.run.wall:.1f}x faster (wall), "
                  f"{theirs.run.cpu / max(mine.run.cpu, 1e-9):.1f}x less CPU, "
                  f"{mine.run.peak_mb / theirs.run.peak_mb:.2f}x the official peak memory")
    else:
        print("\nofficial checker: not timed (no --official command given; none is installed on this machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
