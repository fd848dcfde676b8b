"""Verify the TEST07, TEST08 and TEST09 folders of one result (rounds v6.0 and later).

Called by :func:`checker.audit.compliance.verify_compliance_dir` for each of these tests the round
requires. Each check reads the submitted verification file the way the official checker does
(CP005 when it does not report a pass), re-verifies it from the data the tree holds (the accuracy
logs of the test run and of the result, the test run's detail log) under the round's rule in
``audits/TEST0x/spec.yaml``, and reports where the file disagrees with the recomputation (CP021
for the verdict, CP022 for a figure) or with the round's rule itself (CP027 TEST07 score below the
threshold, CP028 TEST08 entries that do not match, CP029 TEST09 mean output length out of bounds).
A log that is missing (CP020) or truncated (CP019) limits the recomputation and says so.
Never raises on bad input.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from checker.audit import verify_tests as vt
from checker.audit import verify_tests_v6 as v6
from checker.audit.compliance import _Ctx, _reader_findings
from checker.loaders.audit_spec import read_audit_config, resolve_audit_settings
from checker.loaders.compliance_folder import DETAIL, TEST_LOG, LogPass, TestFolder
from checker.loaders.loadgen_log import DetailLog

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.audit_spec import TestRound

_MODE_NAMES = {"0": "SubmissionRun", "1": "AccuracyOnly", "2": "PerformanceOnly", "3": "FindPeakPerformance"}
_FLAGS = ("sample_concatenate_permutation", "performance_issue_unique", "performance_issue_same", "test05")


def expected_run_settings(test: str, rule: TestRound, loadgen_model: str, scenario: str) -> dict[str, object]:
    """The ``effective_*`` values a test run's detail log shows when audit.config (and the round's
    extra run settings) were applied."""
    settings = resolve_audit_settings(read_audit_config(test), loadgen_model, scenario)
    settings.update(rule.round_settings(loadgen_model))
    out: dict[str, object] = {}
    for key, value in settings.items():
        if key == "mode":
            out["effective_test_mode"] = _MODE_NAMES.get(value, value)
        elif key == "min_duration":
            out["effective_min_duration_ms"] = int(value)
        elif key == "min_query_count":  # Offline turns it into samples per query: compare what was asked
            out["requested_min_query_count"] = int(value)
        elif key in _FLAGS:
            out[f"effective_{key}"] = bool(int(value))
        else:
            try:
                out[f"effective_{key}"] = int(value)
            except ValueError:
                out[f"effective_{key}"] = value
    return out


def _verdict_word(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def _read_verify(ctx: _Ctx, test: str, folder: TestFolder, rule: TestRound) -> tuple[str | None, str]:
    """(text of the verify file or None, its path); CP005 when it does not report a pass."""
    path = folder.path_of(rule.verify_file)
    text = folder.text(rule.verify_file)
    if text is not None and not v6.reports_pass(text, rule.pass_line):
        how = "a line equal to 'TEST PASS'" if rule.pass_line == "exact" else "'TEST PASS'"
        ctx.add("CP005", path, f"{test} {rule.verify_file} does not report {how}", expected="TEST PASS",
                actual="TEST FAIL" if "TEST FAIL" in text else "no pass line", official=True, test=test)
    return text, path


def _disagrees(ctx: _Ctx, test: str, path: str, says: bool, recomputed: bool, basis: str, reasons) -> None:
    if says != recomputed:
        ctx.add("CP021", path, f"{test} {os.path.basename(path)} says {_verdict_word(says)}, recomputed "
                f"{_verdict_word(recomputed)} ({basis})", expected=_verdict_word(recomputed),
                actual=_verdict_word(says), official=False, test=test, reasons="; ".join(reasons) or None)


def _figure_issues(ctx: _Ctx, test: str, path: str, issues, source: str) -> None:
    for issue in issues:
        ctx.add("CP022", path, f"{test} {os.path.basename(path)} {issue.name} {issue.actual}, {source} give "
                f"{issue.expected}", expected=issue.expected, actual=issue.actual, official=False, test=test)


def _log_pass(ctx: _Ctx, test: str, path: str, present: bool, log: LogPass | None, what: str) -> LogPass | None:
    """The load stage's pass over an accuracy log the recomputation needs; CP020 when it is absent."""
    if not present:
        ctx.add("CP020", path, f"cannot re-verify {test}: {what} missing; the verify file is trusted",
                official=False, test=test, hint="keep the test's accuracy log in the submission")
        return None
    return log


def _usable(ctx: _Ctx, test: str, reader: LogPass, what: str) -> bool:
    """Whether a fully read log can be used; CP019/CP020/CP024 otherwise."""
    _reader_findings(ctx, reader, test)
    if reader.error:
        return False
    if reader.truncated:
        ctx.add("CP019", reader.path, f"cannot recompute {test} from the {what}: it is truncated "
                f"({reader.entries} visible entries); the verify file's own figures are checked",
                official=False, test=test, hint="keep the untruncated accuracy logs for audits")
        return False
    return True


def check_run_log(ctx: _Ctx, test: str, folder: TestFolder, rule: TestRound, seeds: dict[str, int] | None) -> None:
    """Seeds and audit settings of the test run's detail log (the official checker reads neither)."""
    path = folder.path_of(DETAIL)
    detail = folder.detail
    if detail is None:
        ctx.add("CP020", path, f"cannot check the {test} run's seeds and settings: detail log missing",
                official=False, test=test)
        return
    if not isinstance(detail, DetailLog):
        ctx.add("CP020", path, f"cannot check {test} seeds: detail log unreadable ({detail})", official=False, test=test)
        return
    if seeds is not None:
        for mismatch in vt.compare_seeds(detail, seeds):
            ctx.add("CP009", path, f"{test} run {mismatch.key} is {mismatch.actual}, expected {mismatch.expected}",
                    expected=mismatch.expected, actual=mismatch.actual, official=False, test=test,
                    hint="run the test with the LoadGen release of the round and its built-in mlperf.conf")
    expected = dict(rule.audit_settings)
    if rule.audit_settings_from_config:
        loadgen_model = ctx.spec.loadgen_model_names.get(ctx.model, ctx.model)
        expected.update(expected_run_settings(test, rule, loadgen_model, ctx.scenario))
    for mismatch in vt.compare_settings(detail, expected):
        ctx.add("CP010", path, f"{test} run shows {mismatch.key}={mismatch.actual}; audit.config sets {mismatch.expected}",
                expected=mismatch.expected, actual=mismatch.actual, official=False, test=test,
                hint=f"apply audits/{test}/audit.config to the test run")


# --------------------------------------------------------------------------- TEST07


def check_test07(ctx: _Ctx, folder: TestFolder, rule: TestRound, seeds: dict[str, int] | None) -> None:
    test = "TEST07"
    score_rule = rule.score.get(ctx.model)
    text, path = _read_verify(ctx, test, folder, rule)
    if score_rule is None:
        ctx.add("CP020", path, f"cannot re-verify {test}: no threshold known for {ctx.model} in {ctx.spec.round}",
                official=False, test=test)
        return
    logged = None
    reader = _log_pass(ctx, test, folder.path_of(TEST_LOG), folder.has(TEST_LOG), folder.logs.get("accuracy"),
                       "accuracy log")
    if reader is not None and _usable(ctx, test, reader, "accuracy log"):
        logged = reader.value
    check_run_log(ctx, test, folder, rule, seeds)
    if text is None:
        return  # CP003 already says the verify file is missing
    figures = v6.read_verify_test07(text, score_rule)
    verdict = v6.verify_test07(figures, score_rule, logged)
    if not verdict.passed:
        actual = "no score" if verdict.score is None else f"{verdict.score:g}"
        ctx.add("CP027", path, f"{test} {score_rule.metric} {actual} is below the {ctx.spec.round} threshold "
                f"{score_rule.threshold:g}" if verdict.score is not None else
                f"{test}: no {score_rule.metric} score in the accuracy script's output",
                expected=f">= {score_rule.threshold:g}", actual=actual, official=False, test=test)
    _figure_issues(ctx, test, path, verdict.issues, f"the accuracy script's output, the log and the {ctx.spec.round} rules")
    _disagrees(ctx, test, path, v6.reports_pass(text, rule.pass_line), verdict.passed,
               f"{score_rule.metric} against {score_rule.threshold:g}", verdict.reasons)


# --------------------------------------------------------------------------- TEST08


def check_test08(ctx: _Ctx, folder: TestFolder, rule: TestRound, seeds: dict[str, int] | None) -> None:
    test = "TEST08"
    ne = rule.ne_match
    assert ne is not None
    text, path = _read_verify(ctx, test, folder, rule)
    figures = v6.read_verify_test08(text) if text is not None else None
    issues: list[v6.FigureIssue] = []
    if figures is not None:
        c = figures.counts
        if figures.tolerance_pct is not None and abs(figures.tolerance_pct - ne.tolerance_pct) > 1e-9:
            issues.append(v6.FigureIssue("tolerance (%)", ne.tolerance_pct, figures.tolerance_pct))
        if all(k in c for k in ("num_perf_log_entries", "num_matched", "num_unmatched")) and \
                c["num_matched"] + c["num_unmatched"] != c["num_perf_log_entries"]:
            issues.append(v6.FigureIssue("num_matched + num_unmatched", c["num_perf_log_entries"],
                                         c["num_matched"] + c["num_unmatched"]))
        count = ctx.record.accuracy_count
        if count is not None and "num_acc_log_entries" in c and c["num_acc_log_entries"] != count:
            issues.append(v6.FigureIssue("num_acc_log_entries", count, c["num_acc_log_entries"]))
    if folder.detail is not None:
        check_run_log(ctx, test, folder, rule, seeds)  # the official flow keeps only the verify file
    # recompute from both logs when the tree holds them whole
    verdict = None
    acc = _log_pass(ctx, test, ctx.record.result_log_path, ctx.record.result_log, folder.logs.get("reference"),
                    "the accuracy run's log")
    perf = _log_pass(ctx, test, folder.path_of(TEST_LOG), folder.has(TEST_LOG), folder.logs.get("accuracy"),
                     "the TEST08 run's accuracy log")
    if acc is not None and perf is not None:
        verdict = perf.value
        if not (_usable(ctx, test, acc, "accuracy run's log") & _usable(ctx, test, perf, "TEST08 run's log")):
            verdict = None
    if verdict is not None and figures is not None:
        for key, value in verdict.counts.items():
            if key in figures.counts and figures.counts[key] != value:
                issues.append(v6.FigureIssue(key, value, figures.counts[key]))
    if text is None:
        return
    if verdict is not None:
        passed, basis, reasons = verdict.passed, "recomputed from both accuracy logs", verdict.reasons
        counts = verdict.counts
    else:
        rule_pass = v6.test08_rule_passes(figures.counts)
        if rule_pass is None:
            ctx.add("CP020", path, f"cannot re-verify {test}: the file lacks num_matched, num_unmatched or "
                    f"num_ne_mismatch", official=False, test=test)
            _figure_issues(ctx, test, path, issues, "the logs")
            return
        passed, basis, reasons, counts = rule_pass, "the pass rule on its own counts", (), figures.counts
    if not passed:
        ctx.add("CP028", path if verdict is None else perf.path,
                f"{test}: {counts.get('num_ne_mismatch')} NE mismatch(es), {counts.get('num_matched')} matched, "
                f"{counts.get('num_unmatched')} unmatched ({basis})",
                expected="0 mismatches, >= 1 matched, 0 unmatched",
                actual=f"{counts.get('num_ne_mismatch')}/{counts.get('num_matched')}/{counts.get('num_unmatched')}",
                official=False, test=test,
                examples=[list(k) for k in verdict.mismatched[:5]] if verdict is not None and verdict.mismatched else None)
    _figure_issues(ctx, test, path, issues, "the logs")
    _disagrees(ctx, test, path, v6.reports_pass(text, rule.pass_line), passed, basis, reasons)


# --------------------------------------------------------------------------- TEST09


def check_test09(ctx: _Ctx, folder: TestFolder, rule: TestRound, seeds: dict[str, int] | None) -> None:
    test = "TEST09"
    bounds = rule.output_length.get(ctx.model)
    text, path = _read_verify(ctx, test, folder, rule)
    if bounds is None:
        ctx.add("CP020", path, f"cannot re-verify {test}: no output-length bounds known for {ctx.model} in "
                f"{ctx.spec.round}", official=False, test=test)
        return
    stats = None
    reader = _log_pass(ctx, test, folder.path_of(TEST_LOG), folder.has(TEST_LOG), folder.logs.get("accuracy"),
                       "accuracy log")
    if reader is not None and _usable(ctx, test, reader, "accuracy log"):
        stats = reader.value
    check_run_log(ctx, test, folder, rule, seeds)
    figures = v6.read_verify_test09(text) if text is not None else None
    if text is None and stats is None:
        return
    verdict = v6.verify_test09(figures, bounds, stats)
    where = reader.path if verdict.recomputed and reader is not None else path
    if not verdict.passed:
        mean = "none" if verdict.mean is None else f"{verdict.mean:.2f}"
        source = "recomputed from the accuracy log" if verdict.recomputed else "as the verify file reports it"
        ctx.add("CP029", where, f"{test} mean output length {mean} tokens ({source}) outside the "
                f"{ctx.spec.round} bounds [{bounds.min:g}, {bounds.max:g}]",
                expected=f"[{bounds.min:g}, {bounds.max:g}]", actual=mean, official=False, test=test)
    if text is None:
        return
    _figure_issues(ctx, test, path, verdict.issues, f"the accuracy log and the {ctx.spec.round} rules")
    basis = "mean recomputed from the accuracy log" if verdict.recomputed else "its own mean against the round's bounds"
    _disagrees(ctx, test, path, v6.reports_pass(text, rule.pass_line), verdict.passed, basis, verdict.reasons)
