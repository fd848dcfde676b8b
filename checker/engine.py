"""The check stage: run the selected checks over the loaded contexts of a tree, stamp each finding's
code, severity and scope, and isolate crashes.

A finding belongs to a scope (root, division, submitter, system, model or result path). A result is
invalid when an error-severity finding that ``invalidates`` has a scope containing it; root and division
errors fail the run without invalidating results, system errors invalidate only for the codes the round
lists in ``system_invalidating_codes``.

The stages of a check (``checker.pipeline`` runs them): load (``checker.loaders.tree``) -> check (this
module) -> summarise (``checker.summary``) -> report (``checker.reporters``); the cache
(``checker.cached``) wraps the check and summary stages of one submitter.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from checker.checks.base import Check
from checker.diagnostics import Finding, Location, Severity
from checker.loaders.tree import Tree
from checker.profiles import PROFILES, Profile  # noqa: F401 (the engine's callers import them from here)
from checker.registry import ALL_CHECKS

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.rules import RoundRules

PERF_GATE = ("ST016", "ST019", "ST020", "MS", "PF",  # a scenario counts as run once these pass (official D5)
             "EP001", "EP002", "EP003", "EP004", "EP006", "EP007", "EP008", "EP009", "EP013", "EP016", "EP017")


def applies(check: Check, ctx, rules: RoundRules) -> bool:
    """Whether ``check`` judges ``ctx``: an endpoint result (no LoadGen logs) gets the EP checks and the
    LoadGen-result checks the round lists in ``endpoint.also_run``; every other context gets the rest."""
    endpoint = getattr(ctx, "endpoint", None)
    if endpoint is None:
        return True
    return check.code.startswith("EP") or (rules.endpoint is not None and check.code in rules.endpoint.also_run)


_SEVERITIES: dict[tuple[int, Profile], tuple[RoundRules, dict[str, Severity]]] = {}


def _severity(code: str, rules: RoundRules, profile: Profile) -> Severity:
    """The severity of ``code`` under the round file and the profile; looked up once per code (the
    engine asks for every check on every result)."""
    entry = _SEVERITIES.get((id(rules), profile))
    if entry is None or entry[0] is not rules:
        if len(_SEVERITIES) > 16:
            _SEVERITIES.clear()
        entry = _SEVERITIES[(id(rules), profile)] = (rules, {})
    known = entry[1].get(code)
    if known is None:
        name = (dict(profile.overrides).get(code) or rules.profiles.get(profile.name, {}).get(code)
                or rules.severities.get(code, "error"))
        known = entry[1][code] = Severity(name)
    return known


def _scope_key(check: Check, ctx) -> str:
    if check.scope == "root":
        return ""
    if check.scope == "division":
        return ctx.rel
    if check.scope == "submitter":
        return ctx.rel
    if check.scope == "system":
        return ctx.results_rel
    return ctx.rel


def invalidates(scope: str, code: str, rules: RoundRules) -> bool:
    """Whether an error of ``code``, found at ``scope`` (the check's scope), makes the results below it
    invalid: root and division errors fail the run only; a system error only when the round lists its
    code as making the system description unusable (``system_invalidating_codes``); never for a code the
    round lists in ``non_invalidating_codes``."""
    if scope in ("root", "division") or code in rules.non_invalidating_codes:
        return False
    if scope == "system" and rules.system_invalidating_codes is not None:
        return code in rules.system_invalidating_codes
    return True


@dataclasses.dataclass(frozen=True)
class Step:
    """One check ready to run: its severity under the round and profile, and whether its errors
    invalidate the results below them (both fixed for a run, so looked up once, not per context)."""

    check: Check
    severity: Severity
    reach: bool


@dataclasses.dataclass(frozen=True)
class Plan:
    """The steps of a run by scope, built once per (rules, profile, checks): checks graded ``off`` are
    left out, and result contexts get the steps that apply to them (``applies``) without asking every
    check on every result."""

    by_scope: dict[str, tuple[Step, ...]]
    endpoint_results: tuple[Step, ...]  # the result steps for an endpoint result (no LoadGen logs)
    programs: dict = dataclasses.field(default_factory=dict, compare=False, repr=False)

    def steps(self, scope: str, ctx=None) -> tuple[Step, ...]:
        if scope == "result" and ctx is not None and getattr(ctx, "endpoint", None) is not None:
            return self.endpoint_results
        return self.by_scope.get(scope, ())

    def program(self, scope: str, ctx) -> tuple[tuple, ...]:
        """``steps(scope, ctx)`` as runs of consecutive steps that share a ``when`` test (``Check.when``):
        ``(test or None, steps)``, in the steps' order."""
        endpoint = scope == "result" and getattr(ctx, "endpoint", None) is not None
        runs = self.programs.get((scope, endpoint))
        if runs is None:
            runs = []
            for step in self.steps(scope, ctx):
                test = step.check.when
                if runs and runs[-1][0] is test:
                    runs[-1][1].append(step)
                else:
                    runs.append((test, [step]))
            runs = self.programs[(scope, endpoint)] = tuple((test, tuple(steps)) for test, steps in runs)
        return runs


def _holds(test, ctx, rules) -> bool:
    """``test(ctx, rules)``; true when it raises (the checks then run and report their own crash)."""
    try:
        return bool(test(ctx, rules))
    except Exception:
        return True


_PLANS: dict[tuple[int, Profile, int], tuple[RoundRules, tuple, Plan]] = {}


def plan_for(rules: RoundRules, profile: Profile, checks: tuple[Check, ...] = ALL_CHECKS) -> Plan:
    """The plan of ``checks`` under ``rules`` and ``profile`` (remembered for the last few)."""
    key = (id(rules), profile, id(checks))
    entry = _PLANS.get(key)
    if entry is not None and entry[0] is rules and entry[1] is checks:
        return entry[2]
    by_scope: dict[str, list[Step]] = {}
    endpoint: list[Step] = []
    marker = _EndpointMarker()
    for item in checks:
        severity = _severity(item.code, rules, profile)
        if severity == Severity.OFF:
            continue
        step = Step(item, severity, invalidates(item.scope, item.code, rules))
        by_scope.setdefault(item.scope, []).append(step)
        if item.scope == "result" and applies(item, marker, rules):
            endpoint.append(step)
    plan = Plan({scope: tuple(steps) for scope, steps in by_scope.items()}, tuple(endpoint))
    if len(_PLANS) > 16:
        _PLANS.clear()
    _PLANS[key] = (rules, checks, plan)
    return plan


class _EndpointMarker:
    endpoint = True  # stands for any endpoint result when the plan asks ``applies``


def _stamped(item: Finding, step: Step, result_id) -> Finding:
    """``item`` with the engine's fields set: a copy made field by field (as ``dataclasses.replace``
    would, without its per-call introspection; a check may yield a finding it shares with another)."""
    out = object.__new__(Finding)
    fields = out.__dict__
    fields.update(item.__dict__)
    fields["code"] = step.check.code
    fields["severity"] = step.severity
    fields["scope"] = step.check.scope
    fields["invalidates"] = step.reach
    fields["result_id"] = result_id
    return out


def _run_step(step: Step, ctx, rules: RoundRules, out: list[Finding], scope_of=None, scope: str | None = None) -> None:
    """Run one step on ``ctx``; ``scope`` is the context's scope key when the caller knows it."""
    check = step.check
    if scope is None:
        scope = "" if check.scope == "round" else _scope_key(check, ctx)
    try:
        for item in check.func(ctx, rules) or ():
            out.append(_stamped(item, step, scope_of(item) if scope_of else scope))
    except Exception as exc:  # isolate: a crashing check must not stop the run
        out.append(_crashed(step, exc, scope))


def _run_steps(steps: tuple[Step, ...], ctx, rules: RoundRules, out: list[Finding], scope: str) -> None:
    """Run ``steps`` on ``ctx`` (as ``_run_step`` each, in one loop): ``scope`` is the context's scope key."""
    append = out.append
    for step in steps:
        try:
            for item in step.check.func(ctx, rules) or ():
                append(_stamped(item, step, scope))
        except Exception as exc:  # isolate: a crashing check must not stop the run
            append(_crashed(step, exc, scope))


def _crashed(step: Step, exc: Exception, scope: str) -> Finding:
    """The TL001 finding of ``step``'s check raising ``exc`` on the context of ``scope``."""
    import traceback  # (imported where a check crashes)

    check = step.check
    where = traceback.extract_tb(exc.__traceback__)[-1]
    return Finding(
        message=f"{scope or '.'}: check {check.code} ({check.name}) crashed: {type(exc).__name__}: {exc}",
        location=Location(scope or "."), expected="the check to run", actual=f"{type(exc).__name__}",
        hint=f"please report this bug (at {where.filename.rsplit('/', 1)[-1]}:{where.lineno})",
        code="TL001", severity=Severity.ERROR, result_id=scope, scope=check.scope, invalidates=step.reach)


def _run(check: Check, ctx, rules, profile, out: list[Finding], scope_of=None) -> None:
    """Run one check on one context (the plan's way, for a caller holding a single check)."""
    severity = _severity(check.code, rules, profile)
    if severity == Severity.OFF:
        return
    _run_step(Step(check, severity, invalidates(check.scope, check.code, rules)), ctx, rules, out, scope_of)


def _in_scope(scope: str, rel: str) -> bool:
    return scope == "" or rel == scope or rel.startswith(scope + "/")


def _run_context(plan: Plan, scope: str, ctx, rules: RoundRules, out: list[Finding]) -> None:
    """Run the steps of ``scope`` on ``ctx``, as ``_run_step`` each, in their order; a check whose
    ``when`` test is false for ``ctx`` is left out (it would yield nothing). Each test is asked once, where the first
    check that names it would run (what it reads of the context is then read when it was before)."""
    program = plan.program(scope, ctx)
    if not program:
        return
    key = _scope_key(program[0][1][0].check, ctx)  # the same for every step of this scope
    asked: dict = {}
    for test, steps in program:
        if test is not None:
            holds = asked.get(test)
            if holds is None:
                holds = asked[test] = _holds(test, ctx, rules)
            if not holds:
                continue
        _run_steps(steps, ctx, rules, out, key)


def _run_contexts(plan: Plan, scope: str, contexts, rules: RoundRules, out: list[Finding]) -> None:
    for ctx in contexts:
        _run_context(plan, scope, ctx, rules, out)


def _with_scenarios(model, passed: tuple[str, ...]):
    """``dataclasses.replace(model, valid_perf_scenarios=passed)``, made field by field as ``_stamped`` makes a
    finding (the context is frozen and has no __post_init__; replace looks its fields up on every call)."""
    out = object.__new__(model.__class__)
    fields = out.__dict__
    fields.update(model.__dict__)
    fields["valid_perf_scenarios"] = passed
    return out


def _model_stage(plan: Plan, tree: Tree, rules: RoundRules, findings: list[Finding]) -> None:
    """The model checks, which see the scenarios of the model whose performance checks passed."""
    steps = plan.steps("model")
    if not steps:
        return
    failed_perf = {f.result_id for f in findings
                   if f.severity == Severity.ERROR and f.code.startswith(PERF_GATE)}
    failed_perf.discard("")
    failed_perf.discard(None)
    # the scenarios of the results below each folder holding one, once per result (not once per model and result):
    # a result is below the model at every folder its path goes through
    below: dict[str, set] = {model.rel: set() for model in tree.models}
    shortest = min(map(len, below), default=0)  # (no folder above a result that is shorter holds a model)
    for r in tree.results:
        if not r.scenario or (failed_perf and any(_in_scope(s, r.rel) for s in failed_perf)):
            continue
        rel = r.rel
        at = rel.find("/", shortest)
        while at >= 0:
            scenarios = below.get(rel[:at])
            if scenarios is not None:
                scenarios.add(r.scenario)
            at = rel.find("/", at + 1)
    for model in tree.models:
        passed = tuple(sorted(below[model.rel]))
        ctx = _with_scenarios(model, passed)
        _run_context(plan, "model", ctx, rules, findings)


def run_checks(tree: Tree, rules: RoundRules, profile: Profile = PROFILES["default"],
               checks: tuple[Check, ...] = ALL_CHECKS, scopes: tuple[str, ...] | None = None) -> list[Finding]:
    plan = plan_for(rules, profile, checks)
    findings: list[Finding] = []
    if scopes is None or "root" in scopes:
        for step in plan.steps("root"):
            _run_step(step, tree.root, rules, findings)
    for scope, contexts in (("division", tree.divisions), ("submitter", tree.submitters), ("system", tree.systems),
                            ("result", tree.results)):
        if scopes is None or scope in scopes:
            _run_contexts(plan, scope, contexts, rules, findings)
    if scopes is None or "model" in scopes:
        _model_stage(plan, tree, rules, findings)
    return findings
