#!/usr/bin/env python3
"""Time the pre-commit hook's command (`mlpc ci pre-commit FILES`) on a commit touching one submitter.

    python benchmarks/bench_hook.py                                    # fixtures/checks/_base
    python benchmarks/bench_hook.py --src ../shared/real_submissions/v4.1 --round v4.1 --runs 7

The tree is copied to a temporary git repository; one file of the first submitter (its first results
file) is changed and staged; then, each a fresh process as pre-commit starts it (with that file's name):

1. `mlpc --help`: the floor (interpreter start-up and the CLI's imports);
2. the hook command with a cold cache (first commit after installing);
3. the hook command with a warm cache, ``--runs`` times (the typical commit);
4. the same check inside one process (``checker.api.check`` with ``only``), without start-up and imports.

Bytecode is written to a private folder (PYTHONPYCACHEPREFIX) and the package is imported once before
timing, as an installed package would be. Reports the median wall time and CPU time (user + sys) of
each phase. Times depend on the machine's load: on a shared machine compare CPU times.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)


def _timed(command: list[str], cwd: str, env: dict) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.returncode


def _first_file(root: str) -> str:
    for division in sorted(os.listdir(root)):
        top = os.path.join(root, division)
        if not os.path.isdir(top):
            continue
        for submitter in sorted(os.listdir(top)):
            results = os.path.join(top, submitter, "results")
            for folder, dirs, files in os.walk(results):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(".txt") or name.endswith(".json"):
                        return os.path.relpath(os.path.join(folder, name), root)
    raise SystemExit(f"{root}: no results file found")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", default=os.path.join(REPO, "fixtures", "checks", "_base"))
    parser.add_argument("--round", default=None, help="pass --round to the hook (skips round detection)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="mlpc-bench-hook-")
    try:
        tree = os.path.join(work, "tree")
        shutil.copytree(args.src, tree, symlinks=True)
        changed = _first_file(tree)
        git = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.org", GIT_COMMITTER_NAME="b",
                   GIT_COMMITTER_EMAIL="b@example.org", GIT_CONFIG_GLOBAL=os.devnull)
        for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "tree"]):
            subprocess.run(["git", *command], cwd=tree, env=git, check=True)
        with open(os.path.join(tree, changed), "a", encoding="utf-8") as handle:
            handle.write("\n")
        subprocess.run(["git", "add", changed], cwd=tree, env=git, check=True)
        env = dict(os.environ, MLPC_CACHE_DIR=os.path.join(work, "cache"), PYTHONPATH=REPO,
                   PYTHONPYCACHEPREFIX=os.path.join(work, "pyc"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        mlpc = [sys.executable, "-m", "checker.cli_main"]
        hook = [*mlpc, "ci", "pre-commit", *(["--round", args.round] if args.round else []), changed]
        subprocess.run([sys.executable, "-c", "import checker.cli, checker.api, checker.pipeline"], env=env, check=True)

        rows = []
        floor = [_timed([*mlpc, "--help"], tree, env) for _ in range(args.runs)]
        rows.append(("mlpc --help (start-up and imports)", floor))
        rows.append(("hook, cold cache", [_timed(hook, tree, env)]))
        warm = [_timed(hook, tree, env) for _ in range(args.runs)]
        rows.append(("hook, warm cache", warm))
        codes = {code for _, _, code in warm}

        os.environ.update(MLPC_CACHE_DIR=env["MLPC_CACHE_DIR"])
        from checker.api import check

        os.chdir(tree)
        inside = []
        for _ in range(args.runs):
            wall0, cpu0 = time.perf_counter(), time.process_time()
            check(".", round=args.round, only=[changed])
            inside.append((time.perf_counter() - wall0, time.process_time() - cpu0, 0))
        rows.append(("check in one process (warm cache)", inside))

        print(f"tree {args.src}; changed {changed}; hook exit codes {sorted(codes)}; "
              f"median of {args.runs} runs (cold: 1)")
        print(f"{'phase':<40} {'wall s':>8} {'cpu s':>8}")
        for label, samples in rows:
            print(f"{label:<40} {statistics.median(s[0] for s in samples):8.3f} "
                  f"{statistics.median(s[1] for s in samples):8.3f}")
    finally:
        os.chdir(REPO)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
