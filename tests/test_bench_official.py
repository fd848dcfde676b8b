"""``benchmarks/bench_official.py`` runs end to end (its figures are never asserted: only that it measures
both commands, pairs them and reports the ratio)."""

import os
import subprocess
import sys

from tests.conftest import REPO


def test_bench_official_pairs_both_commands():
    script = os.path.join(REPO, "benchmarks", "bench_official.py")
    tree = os.path.join(REPO, "fixtures", "example_submission")
    fake = f"{sys.executable} -c 'import sys; sys.exit(0)' {{tree}}"
    out = subprocess.run([sys.executable, script, tree, "--round", "v4.1", "--pairs", "1", "--official", fake],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "pair 0 (warm-up): mlpc" in out.stderr and "pair 1: mlpc" in out.stderr
    assert "\nmlpc " in out.stdout and "\nofficial " in out.stdout and "per pair, official / mlpc" in out.stdout


def test_bench_official_refuses_a_missing_tree():
    script = os.path.join(REPO, "benchmarks", "bench_official.py")
    out = subprocess.run([sys.executable, script, os.path.join(REPO, "no-such-round")], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "not a folder" in out.stderr
