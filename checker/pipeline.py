"""The pipeline of a check: load -> check -> summarise -> report, one submitter folder at a time.

* load: ``checker.loaders.tree`` walks a submitter folder once and parses each file once into typed
  contexts (``checker.context``); the tree's source (a folder or a git commit) is ``checker.loaders.source``;
* check: ``checker.engine`` runs the checks over those contexts;
* summarise: ``checker.summary`` makes one row per result from the contexts and the findings;
* report: ``assemble`` (here) adds the round-scope checks and builds the ``Report``, which the reporters
  (``checker.reporters``) render.

The cache (``checker.cached``) wraps the check and summary stages of a submitter. Submitters are checked
serially or in worker processes (``checker.forkpool``, forked once the parent has loaded what they need)
that receive only names (root, division, submitter, round, profile) and return findings and summaries.
"""

from __future__ import annotations

import dataclasses
import os
import time
from typing import TYPE_CHECKING

from checker.cached import UnitPointer, cache_findings, check_unit_cached, quick_hit, unit_hit
from checker.checks.base import Check
from checker.checks.memo import forget
from checker.context import RoundCtx
from checker.diagnostics import Finding, Location, Severity
from checker.engine import PROFILES, Profile, plan_for, run_checks, _run_step
from checker.finish import count_round_findings, new_report
from checker.loaders import prewalk
from checker.loaders.loadgen_log import forget_logs
from checker.loaders.tree import load_submitter, load_top
from checker.registry import ALL_CHECKS
from checker.report import Report, ResultSummary, counts_as, shared
from checker.spool import SpoolWriter
from checker.summary import findings_by_result, summarise

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.rules import RoundRules

SUBMITTER_SCOPES = ("submitter", "system", "model", "result")


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


class UnitOutputs(dict):
    """The outputs of ``check_units`` by unit (a dict), with what the round checks computed of them unit by
    unit while the workers ran (``precomputed``, for ``RoundCtx.precomputed``; None when nothing was)."""

    precomputed: dict | None = None



def check_unit(root: str, division: str, submitter: str, rules: RoundRules, profile: Profile,
               checks: tuple[Check, ...] = ALL_CHECKS, cache=None, defer: bool = False, quick=...):
    """Check one submitter folder (``_check_unit``), then drop what its checks remembered of it (the
    contexts and parsed logs of one submitter are not kept while the next is checked: peak memory then
    follows the largest submitter, not the number checked so far)."""
    try:
        return _check_unit(root, division, submitter, rules, profile, checks, cache, defer, quick)
    finally:
        forget()
        forget_logs()


def _check_unit(root: str, division: str, submitter: str, rules: RoundRules, profile: Profile,
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
            return check_unit_cached(root, division, submitter, rules, profile, cache, defer, quick)
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
        return _unit_failed(f"{division}/{submitter}", f"{type(exc).__name__}: {exc}", type(exc).__name__,
                            "please report this bug")


def _unit_failed(rel: str, why: str, actual: str, hint: str) -> UnitOutput:
    """The output of a submitter whose check failed: one TL001 error for it, no result."""
    return [Finding(message=f"{rel}: checking this submitter failed: {why}", location=Location(rel),
                    expected="the submitter to be checked", actual=actual, hint=hint, code="TL001",
                    severity=Severity.ERROR, result_id=rel, scope="submitter")], [], None


def _unit_worker(args):
    """A unit checked in a worker process. ``spooled``: the parent keeps the findings in a spool, so they
    are sent packed for it (``checker.spool.pack``: sorted and pickled here, written there as they are)."""
    root, division, submitter, round_name, profile_name, cache_spec, quick, spooled = args
    from checker.loaders.rules import load_rules
    cache = None
    if cache_spec is not None:
        from checker.cache import ResultCache
        cache = ResultCache.from_spec(cache_spec)
    output = check_unit(root, division, submitter, load_rules(round_name), PROFILES[profile_name], cache=cache,
                        defer=True, quick=quick)
    if spooled and not isinstance(output, UnitPointer):
        from checker.spool import pack

        output = (pack(output[0]), *output[1:])
    return output, cache.take() if cache is not None else None


def run_workers(fn, work: list, jobs: int, answered, meanwhile=None) -> None:
    """``answered(i, fn(work[i]))`` for each item, in ``jobs`` worker processes: forked ones fed over pipes
    (``checker.forkpool``) where the system forks, else a ``ProcessPoolExecutor``. ``meanwhile`` is called
    once the workers are at work. A forked worker keeps the regular expressions it compiled for the next run
    (``checker.regex_cache``, where the command line installed it) before it ends."""
    from checker import forkpool, regex_cache

    if forkpool.available():
        forkpool.run(fn, work, jobs, answered, meanwhile, at_exit=regex_cache.save)
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        answers = pool.map(fn, work, chunksize=1)
        if meanwhile is not None:
            meanwhile()
        for index, answer in enumerate(answers):
            answered(index, answer)


def _prepare(checks: tuple[Check, ...]) -> None:
    """What the report and the round checks read after the workers, read while they work instead (this
    process would only wait for their answers): the checker's fingerprint and, for the plausibility checks,
    the hardware tables. What fails here fails again where the checks
    use it, and is reported there."""
    from checker.loaders.fingerprint import checker_fingerprint

    prewalk.drop()  # (the workers have their copies of what was read ahead)
    checker_fingerprint()
    if any(c.code.startswith("PL") for c in checks if c.scope == "round"):
        from checker.loaders.hardware import default_tables

        try:
            default_tables()  # (records: the assessment builds records too, checker.models.assessment_shapes)
        except Exception:  # noqa: BLE001 - reported where the checks use them
            pass


def _round_parts(rules: RoundRules, checks: tuple[Check, ...]) -> dict | None:
    """The accumulators of the round checks' per-submitter parts, filled in this process as each unit's answer
    comes while the workers check the others (``checker.checks.plausibility.RoundPart``: the Submissions and
    the assessment of each result; the round checks then do only what compares submitters). None when no
    round check takes one."""
    if not any(c.code.startswith("PL") for c in checks if c.scope == "round"):
        return None
    from checker.checks.plausibility import RoundPart

    return {"plausibility": RoundPart(rules)}


def _worker_output(unit: tuple[str, str], answer):
    """(output, the cache's tallies or None) of a worker's answer; a worker that died without answering
    gives its unit the finding a crash of the checker gives (TL001)."""
    from checker.forkpool import WorkerDied

    if not isinstance(answer, WorkerDied):
        return answer
    return _unit_failed(f"{unit[0]}/{unit[1]}", f"its worker process {answer.how}", answer.how,
                        "please report this bug (a worker ends this way when it runs out of memory or an "
                        "extension crashes)"), None


def warm_up(rules: RoundRules) -> None:
    """Build, before the workers are forked, what each of them would otherwise build for itself on its
    first submitter: the round's audit spec and the validator of its system descriptions
    (``checker.models.system_core``; the pydantic model ``system_model`` is built only to export its schema), the
    Appendix B table, in a round with TEST07, TEST08 or TEST09 (v6.0 on) the modules that verify
    them, and in a round that takes endpoint results (v6.1 on) their models. None of them imports numpy
    (about 12 MB in every process that does): power logs are read and walked in C where the extensions are
    built, and a worker imports it where it computes TEST08's entropy. A data file that fails to load here is
    reported where the checks use it."""
    from checker.loaders.audit_spec import load_round_spec
    from checker.metrics.bandwidth import load_appendix_b
    from checker.models.system_core import system_validator

    try:
        spec = load_round_spec(rules.round)
        system_validator(rules)
        load_appendix_b()  # (the table every datacenter result's bandwidth checks read)
    except Exception:  # noqa: BLE001 - the workers meet the same error and report it
        return
    if {"TEST07", "TEST08", "TEST09"} & set(spec.tests):
        from checker.audit import compliance_v6  # noqa: F401  (and checker.audit.verify_tests_v6, which it imports)
    if rules.endpoint is not None:  # a round that takes endpoint results (v6.1 on): their pydantic models
        from checker.models import endpoint

        endpoint.build_validators()


def check_units(start: RoundStart, units: list[tuple[str, str]], rules: RoundRules,
                checks: tuple[Check, ...] = ALL_CHECKS, jobs: int | None = 1, progress=None,
                cache=None, spool=None) -> dict[tuple[str, str], UnitOutput]:
    """Check ``units`` (serially, or in ``jobs`` processes); their findings and summaries by unit.

    In parallel, units found unchanged by the cache's stat fields are taken in this process first; the
    others go to the workers largest first (``unit_weight``), so that the last one to finish is small.
    ``spool`` (a ``checker.spool.FindingSpool``): each unit's findings are written to it as the unit
    finishes and its output holds their ``Batch`` instead of the list. In parallel, this process meanwhile
    computes the round checks' per-unit parts (``_round_parts``) from each unit's summaries as they come; the
    outputs (a :class:`UnitOutputs`) then carry them to ``assemble``."""
    root, prof = start.root, start.profile
    unit_cache = cache if cache is not None and cache.usable else None
    out: dict[tuple[str, str], UnitOutput] = {}
    if jobs is None:
        jobs = (os.cpu_count() or 1) if len(units) >= 8 else 1
    done = 0
    place = {unit: index for index, unit in enumerate(start.units, 1)} if spool is not None else {}
    tables: dict = {}
    # in parallel: the round checks' per-unit parts (_round_parts), fed each unit's summaries as they come. What
    # comes before the workers are forked waits for them (the assessment's models are built after the fork, in
    # _prepare); what comes from the cache waits for a unit checked again (while every unit is taken from the
    # cache, the round's findings most likely are too: nothing is computed ahead for them)
    parts = _round_parts(rules, checks) if jobs > 1 and len(units) > 1 and checks is ALL_CHECKS else None
    later: list = []  # the summaries not fed yet
    forked = fresh = False

    def feed(summaries=None, checked: bool = False) -> None:
        nonlocal fresh
        if summaries is not None:
            later.append(summaries)
        fresh = fresh or checked
        if forked and fresh:
            for waited in later:
                for part in parts.values():
                    part.add(waited)
            later.clear()

    def finished(unit, output, checked: bool = True) -> None:
        nonlocal done
        findings, summaries, digest = output
        if spool is not None:
            findings = spool.add(findings, place.get(unit, len(place) + 1))
        summaries = shared(summaries, tables)
        out[unit] = (findings, summaries, digest)
        if parts is not None:
            feed(summaries, checked)
        done += 1
        if progress:
            progress(done, len(units), unit)

    if jobs > 1 and len(units) > 1 and checks is ALL_CHECKS:
        pending = list(units)
        quick: dict[tuple[str, str], str | None] = {}
        if unit_cache is not None:
            pending = []
            for unit in units:
                hit, quick[unit] = quick_hit(root, *unit, unit_cache)
                if hit is not None:
                    finished(unit, hit, checked=False)
                else:
                    pending.append(unit)
        if len(pending) > 1:
            from checker.loaders.tree import unit_weight

            weights = {unit: unit_weight(root, *unit, rules) for unit in pending}
            pending.sort(key=lambda unit: -weights[unit])  # stable: equal weights keep the tree's order
            spec = unit_cache.spec() if unit_cache is not None else None
            warm_up(rules)
            work = [(root, d, s, rules.round, prof.name, spec, quick.get((d, s), ...), spool is not None)
                    for d, s in pending]
            taken_by: dict[int, tuple] = {}

            def answered(index: int, answer) -> None:
                unit = pending[index]
                output, taken = _worker_output(unit, answer)
                checked = True  # (not taken whole from the cache)
                if isinstance(output, UnitPointer):  # load it here; checked here if the entry fails to load
                    hit = unit_hit(unit_cache, output.key)
                    checked = hit is None
                    output = hit or check_unit(root, *unit, rules, prof, checks, cache=unit_cache)
                elif output[2] is not None:  # through the cache: checked again only where its tallies say so
                    checked = taken is not None and taken[0].units_checked > 0
                if taken is not None:
                    taken_by[index] = taken
                finished(unit, output, checked)

            def meanwhile() -> None:
                nonlocal forked
                _prepare(checks)
                forked = True
                if parts is not None:
                    feed()

            prewalk.finish()  # (no thread may run while the workers are forked)
            run_workers(_unit_worker, work, min(jobs, len(pending)), answered, meanwhile=meanwhile)
            for index in sorted(taken_by):  # the cache's tallies and warnings in the units' order
                cache.stats.merge(taken_by[index][0])
                cache.warnings += taken_by[index][1]
            outputs = UnitOutputs((unit, out[unit]) for unit in units)
            if parts is not None and forked and not later:  # (every unit's summaries fed)
                outputs.precomputed = parts
            return outputs
        units = pending
    for division, submitter in units:
        finished((division, submitter), check_unit(root, division, submitter, rules, prof, checks, cache=unit_cache))
    return out


def _run_round(round_ctx: RoundCtx, rules: RoundRules, prof: Profile, checks: tuple[Check, ...], out) -> None:
    """Run the round-scope checks, appending their findings to ``out`` (a list or a ``SpoolWriter``)."""
    for step in plan_for(rules, prof, checks).steps("round"):
        _run_step(step, round_ctx, rules, out, scope_of=lambda f: f.result_id or "")


def assemble(start: RoundStart, outputs: dict[tuple[str, str], UnitOutput], rules: RoundRules,
             round_reason: str = "", checks: tuple[Check, ...] = ALL_CHECKS, cache=None,
             started: float | None = None, spool=None) -> Report:
    """The report of a round from its start and the outputs of all its units (in ``start.units`` order):
    adds the cache warnings and runs the round-scope checks. With ``spool`` (the one ``check_units``
    wrote the units' findings to) the report's findings are read back from it (``SpooledFindings``)."""
    prof, root = start.profile, start.root
    unit_cache = cache if cache is not None and cache.usable else None
    findings = list(start.findings)
    batches: list = []
    summaries: list[ResultSummary] = []
    digests: list = []
    for unit in start.units:
        unit_findings, unit_summaries, digest = outputs[unit]
        if spool is not None:
            batches.append(unit_findings)
        else:
            findings += unit_findings
        summaries += unit_summaries
        digests.append(digest)
    if spool is not None:  # in the order of the concatenation: the start's findings, the units', the rest
        batches.insert(0, spool.add(findings, 0))
        findings = []
    if cache is not None:
        findings += cache_findings(cache.warnings, rules, prof)
    # checks over the whole set of results (scope "round"), run once in this process
    round_checks = tuple(c for c in checks if c.scope == "round")
    if round_checks:
        round_ctx = RoundCtx(root=root, results=tuple(sorted(summaries, key=lambda s: s.id)),
                             precomputed=getattr(outputs, "precomputed", None))
        found: list[Finding] | None = None
        round_key = None
        if unit_cache is not None and checks is ALL_CHECKS:  # round checks are pure over the summaries
            from checker.cache import round_key as make_round_key
            round_key = make_round_key(unit_cache.salt, round_ctx.results, digests)
            hit = unit_cache.load("rounds", round_key)
            if isinstance(hit, list) and all(isinstance(f, Finding) for f in hit):
                found = hit
        if found is None and spool is not None and round_key is None:
            # straight to the spool as they are made, after the findings so far; only those that count
            # for a result are kept, to be counted into the summaries
            batches.append(spool.add(findings, len(start.units) + 1))
            findings = []
            sink = SpoolWriter(spool, len(start.units) + 2, keep=counts_as)
            _run_round(round_ctx, rules, prof, checks, sink)
            sink.flush()
            batches += sink.batches
            summaries = count_round_findings(summaries, sink.kept)
        else:
            if found is None:
                found = []
                _run_round(round_ctx, rules, prof, checks, found)
                if round_key is not None:
                    unit_cache.store("rounds", round_key, found)
            summaries = count_round_findings(summaries, found)
            findings += found
        del round_ctx
        forget()  # what the round checks remembered of the round
    # root and division findings fail the run (exit status) but leave every result's verdict alone
    if spool is not None:
        findings = spool.view([*batches, spool.add(findings, len(start.units) + 1)])
    else:
        findings.sort(key=lambda f: f.sort_key())
    return new_report(root, rules.round, round_reason, prof.name, findings, len(checks), summaries, started)


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
