"""Run the checks over a parsed tree: stamp codes and severities, isolate crashes, grade results.

A finding belongs to a scope (root, division, submitter, system, model or result path). A result is
invalid when an error-severity finding that ``invalidates`` has a scope containing it; root and division
errors fail the run without invalidating results, system errors invalidate only for the codes the round
lists in ``system_invalidating_codes``.
"""

from __future__ import annotations

import dataclasses
import os
import time
import traceback

from checker.checks.base import Check
from checker.context import ResultCtx, RoundCtx
from checker.diagnostics import Finding, Location, Severity
from checker.loaders.tree import Tree, load_submitter, load_top
from checker.checks.accuracy import accuracy_reading
from checker.metrics.accuracy_metrics import read_accuracy
from checker.metrics.power import PowerError, average_power, power_metric
from checker.models.rules import RoundRules
from checker.registry import ALL_CHECKS
from checker.report import Report, ResultSummary, compliance_status, counts_as, findings_in_scope
from checker.results import result_value

PERF_GATE = ("ST016", "ST019", "ST020", "MS", "PF",  # a scenario counts as run once these pass (official D5)
             "EP001", "EP002", "EP003", "EP004", "EP006", "EP007", "EP008", "EP009", "EP013", "EP016", "EP017")


def applies(check: Check, ctx, rules: RoundRules) -> bool:
    """Whether ``check`` judges ``ctx``: an endpoint result (no LoadGen logs) gets the EP checks and the
    LoadGen-result checks the round lists in ``endpoint.also_run``; every other context gets the rest."""
    endpoint = getattr(ctx, "endpoint", None)
    if endpoint is None:
        return True
    return check.code.startswith("EP") or (rules.endpoint is not None and check.code in rules.endpoint.also_run)


@dataclasses.dataclass(frozen=True)
class Profile:
    name: str = "default"
    # severity overrides applied on top of the round file (smoke relaxes run-length checks); a round file may
    # add its own for a profile (`profiles:`: the official profile of v6.0)
    overrides: tuple[tuple[str, str], ...] = ()


# default: the rules, as the round file grades them; official: the round's official checker's verdicts where
# they knowingly differ from the rules (the round file's profiles.official); smoke: short test runs
PROFILES = {
    "default": Profile(),
    "official": Profile("official"),
    "smoke": Profile("smoke", (("PF001", "info"), ("PF006", "info"), ("PF009", "info"), ("PF010", "info"),
                               ("PF004", "info"), ("PF008", "info"), ("AC001", "info"), ("AC005", "info"),
                               ("AC009", "info"))),
}


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
    code as making the system description unusable (``system_invalidating_codes``)."""
    if scope in ("root", "division"):
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

    def steps(self, scope: str, ctx=None) -> tuple[Step, ...]:
        if scope == "result" and ctx is not None and getattr(ctx, "endpoint", None) is not None:
            return self.endpoint_results
        return self.by_scope.get(scope, ())


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
        where = traceback.extract_tb(exc.__traceback__)[-1]
        out.append(Finding(
            message=f"{scope or '.'}: check {check.code} ({check.name}) crashed: {type(exc).__name__}: {exc}",
            location=Location(scope or "."), expected="the check to run", actual=f"{type(exc).__name__}",
            hint=f"please report this bug (at {where.filename.rsplit('/', 1)[-1]}:{where.lineno})",
            code="TL001", severity=Severity.ERROR, result_id=scope, scope=check.scope, invalidates=step.reach))


def _run(check: Check, ctx, rules, profile, out: list[Finding], scope_of=None) -> None:
    """Run one check on one context (the plan's way, for a caller holding a single check)."""
    severity = _severity(check.code, rules, profile)
    if severity == Severity.OFF:
        return
    _run_step(Step(check, severity, invalidates(check.scope, check.code, rules)), ctx, rules, out, scope_of)


def _in_scope(scope: str, rel: str) -> bool:
    return scope == "" or rel == scope or rel.startswith(scope + "/")


def _run_contexts(plan: Plan, scope: str, contexts, rules: RoundRules, out: list[Finding]) -> None:
    for ctx in contexts:
        steps = plan.steps(scope, ctx)
        if steps:
            key = _scope_key(steps[0].check, ctx)  # the same for every step of this scope
            for step in steps:
                _run_step(step, ctx, rules, out, scope=key)


def _model_stage(plan: Plan, tree: Tree, rules: RoundRules, findings: list[Finding]) -> None:
    """The model checks, which see the scenarios of the model whose performance checks passed."""
    steps = plan.steps("model")
    if not steps:
        return
    failed_perf = {f.result_id for f in findings
                   if f.severity == Severity.ERROR and f.code.startswith(PERF_GATE)}
    failed_perf.discard("")
    failed_perf.discard(None)
    for model in tree.models:
        prefix = model.rel + "/"
        passed = tuple(sorted({r.scenario for r in tree.results
                               if r.scenario and r.rel.startswith(prefix)
                               and not any(_in_scope(s, r.rel) for s in failed_perf)}))
        ctx = dataclasses.replace(model, valid_perf_scenarios=passed)
        for step in steps:
            _run_step(step, ctx, rules, findings)


def run_checks(tree: Tree, rules: RoundRules, profile: Profile = PROFILES["default"],
               checks: tuple[Check, ...] = ALL_CHECKS, scopes: tuple[str, ...] | None = None) -> list[Finding]:
    plan = plan_for(rules, profile, checks)
    if scopes is not None:
        plan = Plan({s: steps for s, steps in plan.by_scope.items() if s in scopes},
                    plan.endpoint_results if "result" in scopes else ())
    findings: list[Finding] = []
    for step in plan.steps("root"):
        _run_step(step, tree.root, rules, findings)
    for scope, contexts in (("division", tree.divisions), ("submitter", tree.submitters), ("system", tree.systems),
                            ("result", tree.results)):
        _run_contexts(plan, scope, contexts, rules, findings)
    _model_stage(plan, tree, rules, findings)
    return findings


def findings_by_result(results: list[ResultCtx], findings: list[Finding]) -> dict[str, list[Finding]]:
    """For each result, the findings whose scope contains it, in the order of ``findings`` (one pass over
    the findings instead of one per result)."""
    return findings_in_scope([r.rel for r in results], findings)


_LAST_SYSTEM: list = [None, ()]  # the system description last summarised, and its fields


def _system_fields(data: dict) -> tuple:
    """The scalar fields of a system description, sorted; one tuple shared by the results of a system
    (they come one system after the other), which a round of 10,000 results otherwise holds 10,000
    copies of (about 2 KB each, in the process that assembles the report)."""
    if _LAST_SYSTEM[0] is not data:
        _LAST_SYSTEM[:] = [data, tuple(sorted((k, v) for k, v in data.items()
                                              if isinstance(v, (str, int, float, bool))))]
    return _LAST_SYSTEM[1]


def summarise(result: ResultCtx, rules: RoundRules, mine: list[Finding]) -> ResultSummary:
    """The summary of one result; ``mine`` are the findings whose scope contains it
    (``findings_by_result``)."""
    errors = sum(1 for f in mine if counts_as(f) == "error")
    warnings = sum(1 for f in mine if counts_as(f) == "warning")
    value = result_value(result, rules) if result.scenario else None
    power_value = power_eff = None
    if (result.power is not None and result.power.run_samples is not None and value is not None and value.value
            and result.perf and result.perf.log):
        log = result.perf.log
        try:
            window = average_power(result.power.run_samples, log.get("power_begin"), log.get("power_end"))
            spq = 8 if result.scenario == "MultiStream" else 1
            mult = 8 if (result.scenario == "MultiStream" and log.scenario == "SingleStream") else 1
            power_value, power_eff = power_metric(result.scenario, window, log.get("result_query_count"), spq,
                                                  value.value, multiplier=mult)
        except PowerError:
            pass
    accuracy: tuple = ()
    model = rules.models.get(result.mlperf_model)
    if model and result.accuracy.accuracy_txt:
        # the accuracy checks' reading of this result (same values: upper limits add none), read again
        # only for a folder that is not a scenario, which the checks skip
        reading = accuracy_reading(result, rules)[0] if result.scenario else read_accuracy(
            result.accuracy.accuracy_txt, rules.accuracy_patterns, [(t.metric, t.target) for t in model.accuracy], [])
        metrics = dict.fromkeys(t.metric for t in model.accuracy)  # a metric may have a rules and an official bound
        accuracy = tuple((m, reading.values[m]) for m in metrics if m in reading.values)
    elif result.endpoint is not None and result.endpoint.accuracy is not None:
        # the published table's convention: the first accuracy score, bare, on its scorer's own scale
        scores = [e.score for e in result.endpoint.accuracy.scored if isinstance(e.score, (int, float))]
        if scores:
            name = model.endpoint.accuracy.metric if model and model.endpoint and model.endpoint.accuracy else "score"
            accuracy = ((name, float(scores[0])),)
    data = result.system.data or {}
    impl = result.measurements.impl_json if isinstance(result.measurements.impl_json, dict) else {}
    comp, comp_tests = compliance_status(result.division, tuple(model.compliance_tests) if model else (), mine)
    # the bounds the rules set (an official-only bound, AC012, is not the target a reader should see)
    targets = {t.metric: [t.target, None] for t in model.targets_for(result.scenario)
               if t.source != "official"} if model else {}
    for lim in (model.upper_limits if model else ()):
        if lim.source != "official":
            targets.setdefault(lim.metric, [None, None])[1] = lim.limit
    return ResultSummary(
        id=result.rel, division=result.division, submitter=result.submitter, system=result.system.system,
        model=result.model_dir, mlperf_model=result.mlperf_model, scenario=result.scenario or result.scenario_dir,
        scenario_dir=result.scenario_dir, valid=errors == 0 and value is not None and bool(value.value),
        value=value.value if value else None, unit=value.unit if value else None,
        inferred=bool(value and value.inferred), has_power=result.power is not None,
        power_value=power_value, power_unit=rules.power_units.get(result.scenario or "") if result.power else None,
        power_efficiency=power_eff, accuracy=accuracy, errors=errors, warnings=warnings, compliance=comp,
        system_fields=_system_fields(data),
        weight_data_types=str(impl.get("weight_data_types")) if impl.get("weight_data_types") is not None else None,
        compliance_tests=comp_tests, accuracy_targets=tuple((m, t, u) for m, (t, u) in targets.items()),
        log_scenario=result.log_scenario, endpoint=result.endpoint is not None,
        layout=result.endpoint.layout if result.endpoint is not None else None,
    )


SUBMITTER_SCOPES = ("submitter", "system", "model", "result")


@dataclasses.dataclass(frozen=True)
class UnitPointer:
    """A unit a worker process found unchanged, left for the parent to load: its findings are then
    unpickled once, in the process that needs them, instead of in the worker and again in the parent."""

    key: str


def check_unit(root: str, division: str, submitter: str, rules: RoundRules, profile: Profile,
               checks: tuple[Check, ...] = ALL_CHECKS, cache=None, defer: bool = False, quick=...):
    """Check one submitter folder; a crash here is reported as TL001 for that submitter only.

    With ``cache`` (a prepared ``checker.cache.ResultCache``) an unchanged submitter is taken whole
    from the cache, and in a changed one only the results whose files changed are checked again;
    the output is the same as without the cache. A failure of the cache itself is a warning (TL004)
    and the submitter is checked without it. Returns (findings, summaries, digest): the digest of the
    summaries is kept in the cache entry and keys the round checks (``assemble``); it is None without
    the cache. ``defer``: an unchanged unit found by the stat fields of its files is returned as a
    :class:`UnitPointer`. ``quick``: the unit's stat key when the caller computed it already."""
    failure = None
    if cache is not None and cache.usable and checks is ALL_CHECKS:
        try:
            return _check_unit_cached(root, division, submitter, rules, profile, cache, defer, quick)
        except Exception as exc:  # never let the cache decide a verdict: check the plain way
            failure = exc
    try:
        tree = load_submitter(root, division, submitter, rules)
        findings = run_checks(tree, rules, profile, checks, scopes=SUBMITTER_SCOPES)
        mine = findings_by_result(tree.results, findings)
        summaries = [summarise(r, rules, mine[r.rel]) for r in tree.results]
        if failure is not None:  # the plain way worked, so the failure was the cache's own
            cache.warn(f"{division}/{submitter}", f"the cache failed on this submitter "
                       f"({type(failure).__name__}: {failure}); it was checked without the cache")
        return findings, summaries, None
    except Exception as exc:  # isolate a submitter whose files break the loader
        rel = f"{division}/{submitter}"
        return [Finding(message=f"{rel}: checking this submitter failed: {type(exc).__name__}: {exc}",
                        location=Location(rel), expected="the submitter to be checked", actual=type(exc).__name__,
                        hint="please report this bug", code="TL001", severity=Severity.ERROR, result_id=rel,
                        scope="submitter")], [], None


def _check_unit_cached(root: str, division: str, submitter: str, rules: RoundRules, profile: Profile,
                       cache, defer: bool = False, quick=...):
    """``check_unit`` through the cache; produces the same findings, in the same order, as ``run_checks``."""
    from checker import cache as store

    sub_rel = f"{division}/{submitter}"
    # first look: the stat fields of the unit's files, pointing to the unit key of the same state
    # (not for throw-away trees such as a --git-ref checkout, whose inodes never come back)
    if quick is ...:
        quick = store.stat_key(cache.salt, root, sub_rel) if cache.persist_memo else None
    pointer = cache.load("quick", quick) if quick else None
    if isinstance(pointer, str):
        if defer and cache.has("units", pointer):
            return UnitPointer(pointer)
        hit = _unit_hit(cache, pointer)
        if hit is not None:
            return hit
    memo = cache.memo(root, sub_rel)
    found = store.scan(root, sub_rel, memo)
    memo.save(cache.warn)
    unit_key = store.unit_key(cache.salt, division, submitter, found)
    if unit_key:
        hit = _unit_hit(cache, unit_key)
        if hit is not None:
            if quick:
                cache.store("quick", quick, unit_key)
            return hit
    tree = load_submitter(root, division, submitter, rules)
    findings = run_checks(tree, rules, profile, ALL_CHECKS, scopes=("submitter", "system"))
    plan = plan_for(rules, profile, ALL_CHECKS)
    depth = rules.power.measure_file_ancestor_depth
    for result in tree.results:
        key = store.result_key(cache.salt, found, result, depth)
        hit = cache.load("results", key) if key else None
        if isinstance(hit, list) and all(isinstance(f, Finding) for f in hit):
            findings += hit
            cache.stats.results_reused += 1
            continue
        own: list[Finding] = []
        for step in plan.steps("result", result):
            _run_step(step, result, rules, own, scope=result.rel)
        if key:
            cache.store("results", key, own)
        findings += own
        cache.stats.results_checked += 1
        cache.stats.checked.append(result.rel)
    _model_stage(plan, tree, rules, findings)  # exactly as the last stage of run_checks
    mine = findings_by_result(tree.results, findings)
    summaries = [summarise(r, rules, mine[r.rel]) for r in tree.results]
    digest = store.summaries_digest(summaries)
    if unit_key:
        cache.store("units", unit_key, (findings, summaries, digest))
        if quick:
            cache.store("quick", quick, unit_key)
    cache.stats.units_checked += 1
    return findings, summaries, digest


def _unit_hit(cache, unit_key: str) -> tuple[list[Finding], list[ResultSummary], str] | None:
    hit = cache.load("units", unit_key)
    if (isinstance(hit, tuple) and len(hit) == 3 and all(isinstance(f, Finding) for f in hit[0])
            and all(isinstance(r, ResultSummary) for r in hit[1]) and isinstance(hit[2], str)):
        cache.stats.units_reused += 1
        cache.stats.results_reused += len(hit[1])
        return list(hit[0]), list(hit[1]), hit[2]
    return None


def _unit_worker(args):
    root, division, submitter, round_name, profile_name, cache_spec, quick = args
    from checker.loaders.rules import load_rules
    cache = None
    if cache_spec is not None:
        from checker.cache import ResultCache
        cache = ResultCache.from_spec(cache_spec)
    output = check_unit(root, division, submitter, load_rules(round_name), PROFILES[profile_name], cache=cache,
                        defer=True, quick=quick)
    return output, cache.take() if cache is not None else None


def _cache_findings(warnings: list[tuple[str, str]], rules: RoundRules, profile: Profile) -> list[Finding]:
    severity = _severity("TL004", rules, profile)
    if severity == Severity.OFF:
        return []
    return [Finding(message=f"{path}: {message}", location=Location(path), expected="a usable cache entry",
                    actual=message.split(";")[0], code="TL004", severity=severity,
                    hint="the verdicts are unaffected; delete the cache folder, or use --no-cache or --cache-dir")
            for path, message in sorted(set(warnings))]


@dataclasses.dataclass
class RoundStart:
    """What a check knows before it checks any submitter: the report root, the root and division findings,
    the ``(division, submitter)`` units in order, and the profile."""

    root: str
    findings: list[Finding]
    units: list[tuple[str, str]]
    profile: Profile


def open_round(path: str, rules: RoundRules, profile: str = "default", checks: tuple[Check, ...] = ALL_CHECKS,
               cache=None) -> RoundStart:
    """Read the root and division level of ``path``, run their checks, and bind ``cache`` to its salt."""
    prof = PROFILES[profile]
    top, units = load_top(path, rules)
    findings = run_checks(top, rules, prof, checks, scopes=("root", "division"))
    root = top.root.root
    if cache is not None:
        from checker.cache import cache_salt
        cache.prepare(cache_salt(rules.round, prof.name, prof.overrides, tuple(c.code for c in checks)), root)
    return RoundStart(root=root, findings=findings, units=units, profile=prof)


UnitOutput = tuple[list[Finding], list[ResultSummary], "str | None"]  # findings, summaries, their digest


def _quick_hit(root: str, division: str, submitter: str, cache) -> tuple[UnitOutput | None, str | None]:
    """An unchanged unit found by the stat fields of its files alone (the cache's "quick" pointer), and
    that stat key (None when the unit has none): what the parent process looks up before it starts any
    worker, so a warm re-check forks nothing and unpickles each entry once."""
    if not cache.persist_memo:
        return None, None
    from checker import cache as store

    quick = store.stat_key(cache.salt, root, f"{division}/{submitter}")
    pointer = cache.load("quick", quick) if quick else None
    return (_unit_hit(cache, pointer) if isinstance(pointer, str) else None), quick


def check_units(start: RoundStart, units: list[tuple[str, str]], rules: RoundRules,
                checks: tuple[Check, ...] = ALL_CHECKS, jobs: int | None = 1, progress=None,
                cache=None) -> dict[tuple[str, str], UnitOutput]:
    """Check ``units`` (serially, or in ``jobs`` processes); their findings and summaries by unit.

    In parallel, units found unchanged by the cache's stat fields are taken in this process first; the
    others go to the workers largest first (``unit_weight``), so that the last one to finish is small."""
    root, prof = start.root, start.profile
    unit_cache = cache if cache is not None and cache.usable else None
    out: dict[tuple[str, str], UnitOutput] = {}
    if jobs is None:
        jobs = (os.cpu_count() or 1) if len(units) >= 8 else 1
    done = 0

    def finished(unit, output) -> None:
        nonlocal done
        out[unit] = output
        done += 1
        if progress:
            progress(done, len(units), unit)

    if jobs > 1 and len(units) > 1 and checks is ALL_CHECKS:
        pending = list(units)
        quick: dict[tuple[str, str], str | None] = {}
        if unit_cache is not None:
            pending = []
            for unit in units:
                hit, quick[unit] = _quick_hit(root, *unit, unit_cache)
                if hit is not None:
                    finished(unit, hit)
                else:
                    pending.append(unit)
        if len(pending) > 1:
            from concurrent.futures import ProcessPoolExecutor
            from checker.loaders.tree import unit_weight

            weights = {unit: unit_weight(root, *unit, rules) for unit in pending}
            pending.sort(key=lambda unit: -weights[unit])  # stable: equal weights keep the tree's order
            spec = unit_cache.spec() if unit_cache is not None else None
            work = [(root, d, s, rules.round, prof.name, spec, quick.get((d, s), ...)) for d, s in pending]
            with ProcessPoolExecutor(max_workers=min(jobs, len(pending))) as pool:
                for unit, (output, taken) in zip(pending, pool.map(_unit_worker, work, chunksize=1)):
                    if isinstance(output, UnitPointer):  # load it here; checked here if the entry fails to load
                        output = _unit_hit(unit_cache, output.key) or check_unit(
                            root, *unit, rules, prof, checks, cache=unit_cache)
                    if taken is not None:
                        cache.stats.merge(taken[0])
                        cache.warnings += taken[1]
                    finished(unit, output)
            return {unit: out[unit] for unit in units}
        units = pending
    for division, submitter in units:
        finished((division, submitter), check_unit(root, division, submitter, rules, prof, checks, cache=unit_cache))
    return out


def assemble(start: RoundStart, outputs: dict[tuple[str, str], UnitOutput], rules: RoundRules,
             round_reason: str = "", checks: tuple[Check, ...] = ALL_CHECKS, cache=None,
             started: float | None = None) -> Report:
    """The report of a round from its start and the outputs of all its units (in ``start.units`` order):
    adds the cache warnings and runs the round-scope checks."""
    prof, root = start.profile, start.root
    unit_cache = cache if cache is not None and cache.usable else None
    findings = list(start.findings)
    summaries: list[ResultSummary] = []
    digests: list = []
    for unit in start.units:
        unit_findings, unit_summaries, digest = outputs[unit]
        findings += unit_findings
        summaries += unit_summaries
        digests.append(digest)
    if cache is not None:
        findings += _cache_findings(cache.warnings, rules, prof)
    # checks over the whole set of results (scope "round"), run once in this process
    round_checks = tuple(c for c in checks if c.scope == "round")
    if round_checks:
        round_ctx = RoundCtx(root=root, results=tuple(sorted(summaries, key=lambda s: s.id)))
        found: list[Finding] | None = None
        round_key = None
        if unit_cache is not None and checks is ALL_CHECKS:  # round checks are pure over the summaries
            from checker.cache import round_key as make_round_key
            round_key = make_round_key(unit_cache.salt, round_ctx.results, digests)
            hit = unit_cache.load("rounds", round_key)
            if isinstance(hit, list) and all(isinstance(f, Finding) for f in hit):
                found = hit
        if found is None:
            found = []
            for step in plan_for(rules, prof, checks).steps("round"):
                _run_step(step, round_ctx, rules, found, scope_of=lambda f: f.result_id or "")
            if round_key is not None:
                unit_cache.store("rounds", round_key, found)
        by_id = {s.id: s for s in summaries}
        for f in found:
            target = by_id.get(f.result_id or "")
            kind = counts_as(f)
            if target is not None and kind == "error":
                by_id[target.id] = dataclasses.replace(target, valid=False, errors=target.errors + 1)
            elif target is not None and kind == "warning":
                by_id[target.id] = dataclasses.replace(target, warnings=target.warnings + 1)
        summaries = list(by_id.values())
        findings += found
    # root and division findings fail the run (exit status) but leave every result's verdict alone
    findings.sort(key=lambda f: f.sort_key())
    from checker.loaders.fingerprint import checker_fingerprint, version

    report = Report(root=root, round=rules.round, round_reason=round_reason, profile=prof.name,
                    findings=findings, checks_run=len(checks), tool_version=version(),
                    fingerprint=checker_fingerprint())
    report.results = sorted(summaries, key=lambda s: s.id)
    report.elapsed_s = time.perf_counter() - started if started is not None else 0.0
    return report


def check_tree(path: str, rules: RoundRules, round_reason: str = "", profile: str = "default",
               checks: tuple[Check, ...] = ALL_CHECKS, jobs: int | None = 1, progress=None, cache=None) -> Report:
    """Check a tree. ``jobs`` > 1 checks submitters in parallel processes (None: one per core when
    there are at least 8 submitters); ``progress`` is called with (done, total, unit) per submitter.
    ``cache`` (a ``checker.cache.ResultCache``) reuses earlier results of unchanged files; its
    ``stats`` tell what was checked again, and its problems become TL004 warnings."""
    started = time.perf_counter()
    start = open_round(path, rules, profile, checks, cache)
    outputs = check_units(start, start.units, rules, checks, jobs, progress, cache)
    return assemble(start, outputs, rules, round_reason, checks, cache, started)
