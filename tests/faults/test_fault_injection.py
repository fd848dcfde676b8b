"""Fault injection over every real result of the shared subsets (issue #16, item 5).

Each fault class of tests/faults/injection.py is applied to every result of a round it applies to (one
change per result, all results at once, on a hard-link mirror of the shared tree: the shared files are
never written). Each faulted result must then carry a finding whose code names the fault, and the
untouched mirror must keep the verdicts of the shared tree. The catch rate per class is printed
(`pytest -s`) and asserted: 100 % for every class, except "result edited in both logs", which is only
asserted where the result has a compliance performance run that measured the same figure (token rates
are reported, while the compliance runs compare sample rates: measured, not asserted).
"""

from __future__ import annotations

import collections
import os

import pytest

from checker.engine import check_tree
from checker.loaders.rules import available_rounds, load_rules
from checker.report import findings_in_scope
from tests.conftest import real_tree
from tests.faults.injection import FAULTS, Mirror, results_of

ROUNDS = ("v4.1", "v5.1", "v6.0")
BOTH_LOGS = "result edited in both logs"
PERF_TESTS = ("TEST01", "TEST05")  # runs compared with the result both ways (TEST04 only flags a faster test run)


def _codes_per_result(report) -> dict[str, collections.Counter]:
    live = [f for f in report.findings if not f.waived and f.severity.value in ("error", "warning")]
    return {rid: collections.Counter(f.code for f in found)
            for rid, found in findings_in_scope([r.id for r in report.results], live).items()}


def _has_performance_test(root: str, rid: str) -> bool:
    """Whether the result has a compliance test whose performance run is compared with it both ways
    (v4.1-v5.1 layout or folded v6)."""
    parts = rid.split("/")
    places = [os.path.join(root, *parts[:2], "compliance", *parts[4:]), os.path.join(root, rid)]
    return any(os.path.isdir(os.path.join(place, test, "performance", "run_1"))
               for place in places for test in PERF_TESTS)


@pytest.fixture(scope="module", params=ROUNDS)
def injected(request, tmp_path_factory):
    name = request.param
    if name not in available_rounds():
        pytest.skip(f"no rules/{name}.yaml")
    src = real_tree(name)
    rules = load_rules(name)
    mirror = Mirror(src, str(tmp_path_factory.mktemp(f"faults-{name}") / "tree"))
    jobs = 2 if len(os.listdir(os.path.join(src, "closed"))) > 4 else 1
    baseline = check_tree(mirror.root, rules, jobs=jobs)
    results = results_of(baseline, rules)
    outcome = {}
    for fault in FAULTS:
        applied = [r for r in results if fault.apply(mirror, r)]
        try:
            report = check_tree(mirror.root, rules, jobs=jobs)
        finally:
            mirror.restore()
        after = _codes_per_result(report)
        outcome[fault.name] = {r.rid: (set(after.get(r.rid, {})) & fault.codes, r) for r in applied}
    restored = check_tree(mirror.root, rules, jobs=jobs)
    return name, src, rules, baseline, restored, outcome


def test_untouched_tree_keeps_its_verdicts(injected):
    name, src, rules, baseline, restored, _ = injected
    shared = {r.id: r.valid for r in check_tree(src, rules).results}
    assert {r.id: r.valid for r in baseline.results} == shared
    assert {r.id: r.valid for r in restored.results} == shared  # every fault was undone


def test_every_fault_class_is_caught_on_every_result(injected):
    name, src, _, baseline, _, outcome = injected
    lines, missed = [], {}
    for fault in FAULTS:
        found = outcome[fault.name]
        caught = sorted(rid for rid, (codes, _) in found.items() if codes)
        lines.append(f"{name}  {fault.name:62} {len(caught):3}/{len(found):3}")
        uncaught = sorted(set(found) - set(caught))
        if fault.name == BOTH_LOGS:  # asserted where a compliance run measured the same figure
            uncaught = [rid for rid in uncaught if _has_performance_test(src, rid)
                        and "token" not in (found[rid][1].value_key or "")]
        if uncaught:
            missed[fault.name] = uncaught
        assert found, f"{fault.name} applies to no result of {name}"
    print("\n" + "\n".join(lines))
    assert missed == {}
