"""The model checks see the scenarios whose performance checks passed: found once per result, the same scenarios
and the same model contexts as asking every result for every model (dataclasses.replace)."""

from __future__ import annotations

import dataclasses
import os

import pytest

from checker import engine
from checker.checks.memo import forget
from checker.diagnostics import Finding, Location, Severity
from checker.engine import _in_scope
from checker.loaders.detect import rules_for
from checker.loaders.tree import load_submitter, load_top
from tests.conftest import REAL, REPO

TREES = [os.path.join(REPO, "fixtures", "example_submission"),
         os.path.join(REPO, "fixtures", "example_submission_v6.0"),
         *(os.path.join(REAL, name) for name in ("v4.1", "v6.0"))]


def _expected(tree, findings):
    failed = {f.result_id for f in findings if f.severity == Severity.ERROR and f.code.startswith(engine.PERF_GATE)}
    failed -= {"", None}
    for model in tree.models:
        prefix = model.rel + "/"
        passed = tuple(sorted({r.scenario for r in tree.results if r.scenario and r.rel.startswith(prefix)
                               and not any(_in_scope(s, r.rel) for s in failed)}))
        yield dataclasses.replace(model, valid_perf_scenarios=passed)


@pytest.mark.parametrize("root", TREES, ids=os.path.basename)
def test_model_contexts_are_the_replaced_ones(root, monkeypatch):
    if not os.path.isdir(root):
        pytest.skip(f"{root} not found")
    rules, _ = rules_for(root)
    _, units = load_top(root, rules)
    seen = []
    plain = engine._run_context

    def run_context(plan, scope, ctx, rules, out):
        if scope == "model":
            seen.append(ctx)
        return plain(plan, scope, ctx, rules, out)

    monkeypatch.setattr(engine, "_run_context", run_context)
    checked = 0
    for division, submitter in units:
        tree = load_submitter(root, division, submitter, rules)
        findings = engine.run_checks(tree, rules, scopes=("result",))
        results = [r for r in tree.results if r.scenario]
        # every result's performance failed, none, and one in two
        for failing in ([], results, results[::2]):
            gate = findings + [Finding(message="x", location=Location(r.rel), code="PF001", severity=Severity.ERROR,
                                       result_id=r.rel) for r in failing]
            seen.clear()
            plan = engine.plan_for(rules, engine.PROFILES["default"])
            engine._model_stage(plan, tree, rules, gate)
            expected = list(_expected(tree, gate))
            assert seen == expected
            assert [list(vars(a)) for a in seen] == [list(vars(b)) for b in expected]
            checked += len(seen)
        forget()
    assert checked
