"""Verify one result's compliance folder (TEST01/04/05/06/07/08/09) by recomputing every verdict.

Entry points: :func:`verify_compliance` judges the record the load stage made of a compliance folder
(:mod:`checker.loaders.compliance_folder`; nothing is read here), :func:`verify_compliance_dir` reads
a folder through that same loader first (the stand-alone audit commands). It checks that the tests the
round requires for the model exist with their files, recomputes each test's verdict from the raw logs
(the TEST0x performance logs against the result's own ``performance/run_1`` logs, the TEST01 accuracy
log against the result's ``accuracy/mlperf_log_accuracy.json``, the TEST06 token log), checks the
seeds and audit settings of the test runs, and reports where the submitted ``verify_*.txt``
disagrees with the recomputation. It never raises on bad input: every problem is a finding.

Each finding carries ``code`` and ``data`` with ``official`` (True when the official checker of
the round rejects the result for the same reason; False when mlpc is stricter or merely could not
recompute). Severity is left to the round file.

Codes
-----

======  ===========================================  ==============================================
code    name                                         meaning
======  ===========================================  ==============================================
CP001   compliance-dir-missing                       tests are required but compliance/<sys>/<model>/<scenario> does not exist
CP002   compliance-test-missing                      a required TEST0x directory is missing
CP003   compliance-file-missing                      a file the test must contain is missing (verify_*.txt, logs, fallback accuracy files)
CP004   compliance-file-set-mismatch                 performance/run_1 or accuracy/ of a test holds unexpected or lacks expected files
CP005   compliance-verify-reports-failure            the submitted verify_*.txt does not report a pass (the official verdict)
CP006   compliance-performance-out-of-bounds         recomputed: test-run score outside the round's bounds around the submission score
CP007   compliance-run-invalid                       the test run (or the submission run it is compared with) is not VALID
CP008   compliance-scenario-mismatch                 the test run's scenario differs from the submission run's
CP009   compliance-seed-mismatch                     the test run's effective RNG seeds are not the round's (TEST05: the alternate seeds)
CP010   compliance-audit-settings-not-applied        the test run's detail log does not show the audit.config settings
CP011   test01-output-mismatch                       TEST01: performance-mode outputs differ from accuracy-mode outputs in the first element
CP012   test01-output-mismatch-beyond-first-element  TEST01: outputs agree in the first element only (the official check misses it)
CP013   test01-no-matched-samples                    TEST01: no logged qsl_idx of the performance run is in the accuracy log
CP014   test01-accuracy-delta-exceeded               TEST01 non-deterministic fallback: accuracy delta above the allowed percentage
CP015   test06-repeated-eos                          TEST06: outputs end with repeated EOS tokens
CP016   test06-first-token-mismatch                  TEST06: the reported first token differs from the output's first token, or is missing
CP017   test06-first-token-skipped                   TEST06: first-token check "Skipped" outside Offline (accepted officially)
CP018   test06-length-mismatch                       TEST06: token_count differs from the output length
CP019   compliance-log-truncated                     a log needed to recompute is truncated (published head+tail): cannot recompute
CP020   compliance-log-unreadable                    a log needed to recompute is missing or unreadable: cannot recompute
CP021   compliance-verdict-disagrees                 the submitted verify_*.txt verdict disagrees with the recomputed verdict
CP022   compliance-verify-figures-mismatch           figures in the submitted verify_*.txt differ from those recomputed from the logs
CP023   test06-no-samples                            TEST06: the accuracy log holds no sample, nothing was verified
CP024   compliance-accuracy-entry-malformed          an accuracy-log entry is not a valid {qsl_idx, data} object
CP025   compliance-test-not-required                 a TEST0x directory exists that the round does not require for the model
CP026   test01-accuracy-log-inconsistent             TEST01: the accuracy-mode log has one qsl_idx twice with different data
CP027   test07-score-below-threshold                 TEST07: the accuracy score on the compliance dataset is below the round's threshold
CP028   test08-outputs-not-reproduced                TEST08: performance-run outputs unmatched or with a different normalised entropy
CP029   test09-mean-output-length-out-of-bounds      TEST09: the mean output length is outside the round's bounds
CP030   compliance-summary-detail-mismatch           a test run's summary log disagrees with its detail log
======  ===========================================  ==============================================
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from checker.audit import verify_tests as vt
from checker.diagnostics import Finding, Location
from checker.loaders.accuracy_entries import _parse_entry_json, _parse_entry_line  # noqa: F401  (for the tests)
from checker.loaders.compliance_folder import (  # noqa: F401  (ACC_LOG, AccuracyLogReader: for the runner)
    ACC_LOG, DETAIL, FALLBACK_FILES, PERF_DIR, SUMMARY, TEST_LOG, AccuracyLogReader, ComplianceRecord, LogPass,
    TestFolder, read_compliance, scenario_name)
from checker.loaders.loadgen_log import DetailLog
from checker.metrics.log_digest import disagreements

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.audit_spec import RoundAuditSpec, TestRound

CODES: dict[str, str] = {
    "CP001": "compliance-dir-missing",
    "CP002": "compliance-test-missing",
    "CP003": "compliance-file-missing",
    "CP004": "compliance-file-set-mismatch",
    "CP005": "compliance-verify-reports-failure",
    "CP006": "compliance-performance-out-of-bounds",
    "CP007": "compliance-run-invalid",
    "CP008": "compliance-scenario-mismatch",
    "CP009": "compliance-seed-mismatch",
    "CP010": "compliance-audit-settings-not-applied",
    "CP011": "test01-output-mismatch",
    "CP012": "test01-output-mismatch-beyond-first-element",
    "CP013": "test01-no-matched-samples",
    "CP014": "test01-accuracy-delta-exceeded",
    "CP015": "test06-repeated-eos",
    "CP016": "test06-first-token-mismatch",
    "CP017": "test06-first-token-skipped",
    "CP018": "test06-length-mismatch",
    "CP019": "compliance-log-truncated",
    "CP020": "compliance-log-unreadable",
    "CP021": "compliance-verdict-disagrees",
    "CP022": "compliance-verify-figures-mismatch",
    "CP023": "test06-no-samples",
    "CP024": "compliance-accuracy-entry-malformed",
    "CP025": "compliance-test-not-required",
    "CP026": "test01-accuracy-log-inconsistent",
    "CP027": "test07-score-below-threshold",
    "CP028": "test08-outputs-not-reproduced",
    "CP029": "test09-mean-output-length-out-of-bounds",
    "CP030": "compliance-summary-detail-mismatch",
}

FIGURE_RTOL = 5e-4


# --------------------------------------------------------------------------- helpers


@dataclass
class _Ctx:
    """What the verification of one result's compliance folder reads and collects."""

    record: ComplianceRecord
    model: str  # mlperf model name
    model_dir: str
    scenario: str
    spec: RoundAuditSpec
    run_scenario: str  # the scenario the runs were made in: the source scenario of an inferred result
    rel_root: str
    findings: list[Finding] = field(default_factory=list)
    read: dict = field(default_factory=dict)  # id(TEST01 folder) -> (folder, its verify file's reading)

    @cached_property
    def plain_root(self) -> bool:
        return _plain(self.rel_root)

    @property
    def compliance_dir(self) -> str:
        return self.record.path

    @property
    def result_dir(self) -> str:
        return self.record.result_path

    def rel(self, path: str) -> str:
        root = self.rel_root
        if (os.sep == "/" and path.startswith(root) and path[len(root):len(root) + 1] == "/" and self.plain_root
                and _plain(path)):
            return path[len(root) + 1:]  # what relpath gives for a normalised absolute path below the root
        try:
            rel = os.path.relpath(path, self.rel_root)
        except ValueError:
            rel = path
        return rel.replace(os.sep, "/")

    def add(self, code: str, path: str, message: str, *, expected=None, actual=None, hint=None,
            official: bool, **data) -> None:
        payload = {"test": data.pop("test", None), "official": official, **data}
        where = self.rel(path)
        self.findings.append(
            Finding(
                message=f"{where}: {message}",
                location=Location(where),
                expected=None if expected is None else str(expected),
                actual=None if actual is None else str(actual),
                hint=hint,
                code=code,
                data=tuple(sorted((k, v) for k, v in payload.items() if v is not None)),
            )
        )


def _plain(path: str) -> bool:
    """Whether ``path`` is absolute and already normalised (``os.path.normpath`` leaves it alone): no empty,
    ``.`` or ``..`` part and no trailing separator."""
    return (path.startswith("/") and not path.startswith("//") and "//" not in path and "/./" not in path
            and "/../" not in path and not path.endswith(("/", "/.", "/..")))


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= FIGURE_RTOL * max(abs(a), abs(b), 1e-12)


# --------------------------------------------------------------------------- entry point


def verify_compliance_dir(
    compliance_dir: str,
    result_dir: str,
    model: str,
    scenario: str,
    round_spec: RoundAuditSpec,
    rel_root: str,
    *,
    expected_seeds: dict[str, int] | None = None,
    expected_test05_seeds: dict[str, int] | None = None,
    only_tests: tuple[str, ...] | None = None,
    run_scenario: str | None = None,
    required_tests: tuple[str, ...] | None = None,
    reference_summary: dict | None = None,
) -> list[Finding]:
    """Findings (coded CP001..CP030) for the compliance folder of one result, read from the disk by
    :func:`checker.loaders.compliance_folder.read_compliance` and judged by :func:`verify_compliance`.

    ``compliance_dir`` is ``compliance/<sys>/<model_dir>/<scenario_dir>``; ``result_dir`` is
    ``results/<sys>/<model_dir>/<scenario_dir>``; ``model`` is the model directory name (aliases
    such as ``resnet50`` are mapped by the round spec); ``scenario`` may be lower-case.
    From v6.0 on, the compliance folder is the result folder itself (it holds the TEST0x folders).
    ``reference_summary`` is the content of ``result_dir``'s ``performance/run_1/mlperf_log_summary.txt``
    when the caller already parsed it. The other arguments are :func:`verify_compliance`'s.
    """
    record = read_compliance(compliance_dir, result_dir, round_spec, model, scenario,
                             reference_summary=reference_summary)
    return verify_compliance(record, model, scenario, round_spec, rel_root, expected_seeds=expected_seeds,
                             expected_test05_seeds=expected_test05_seeds, only_tests=only_tests,
                             run_scenario=run_scenario, required_tests=required_tests)


def verify_compliance(
    record: ComplianceRecord,
    model: str,
    scenario: str,
    round_spec: RoundAuditSpec,
    rel_root: str,
    *,
    expected_seeds: dict[str, int] | None = None,
    expected_test05_seeds: dict[str, int] | None = None,
    only_tests: tuple[str, ...] | None = None,
    run_scenario: str | None = None,
    required_tests: tuple[str, ...] | None = None,
) -> list[Finding]:
    """Findings (coded CP001..CP030) for the compliance folder of one result, from its ``record`` (the load
    stage read it; nothing is read here). Paths in the findings are relative to ``rel_root``.

    TEST07/08/09 are verified by :mod:`checker.audit.compliance_v6`.
    ``expected_seeds`` / ``expected_test05_seeds`` override the round's seeds (the live runner
    passes the seeds of the installed LoadGen). ``only_tests`` verifies exactly those tests,
    whatever the model requires (the live runner). ``run_scenario`` is the scenario the runs were
    made in when it differs from the folder's (an inferred result: its compliance folder is a copy
    of the source scenario's, so the scores are compared as that scenario's, as the official
    checker does). ``required_tests`` is the model's test list from
    the round's rules (default: the models lists of the audit specs). Never raises on bad input.
    """
    ctx = _Ctx(
        record=record,
        model=round_spec.mlperf_model(model),
        model_dir=model,
        scenario=scenario_name(scenario),
        spec=round_spec,
        run_scenario=scenario_name(run_scenario or scenario),
        rel_root=rel_root,
    )
    seeds = expected_seeds if expected_seeds is not None else round_spec.info.seeds.as_dict()
    if expected_test05_seeds is not None:
        seeds05 = expected_test05_seeds
    else:
        seeds05 = round_spec.info.test05_seeds.as_dict() if round_spec.info.test05_seeds else None
    try:
        if record.failure is not None:
            raise record.failure
        _verify(ctx, seeds, seeds05, only_tests, required_tests)
    except Exception as exc:  # pragma: no cover - last-resort isolation: never raise on input
        ctx.add("CP020", record.path, f"verification stopped on unexpected input: {type(exc).__name__}: {exc}",
                official=False)
    return sorted(ctx.findings, key=lambda f: (f.location.path, f.code, f.message))


def _verify(ctx: _Ctx, seeds: dict[str, int], seeds05: dict[str, int] | None,
            only_tests: tuple[str, ...] | None = None, required_tests: tuple[str, ...] | None = None) -> None:
    if only_tests is not None:
        required = [t for t in only_tests if t in ctx.spec.tests]
    elif required_tests is not None:
        required = sorted(t for t in required_tests if t in ctx.spec.tests)
        for test in sorted(set(required_tests) - set(ctx.spec.tests)):
            ctx.add("CP020", ctx.compliance_dir, f"{test} is required for {ctx.model} but mlpc has no "
                    f"{ctx.spec.round} definition of it: not verified", official=False, test=test)
    else:
        required = ctx.spec.tests_for(ctx.model_dir)
    for name in ctx.record.tests:
        if name not in required and only_tests is None:
            ctx.add("CP025", os.path.join(ctx.compliance_dir, name),
                    f"{name} is not required for {ctx.model} in {ctx.spec.round}",
                    expected=", ".join(required) or "no test", actual=name, official=False, test=name)
    if not required:
        return
    if not ctx.record.exists:
        ctx.add("CP001", ctx.compliance_dir, f"no compliance directory; {ctx.model} requires {', '.join(required)}",
                expected=", ".join(required), actual="missing", official=True,
                hint="run the compliance tests and copy their output into compliance/<sys>/<model>/<scenario>/")
        return
    for test in required:
        folder = ctx.record.folders.get(test)
        if folder is None:
            ctx.add("CP002", os.path.join(ctx.compliance_dir, test),
                    f"{test} is required for {ctx.model} in {ctx.spec.round} but missing",
                    expected=test, actual="missing", official=True, test=test)
            continue
        rule = ctx.spec.tests[test]
        _check_files(ctx, test, folder, rule)
        if rule.performance is not None:
            _check_performance(ctx, test, folder, rule, seeds05 if rule.performance.seeds == "test05" else seeds)
        if test == "TEST01":
            _check_test01_accuracy(ctx, folder, rule)
        if test == "TEST06":
            _check_test06(ctx, folder, rule)
        if test in ("TEST07", "TEST08", "TEST09"):
            from checker.audit import compliance_v6

            if test == "TEST07":
                compliance_v6.check_test07(ctx, folder, rule, seeds)
            elif test == "TEST08":
                compliance_v6.check_test08(ctx, folder, rule, seeds)
            else:
                compliance_v6.check_test09(ctx, folder, rule, seeds)


def _test01_submitted(ctx: _Ctx, folder: TestFolder, rule: TestRound) -> vt.SubmittedVerdict | None:
    """What TEST01's verify_accuracy.txt says (None without one); read once for the file check and the
    output comparison of the same folder."""
    known = ctx.read.get(id(folder))
    if known is not None and known[0] is folder:
        return known[1]
    text = folder.text("verify_accuracy.txt")
    submitted = vt.read_verify_accuracy_test01(text, rule.pass_line) if text is not None else None
    ctx.read[id(folder)] = (folder, submitted)
    return submitted


def _check_files(ctx: _Ctx, test: str, folder: TestFolder, rule: TestRound) -> None:
    for rel in () if folder.files.issuperset(rule.files.required) else rule.files.required:
        if not folder.has(rel):
            ctx.add("CP003", folder.path_of(rel), f"{test} must contain {rel}", expected=rel, actual="missing",
                    official=True, test=test)
    deterministic = True
    if test == "TEST01":
        submitted = _test01_submitted(ctx, folder, rule)
        deterministic = submitted is None or submitted.passed
    for rel_dir, fileset in rule.files.exact_dirs.items():
        if fileset.only_if_not_deterministic and deterministic:
            continue  # v6.0 J7: looked at only after a failed deterministic check
        if rel_dir not in folder.listings:
            if fileset.only_if_not_deterministic:
                ctx.add("CP003", folder.path_of(rel_dir), f"{test} deterministic check failed, so {rel_dir}/ is "
                        f"required", expected=f"{rel_dir}/", actual="missing", official=True, test=test)
            continue  # the missing files were reported above
        listed = folder.listings[rel_dir]
        if listed is None:
            continue
        needed, allowed = _file_set(fileset, deterministic)
        if needed.issubset(listed) and allowed.issuperset(listed):
            continue  # (the usual folder: what follows finds nothing)
        names = set(listed)
        missing = sorted(needed - names)
        extra = sorted(names - allowed)
        if missing or extra:
            ctx.add("CP004", folder.path_of(rel_dir), f"file set differs: missing {missing or 'none'}, unexpected {extra or 'none'}",
                    expected=", ".join(sorted(needed)), actual=", ".join(sorted(names)), official=True, test=test)


_FILE_SETS: dict[tuple[int, bool], tuple[object, frozenset[str], frozenset[str]]] = {}


def _file_set(fileset, deterministic: bool) -> tuple[frozenset[str], frozenset[str]]:
    """(the files a folder of ``fileset`` must hold, those it may hold), made once per file set."""
    known = _FILE_SETS.get((id(fileset), deterministic))
    if known is None or known[0] is not fileset:
        needed = set(fileset.required) | (set() if deterministic else set(fileset.required_if_not_deterministic))
        allowed = needed | set(fileset.optional) | set(fileset.required_if_not_deterministic)
        if len(_FILE_SETS) >= 64:
            _FILE_SETS.clear()
        known = _FILE_SETS[(id(fileset), deterministic)] = (fileset, frozenset(needed), frozenset(allowed))
    return known[1], known[2]


def _summary(ctx: _Ctx, where, test: str, parsed: dict | str) -> dict | None:
    """The summary log at ``where()`` as the loader parsed it; CP020 when it was unreadable (``parsed`` is why)."""
    if isinstance(parsed, str):
        ctx.add("CP020", where(), f"cannot recompute {test}: summary log unreadable ({parsed})", official=False,
                test=test)
        return None
    return parsed


def _check_performance(ctx: _Ctx, test: str, folder: TestFolder, rule: TestRound,
                       seeds: dict[str, int] | None) -> None:
    perf = rule.performance
    assert perf is not None

    # the paths findings name, made only for a finding
    def ref_path() -> str:
        return os.path.join(ctx.result_dir, PERF_DIR, "mlperf_log_summary.txt")

    def test_path() -> str:
        return folder.path_of(SUMMARY)

    def verify_path() -> str:
        return folder.path_of("verify_performance.txt")

    def detail_path() -> str:
        return folder.path_of(DETAIL)

    submitted_text = folder.text("verify_performance.txt")
    submitted = vt.read_verify_performance(submitted_text) if submitted_text is not None else None
    if submitted is not None and not submitted.passed:
        ctx.add("CP005", verify_path(), f"{test} verify_performance.txt does not report TEST PASS",
                expected="TEST PASS", actual="no TEST PASS line", official=True, test=test)

    verdict = None
    reference = ctx.record.reference_summary
    ref = _summary(ctx, ref_path, test, reference) if reference is not None else None
    if reference is None:
        ctx.add("CP020", ref_path(), f"cannot recompute {test}: the submission's performance summary is missing",
                official=False, test=test)
    test_summary = _summary(ctx, test_path, test, folder.summary) if folder.summary is not None else None
    if ref is not None and test_summary is not None:
        verdict = vt.verify_performance(test, perf, ref, test_summary, ctx.run_scenario)
        if verdict.reasons:
            _perf_findings(ctx, test, test_path(), verdict)
        if submitted is not None:
            if submitted.passed != verdict.passed:
                why = "; ".join(verdict.reasons)
                ctx.add("CP021", verify_path(),
                        f"{test} verify_performance.txt says {'PASS' if submitted.passed else 'FAIL'}, but the round's "
                        f"criterion applied to the logs gives {'PASS' if verdict.passed else 'FAIL'}"
                        + (f": {why}" if why else ""),
                        expected="PASS" if verdict.passed else "FAIL",
                        actual="PASS" if submitted.passed else "FAIL", official=False, test=test,
                        reasons="; ".join(verdict.reasons) or None)
            for key, value in (("reference_score", verdict.compared_reference), ("test_score", verdict.compared_test)):
                reported = submitted.figures.get(key)
                if reported is not None and value is not None and not _close(reported, value):
                    ctx.add("CP022", verify_path(),
                            f"{test} verify_performance.txt {key.replace('_', ' ')} {reported:g} "
                            f"differs from the logs ({value:g})",
                            expected=f"{value:g}", actual=f"{reported:g}", official=False, test=test)
    # seeds and audit settings of the test run
    detail = folder.detail
    if detail is None:
        return
    if not isinstance(detail, DetailLog):
        ctx.add("CP020", detail_path(), f"cannot check {test} seeds: detail log unreadable ({detail})",
                official=False, test=test)
        return
    # the verdict above was recomputed from the summary: it stands only if the summary is the detail's digest
    for item in disagreements(test_summary, detail) if test_summary is not None else ():
        if not item.setting:
            ctx.add("CP030", test_path(), f"{test} summary says {item.label} = {item.summary}, its detail log says "
                    f"{item.key} = {item.detail}", expected=f"{item.detail} (the detail log)", actual=item.summary,
                    official=False, test=test)
    if seeds is not None:
        for mismatch in vt.compare_seeds(detail, seeds):
            ctx.add("CP009", detail_path(), f"{test} run {mismatch.key} is {mismatch.actual}, expected {mismatch.expected}",
                    expected=mismatch.expected, actual=mismatch.actual, official=True, test=test,
                    hint="run the test with the LoadGen release of the round and its built-in mlperf.conf")
    for mismatch in vt.compare_settings(detail, rule.audit_settings):
        ctx.add("CP010", detail_path(),
                f"{test} run shows {mismatch.key}={mismatch.actual}; audit.config sets {mismatch.expected}",
                expected=mismatch.expected, actual=mismatch.actual, official=False, test=test,
                hint=f"copy audits/{test}/audit.config into the working directory of the test run")


def _perf_findings(ctx: _Ctx, test: str, test_path: str, verdict: vt.PerfVerdict) -> None:
    figures = dict(reference=verdict.compared_reference, test_score=verdict.compared_test,
                   threshold_pct=verdict.threshold_pct)
    for reason in verdict.reasons:
        if "must be VALID" in reason:
            ctx.add("CP007", test_path, f"{test}: {reason}", expected="VALID", actual=reason.split(" is ")[-1].split(" (")[0],
                    official=True, test=test)
        elif reason.startswith("scenario differs"):
            ctx.add("CP008", test_path, f"{test}: {reason}", expected=ctx.run_scenario, actual=reason, official=True, test=test)
        elif "missing or not positive" in reason or reason.startswith("no score"):
            ctx.add("CP020", test_path, f"cannot recompute {test}: {reason}", official=False, test=test)
        else:
            bounds = []
            if verdict.lower_bound is not None:
                bounds.append(f"> {verdict.lower_bound:.6g}")
            if verdict.upper_bound is not None:
                bounds.append(f"< {verdict.upper_bound:.6g}")
            ctx.add("CP006", test_path, f"{test}: {reason}", expected=" and ".join(bounds),
                    actual=f"{verdict.compared_test:.6g}", official=True, test=test, **figures)


def _check_test01_accuracy(ctx: _Ctx, folder: TestFolder, rule: TestRound) -> None:
    test = "TEST01"
    verify_path = folder.path_of("verify_accuracy.txt")
    submitted = _test01_submitted(ctx, folder, rule)
    acc_rule = rule.accuracy
    # non-deterministic fallback, as the official checker applies it
    if submitted is not None and not submitted.passed and acc_rule is not None:
        base_path, comp_path = (folder.path_of(rel) for rel in FALLBACK_FILES)
        base, comp = (folder.text(rel) for rel in FALLBACK_FILES)
        if base is None or comp is None:
            for path, content in ((base_path, base), (comp_path, comp)):
                if content is None:
                    ctx.add("CP003", path, "deterministic check failed, so this fallback file is required",
                            expected=os.path.basename(path), actual="missing", official=True, test=test)
        else:
            fb = vt.verify_test01_fallback(ctx.model, base, comp, acc_rule)
            for row in fb.metrics:
                if row.passed and row.official_passed:
                    continue
                delta = "missing" if row.delta_pct is None else f"{row.delta_pct:.4f}%"
                ctx.add("CP014", comp_path,
                        f"TEST01 fallback {row.metric}: delta {delta} vs allowed {row.allowed_pct:g}% "
                        f"(official checker allows {row.official_allowed_pct:g}%)",
                        expected=f"<= {row.allowed_pct:g}%", actual=delta, official=not row.official_passed,
                        test=test, strict_failed=not row.passed, metric=row.metric)
    # recompute the deterministic comparison
    acc_path = ctx.record.result_log_path
    perf_path = folder.path_of(TEST_LOG)
    if not ctx.record.result_log or not folder.has(TEST_LOG):
        missing = acc_path if not ctx.record.result_log else perf_path
        ctx.add("CP020", missing, "cannot recompute TEST01 outputs: accuracy log missing", official=False, test=test)
        return
    acc_reader, perf_reader = folder.logs["reference"], folder.logs["accuracy"]
    verdict = vt.verify_test01_keys(acc_reader.value, perf_reader.value, element_bytes=1,
                                    min_matched=acc_rule.min_matched if acc_rule else 1)
    for reader in (acc_reader, perf_reader):
        _reader_findings(ctx, reader, test)
    truncated = acc_reader.truncated or perf_reader.truncated
    if acc_reader.error or perf_reader.error:
        return
    if truncated:
        which = [ctx.rel(r.path) for r in (acc_reader, perf_reader) if r.truncated]
        ctx.add("CP019", perf_path if perf_reader.truncated else acc_path,
                f"cannot recompute TEST01 outputs: truncated accuracy log(s) {', '.join(which)}; "
                f"{verdict.num_perf_log_qsl_idx_match} visible entries compared",
                official=False, test=test, matched=verdict.num_perf_log_qsl_idx_match,
                hint="keep the untruncated accuracy logs for audits")
    figures = dict(matched=verdict.num_perf_log_qsl_idx_match, compared=verdict.num_perf_log_entries)
    if verdict.num_perf_log_data_mismatch:
        ctx.add("CP011", perf_path,
                f"TEST01: {verdict.num_perf_log_data_mismatch} of {verdict.num_perf_log_qsl_idx_match} outputs "
                f"differ from the accuracy run in the first element",
                expected="0 mismatches", actual=verdict.num_perf_log_data_mismatch, official=True, test=test,
                partial=truncated or None, examples=list(verdict.mismatched_qsl_idxs[:5]), **figures)
    if verdict.num_perf_log_full_mismatch > verdict.num_perf_log_data_mismatch:
        extra = verdict.num_perf_log_full_mismatch - verdict.num_perf_log_data_mismatch
        ctx.add("CP012", perf_path,
                f"TEST01: {extra} output(s) match the accuracy run in the first element only",
                expected="identical outputs", actual=f"{extra} differ", official=False, test=test,
                partial=truncated or None, examples=list(verdict.mismatched_qsl_idxs[:5]), **figures)
    if verdict.num_acc_log_data_mismatch:
        ctx.add("CP026", acc_path, f"accuracy log has {verdict.num_acc_log_data_mismatch} qsl_idx logged twice with "
                f"different data", expected="0", actual=verdict.num_acc_log_data_mismatch, official=False, test=test)
    if truncated:
        return
    if verdict.num_perf_log_qsl_idx_match == 0:
        ctx.add("CP013", perf_path, "TEST01: no logged qsl_idx of the performance run is in the accuracy log",
                expected=">= 1 match", actual=0, official=True, test=test)
    if submitted is not None:
        if submitted.passed != verdict.official_passed:
            ctx.add("CP021", verify_path,
                    f"TEST01 verify_accuracy.txt says {'PASS' if submitted.passed else 'FAIL'}, but the round's "
                    f"criterion applied to the logs gives {'PASS' if verdict.official_passed else 'FAIL'}: "
                    f"{verdict.num_perf_log_data_mismatch} of {verdict.num_perf_log_qsl_idx_match} matched outputs "
                    f"differ from the accuracy run in their first element (the official comparison)",
                    expected="PASS" if verdict.official_passed else "FAIL",
                    actual="PASS" if submitted.passed else "FAIL", official=False, test=test)
        recomputed = {
            "num_perf_log_entries": verdict.num_perf_log_entries,
            "num_perf_log_qsl_idx_match": verdict.num_perf_log_qsl_idx_match,
            "num_perf_log_data_mismatch": verdict.num_perf_log_data_mismatch,
        }
        for key, value in recomputed.items():
            if key in submitted.figures and submitted.figures[key] != value:
                ctx.add("CP022", verify_path, f"TEST01 verify_accuracy.txt {key} = {submitted.figures[key]}, logs give {value}",
                        expected=value, actual=submitted.figures[key], official=False, test=test)


def _reader_findings(ctx: _Ctx, reader: LogPass, test: str) -> None:
    if reader.error:
        ctx.add("CP020", reader.path, f"cannot recompute {test}: accuracy log {reader.error}", official=False, test=test)
    for line, problem in reader.malformed[:5]:
        ctx.findings.append(
            Finding(
                message=f"{ctx.rel(reader.path)}:{line}: malformed accuracy-log entry: {problem}",
                location=Location(ctx.rel(reader.path), line=line),
                expected='{"seq_id": N, "qsl_idx": N, "data": "<hex>"}',
                actual=problem,
                code="CP024",
                data=(("count", len(reader.malformed)), ("official", False), ("test", test)),
            )
        )


def _check_test06(ctx: _Ctx, folder: TestFolder, rule: TestRound) -> None:
    test = "TEST06"
    llm = rule.llm_output
    assert llm is not None
    verify_path = folder.path_of("verify_accuracy.txt")
    text = folder.text("verify_accuracy.txt")
    submitted = None
    if text is not None:
        submitted, strict_ok = vt.read_verify_test06(text, ctx.scenario, llm)
        if not submitted.passed:
            f = submitted.figures
            ctx.add("CP005", verify_path,
                    f"TEST06 accuracy check failed: first_token {f.get('first_token')}, eos {f.get('eos')}, "
                    f"length {f.get('length')}", expected="True/True/True", actual=str(f), official=True, test=test)
        elif not strict_ok:
            ctx.add("CP017", verify_path, f"TEST06 first-token check was skipped in {ctx.scenario}",
                    expected="First token check pass: True", actual="Skipped", official=False, test=test,
                    hint="run run_verification.py with the scenario (-s) of the result")
    log_path = folder.path_of(TEST_LOG)
    if not folder.has(TEST_LOG):
        ctx.add("CP020", log_path, "cannot recompute TEST06: accuracy log missing", official=False, test=test)
        return
    eos = llm.eos_token_id.get(ctx.model)
    if eos is None:
        ctx.add("CP020", log_path, f"cannot recompute TEST06: no EOS token id known for {ctx.model}",
                official=False, test=test)
        return
    reader = folder.logs["accuracy"]
    verdict = reader.value
    _reader_findings(ctx, reader, test)
    if reader.error:
        return
    if reader.truncated:
        ctx.add("CP019", log_path, f"cannot recompute TEST06: accuracy log truncated ({reader.entries} visible samples)",
                official=False, test=test)
        return
    n = verdict.num_samples
    if n == 0:
        ctx.add("CP023", log_path, "TEST06 accuracy log holds no sample: nothing was verified",
                expected=">= 1 sample", actual=0, official=False, test=test)
    if verdict.eos_violations:
        ctx.add("CP015", log_path, f"TEST06: {verdict.num_eos_violations} sample(s) end with repeated EOS "
                f"({eos}) tokens, e.g. qsl_idx {verdict.eos_violations[0]}",
                expected="at most one trailing EOS", actual=verdict.num_eos_violations,
                official=not verdict.eos_official, test=test, examples=list(verdict.eos_violations[:5]))
    if verdict.first_token_strict == "False":
        ctx.add("CP016", log_path, f"TEST06: first token reported differs from the output or is missing "
                f"({verdict.num_first_token_violations} mismatching sample(s))",
                expected="token_data == data[0]", actual="mismatch",
                official=verdict.first_token_official == "False", test=test,
                examples=list(verdict.first_token_violations[:5]))
    if not verdict.length_ok:
        ctx.add("CP018", log_path, f"TEST06: {verdict.num_length_violations} sample(s) with token_count "
                f"different from the output length ({verdict.element_bytes}-byte tokens)",
                expected="token_count == len(data)", actual=verdict.num_length_violations, official=True, test=test,
                examples=list(verdict.length_violations[:5]))
    if submitted is not None:
        recomputed = {"first_token": verdict.first_token_official, "eos": str(verdict.eos_official),
                      "length": str(verdict.length_ok)}
        diffs = {k: (submitted.figures.get(k), v) for k, v in recomputed.items() if submitted.figures.get(k) != v}
        if diffs:
            ctx.add("CP021", verify_path,
                    "TEST06 verify_accuracy.txt disagrees with the recomputation: "
                    + ", ".join(f"{k} {a} vs {b}" for k, (a, b) in sorted(diffs.items())),
                    expected=str({k: b for k, (a, b) in diffs.items()}),
                    actual=str({k: a for k, (a, b) in diffs.items()}), official=False, test=test)
