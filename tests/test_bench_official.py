"""``benchmarks/bench_official.py`` runs end to end (its figures are never asserted: only that it measures
both commands, pairs them and reports the ratio)."""

import os
import subprocess
import sys

from tests.conftest import REPO


def _bench(*options: str) -> subprocess.CompletedProcess:
    script = os.path.join(REPO, "benchmarks", "bench_official.py")
    tree = os.path.join(REPO, "fixtures", "example_submission")
    fake = f"{sys.executable} -c 'import sys; sys.exit(0)' {{tree}}"
    return subprocess.run([sys.executable, script, tree, "--round", "v4.1", "--official", fake, *options],
                          capture_output=True, text=True, timeout=300)


def test_bench_official_pairs_both_commands_in_alternating_order():
    out = _bench("--pairs", "2")
    assert out.returncode == 0, out.stderr
    # A B (warm-up), B A, A B: each command follows the other in half of its counted runs
    assert "pair 0 (warm-up): mlpc" in out.stderr and "pair 1: official" in out.stderr and "pair 2: mlpc" in out.stderr
    assert "\nmlpc " in out.stdout and "\nofficial " in out.stdout and "per pair, official / mlpc" in out.stdout
    assert "order alternate; medians of 2" in out.stdout


def test_bench_official_can_run_mlpc_first_in_every_pair_and_rest_before_each_run():
    out = _bench("--pairs", "1", "--order", "mlpc-first", "--rest", "0.1")
    assert out.returncode == 0, out.stderr
    assert "pair 0 (warm-up): mlpc" in out.stderr and "pair 1: mlpc" in out.stderr
    assert "order mlpc-first, 0.1 s rest before each run; medians of 1" in out.stdout


def test_bench_official_refuses_a_missing_tree():
    script = os.path.join(REPO, "benchmarks", "bench_official.py")
    out = subprocess.run([sys.executable, script, os.path.join(REPO, "no-such-round")], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "not a folder" in out.stderr
