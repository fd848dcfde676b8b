"""The engine skips a check on a context where its ``when`` test is false (``Check.when``): such a check must
yield nothing there, and a run that skips must give exactly the findings of a run that asks every check.

Both are measured on the fixture trees of the guarded codes, the example submissions and the real rounds, and
on contexts made to fail (a ``when`` test that raises runs the checks, which report their own crash)."""

from __future__ import annotations

import dataclasses
import os

import pytest

from checker import engine
from checker.checks.base import Check, has_power, is_endpoint
from checker.diagnostics import Finding
from checker.loaders.detect import rules_for
from checker.loaders.tree import load_submitter, load_top
from checker.pipeline import SUBMITTER_SCOPES
from checker.registry import ALL_CHECKS
from tests.conftest import REAL, REPO

GUARDED = tuple(c for c in ALL_CHECKS if c.when is not None)
FIXTURES = os.path.join(REPO, "fixtures")


def _trees() -> list[str]:
    roots = [os.path.join(FIXTURES, "checks", "_base"), os.path.join(FIXTURES, "example_submission"),
             os.path.join(FIXTURES, "example_submission_v6.0"), os.path.join(FIXTURES, "example_submission_v6.1")]
    codes = {c.code for c in GUARDED}
    for folder in ("checks", "power", "endpoint"):
        base = os.path.join(FIXTURES, folder)
        roots += [os.path.join(base, name) for name in sorted(os.listdir(base)) if name in codes]
    roots += [os.path.join(REAL, name) for name in ("v4.1", "v5.1", "v6.0", "v6.1")
              if os.path.isdir(os.path.join(REAL, name))]
    return [r for r in roots if os.path.isdir(r)]


def _units(root: str):
    rules, _ = rules_for(root)
    _, units = load_top(root, rules)
    for division, submitter in units:
        yield rules, load_submitter(root, division, submitter, rules)


def _plain_plan(monkeypatch) -> None:
    """Make the engine run every step of its plan (every ``when`` test holds)."""
    monkeypatch.setattr(engine, "_holds", lambda test, ctx, rules: True)


def test_guarded_checks_exist():
    """The skips this file measures are in place (a ``when`` on the checks that most often find nothing)."""
    codes = {c.code for c in GUARDED}
    assert {"CP001", "CP030", "PW001", "PW023", "EP001", "AC001", "AC008", "PF022", "BW001"} <= codes
    assert all(c.scope == "result" for c in GUARDED)


@pytest.mark.parametrize("root", _trees(), ids=lambda r: os.path.relpath(r, os.path.dirname(REPO)))
def test_skipping_gives_the_same_findings(root, monkeypatch):
    for rules, tree in _units(root):
        fast = engine.run_checks(tree, rules, scopes=SUBMITTER_SCOPES)
        with monkeypatch.context() as patch:
            _plain_plan(patch)
            plain = engine.run_checks(tree, rules, scopes=SUBMITTER_SCOPES)
        assert fast == plain


@pytest.mark.parametrize("root", _trees(), ids=lambda r: os.path.relpath(r, os.path.dirname(REPO)))
def test_a_check_whose_test_is_false_yields_nothing(root):
    asked = 0
    for rules, tree in _units(root):
        for ctx in tree.results:
            for item in GUARDED:
                if not item.when(ctx, rules):
                    asked += 1
                    assert list(item.func(ctx, rules) or ()) == [], (item.code, ctx.rel)
    assert asked or "example_submission_v6.1" in root  # (every result of that tree is an endpoint result)


def _check(code: str, func, when) -> Check:
    return Check(code=code, name="probe", scope="result", func=func, docstring="", when=when)


def test_false_test_skips_and_raising_test_runs(monkeypatch):
    """A false test leaves its checks out; a test that raises lets them run (and report their own crash)."""
    from checker.loaders.rules import load_rules

    rules = load_rules("v4.1")
    ran: list[str] = []

    def probe(ctx, rules):
        ran.append(ctx.rel)
        yield from ()

    def boom(ctx, rules):
        raise ValueError("bad input")

    def crash(ctx, rules):
        raise KeyError("inside the check")

    never = lambda ctx, rules: False  # noqa: E731
    checks = (_check("ST001", probe, never), _check("ST002", probe, boom), _check("ST003", crash, boom),
              _check("ST004", probe, None))
    plan = engine.plan_for(rules, engine.PROFILES["default"], checks)

    class Ctx:
        rel = "closed/X/results/s/m/Offline"
        endpoint = None
        power = None

    out: list[Finding] = []
    ctx = Ctx()
    engine._run_contexts(plan, "result", [ctx], rules, out)
    assert ran == [ctx.rel, ctx.rel]  # ST002 and ST004 ran; ST001 was left out
    assert [(f.code, f.result_id) for f in out] == [("TL001", ctx.rel)]
    assert "ST003" in out[0].message and "KeyError" in out[0].message
    assert [(test, [s.check.code for s in steps]) for test, steps in plan.program("result", ctx)] == [
        (never, ["ST001"]), (boom, ["ST002", "ST003"]), (None, ["ST004"])]


def test_a_test_is_asked_where_its_first_check_runs():
    """What a ``when`` test reads of a context is read where the first check naming it would read it: after the
    checks before it (a log value read lazily may add a problem to the log that an earlier check reports)."""
    from checker.loaders.rules import load_rules

    rules = load_rules("v4.1")
    seen: list[str] = []

    def step(name):
        def run(ctx, rules):
            seen.append(name)
            return ()
        return run

    def test_a(ctx, rules):
        seen.append("test a")
        return True

    def test_b(ctx, rules):
        seen.append("test b")
        return False

    checks = (_check("ST001", step("1"), None), _check("ST002", step("2"), test_a), _check("ST003", step("3"), None),
              _check("ST004", step("4"), test_b), _check("ST005", step("5"), test_a), _check("ST006", step("6"), test_b))

    class Ctx:
        rel = "closed/X/results/s/m/Offline"
        endpoint = None

    engine._run_contexts(engine.plan_for(rules, engine.PROFILES["default"], checks), "result", [Ctx()], rules, [])
    assert seen == ["1", "test a", "2", "3", "test b", "5"]


def test_power_and_endpoint_tests():
    class Plain:
        power = None
        endpoint = None

    class Powered(Plain):
        power = object()

    class Endpoint(Plain):
        endpoint = object()

    assert not has_power(Plain(), None) and has_power(Powered(), None)
    assert not is_endpoint(Plain(), None) and is_endpoint(Endpoint(), None) and not is_endpoint(object(), None)
