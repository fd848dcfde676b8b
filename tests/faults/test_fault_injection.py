"""Fault injection over every real result of the shared subsets (issue #16, item 5).

Each fault class of tests/faults/injection.py is applied to every result of a round it applies to (one
change per result, all results at once, on a hard-link mirror of the shared tree: the shared files are
never written). Each faulted result must then carry a finding whose code names the fault, and the
untouched mirror must keep the verdicts of the shared tree. The catch rate per class is printed
(`pytest -s`) and asserted: 100 % for every class on every result it applies to. Round v6.1 adds the
endpoint classes (tests/faults/injection.py ENDPOINT_FAULTS) for its endpoint results; its two LoadGen
results (e2e-rag) get the LoadGen classes.

The Offline token rate (`result_tokens_per_second`) of a model whose accuracy.txt prints no
`tokens_per_sample` and for which the round states no output length (TEST09 bounds), llama3.1-8b /
llama3.1-8b-edge and whisper, is held (PF026) against the output length the model's other performance runs on
the same system measured (its sibling scenarios' runs, its TEST01 performance run), or, with no other run,
against accuracy.txt's characters per sample (llama3.1-8b: gen_len / gen_num) at the model's characters per
token. LoadGen's Offline detail log holds no token count, so these are the only other statements of it.
"""

from __future__ import annotations

import collections
import os

import pytest

from checker.pipeline import check_tree
from checker.loaders.rules import available_rounds, load_rules
from checker.report import findings_in_scope
from tests.conftest import real_tree
from tests.faults.injection import ENDPOINT_FAULTS, FAULTS, Mirror, results_of

ROUNDS = ("v4.1", "v5.1", "v6.0", "v6.1")
# classes that apply to no result of a round, and why: v6.1's only LoadGen results (e2e-rag-qna, e2e-rag-db)
# have no minimum duration (the round exempts them)
NOT_IN_ROUND = {"v6.1": {"min duration moved below the model's minimum"}}


def _codes_per_result(report) -> dict[str, collections.Counter]:
    live = [f for f in report.findings if not f.waived and f.severity.value in ("error", "warning")]
    return {rid: collections.Counter(f.code for f in found)
            for rid, found in findings_in_scope([r.id for r in report.results], live).items()}


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
    for fault in _classes(name):
        applied = [r for r in results if fault.apply(mirror, r)]
        try:
            report = check_tree(mirror.root, rules, jobs=jobs)
        finally:
            mirror.restore()
        after = _codes_per_result(report)
        outcome[fault.name] = {r.rid: (set(after.get(r.rid, {})) & fault.codes, r) for r in applied}
    restored = check_tree(mirror.root, rules, jobs=jobs)
    return name, src, rules, baseline, restored, outcome


def _classes(name: str):
    """Every round gets the LoadGen classes; v6.1, whose endpoint results have no LoadGen logs, the endpoint
    classes too."""
    return FAULTS + (ENDPOINT_FAULTS if name == "v6.1" else ())


def test_untouched_tree_keeps_its_verdicts(injected):
    name, src, rules, baseline, restored, _ = injected
    shared = {r.id: r.valid for r in check_tree(src, rules).results}
    assert {r.id: r.valid for r in baseline.results} == shared
    assert {r.id: r.valid for r in restored.results} == shared  # every fault was undone


def test_every_fault_class_is_caught_on_every_result(injected):
    name, src, _, baseline, _, outcome = injected
    lines, missed = [], {}
    for fault in _classes(name):
        found = outcome[fault.name]
        caught = sorted(rid for rid, (codes, _) in found.items() if codes)
        lines.append(f"{name}  {fault.name:62} {len(caught):3}/{len(found):3}")
        uncaught = sorted(set(found) - set(caught))
        if uncaught:
            missed[fault.name] = uncaught
        assert found or fault.name in NOT_IN_ROUND.get(name, ()), f"{fault.name} applies to no result of {name}"
    print("\n" + "\n".join(lines))
    assert missed == {}
