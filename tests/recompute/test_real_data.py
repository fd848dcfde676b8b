"""The recompute checks on the published v4.1 and v5.1 trees: no finding, verdicts unchanged, and how
many early-stopping comparisons PF019 makes there."""

from __future__ import annotations

import pytest

from checker.checks.performance import review_early_stopping
from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from checker.loaders.tree import load_tree
from tests.conftest import real_tree
from tests.recompute.helpers import NEW_CODES

# results per round whose early stopping PF019 compares, by log scenario (an inferred folder counts with its
# source's scenario), and how many Server ones are token-latency runs (only partly recomputable)
EXPECTED = {"v4.1": {"SingleStream": 5, "MultiStream": 2, "Server": 9, "token Server": 4, "Offline": None},
            "v5.1": {"SingleStream": 6, "MultiStream": 1, "Server": 7, "token Server": 7, "Offline": None}}


@pytest.mark.parametrize("round_name", ["v4.1", "v5.1"])
def test_no_recompute_finding_on_real_trees(round_name):
    report = check_tree(real_tree(round_name), load_rules(round_name))
    assert [f.message for f in report.findings if f.code in NEW_CODES] == []


@pytest.mark.parametrize("round_name", ["v4.1", "v5.1"])
def test_early_stopping_comparisons_on_real_trees(round_name, capsys):
    rules = load_rules(round_name)
    tree = load_tree(real_tree(round_name), rules)
    counts: dict[str, int] = {}
    disagreements = []
    for result in tree.results:
        if result.perf is None or result.perf.log is None:
            continue
        review = review_early_stopping(result.perf.log)
        if not review.compared:
            continue
        counts[review.scenario] = counts.get(review.scenario, 0) + 1
        if review.scenario == "Server" and review.facts.get("token_latencies"):
            counts["token Server"] = counts.get("token Server", 0) + 1
        disagreements += [(result.rel, p) for p in review.problems]
    with capsys.disabled():
        print(f"\n{round_name}: PF019 early-stopping comparisons {dict(sorted(counts.items()))}, "
              f"disagreements {len(disagreements)}")
    assert disagreements == []
    expected = {k: (counts.get(k) if v is None else v) for k, v in EXPECTED[round_name].items()}
    assert counts == expected and counts["Offline"] > 0
