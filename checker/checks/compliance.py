"""Compliance-test checks (CP): TEST01/04/05/06/07/08/09 folders verified by recomputing from the raw logs.

The verification itself lives in checker/audit/compliance.py (one pass per result, memoised here), over
the record the load stage made of the result's compliance folder (checker/loaders/compliance_folder.py);
this module turns each of its finding codes into a registered check with its own documentation, so
that codes, fixtures and docs stay one-to-one. Official references: docs/official-checker.md
section J. Only closed and network results are verified (open needs no compliance tests).
"""

from __future__ import annotations


from checker.audit.compliance import CODES, verify_compliance
from checker.checks.base import Check
from checker.checks.memo import per_context
from checker.loaders.audit_spec import load_round_spec


# code -> (summary, what it checks, why, failing example, how to fix, stricter than official)
DOCS: dict[str, tuple[str, str, str, str, str, bool]] = {
    "CP001": ("A result that needs compliance tests has no compliance folder.",
              "compliance/<system>/<model>/<scenario>/ exists when the round requires tests for the model.",
              "official checker J1; rules section 5 (audit tests).", "resnet50 Offline without compliance/.",
              "run the required TEST0x and copy their outputs.", False),
    "CP002": ("A required TEST0x folder is missing.", "each test the round requires for the model has its folder.",
              "official checker J2.", "resnet50 v4.1 without TEST05/.", "run the missing test.", False),
    "CP003": ("A file a compliance test must contain is missing.",
              "verify_*.txt, the test run's LoadGen logs and (TEST01 fallback) baseline/compliance accuracy files.",
              "official checker J4-J7.", "TEST04/ without verify_performance.txt.", "copy the test's full output.", False),
    "CP004": ("A compliance test folder holds unexpected files or lacks expected ones.",
              "the exact file sets of TEST0x/performance/run_1 and TEST01/accuracy.", "official checker J5/J7.",
              "TEST04/performance/run_1/run.log.", "keep exactly the files the test writes.", False),
    "CP005": ("The submitted verify file does not report TEST PASS.",
              "verify_performance.txt / verify_accuracy.txt contain the pass line (TEST06: the three check lines).",
              "official checker J4/J6/J9: this is the official verdict.", "verify_performance.txt says TEST FAIL.",
              "fix the cause and rerun the test.", False),
    "CP006": ("Recomputed from the logs, the test run's score is out of bounds.",
              "the TEST04/TEST05/TEST01 performance score compared with the submission's, with the round's thresholds.",
              "compliance scripts verify_performance.py; rules section 5.", "TEST04 run 30% faster than the submission (caching).",
              "remove the behaviour the test detects and rerun.", False),
    "CP007": ("A compliance test run, or the run it is compared with, is not VALID.",
              "result_validity of the test run and of the submission run.", "official checker J3 (full performance check).",
              "TEST04 run shorter than the minimum duration.", "rerun the test with the official settings.", False),
    "CP008": ("The compliance test ran a different scenario than the submission.",
              "the effective scenario of the test run equals the submission run's.", "compliance scripts: scenarios must match.",
              "an Offline TEST04 log under Server/.", "run the test in the result's scenario.", False),
    "CP009": ("A compliance test run used the wrong random seeds.",
              "the effective seeds of the test run: the round's seeds, or the alternate TEST05 seeds.",
              "official checker J3/G7 (TEST05 seeds for TEST05); the TEST07/08/09 runs (v6.0+) too, which the "
              "official checker never reads (a published TEST07 log with all seeds 0 passed).",
              "TEST05 run with the official seeds.",
              "run the test with the round's audit.config.", False),
    "CP010": ("A compliance test run does not show the audit.config settings.",
              "the test run's detail log carries the settings the test's audit.config sets.",
              "without them the run is not the audit test.", "TEST04 run without performance_issue_same.",
              "place audit.config in the working directory (or apply it) and rerun.", True),
    "CP011": ("TEST01: performance-mode outputs differ from accuracy-mode outputs.",
              "for each logged qsl_idx, the first output element in both logs.", "TEST01 verify_accuracy.py (official first-element rule).",
              "a SUT that answers differently in performance mode.", "make both modes run the same computation.", False),
    "CP012": ("TEST01: outputs agree only in their first element.",
              "the whole output arrays of matching qsl_idx (the official script compares only data[0]).",
              "rules: outputs must not depend on the mode; stricter than the official check.", "outputs equal in byte 0 only.",
              "make both modes produce identical outputs.", True),
    "CP013": ("TEST01: no logged performance-mode sample matches the accuracy log.",
              "at least one qsl_idx of the test's accuracy log is in the accuracy run's log.", "TEST01 verify_accuracy.py.",
              "a TEST01 log sampling no common index.", "rerun TEST01 with the sampling target of audit.config.", False),
    "CP014": ("TEST01 fallback: the accuracy delta is above the allowed percentage.",
              "|1 - baseline/compliance| x 100 per metric against 1% (0.1% for 99.9 models, SDXL own deltas).",
              "official checker J8.", "baseline 76.0, compliance 74.0 for resnet.", "remove the mode-dependent behaviour.", False),
    "CP015": ("TEST06: outputs end with repeated end-of-sequence tokens.",
              "no output ends in two or more EOS tokens (except an output of exactly two tokens).", "TEST06 run_verification.py.",
              "a generation padded with EOS.", "stop generation at the first EOS.", False),
    "CP016": ("TEST06: the reported first token differs from the output's first token.",
              "the separately logged first token equals the first output token.", "TEST06 run_verification.py.",
              "first token reported before sampling was final.", "report the token actually emitted.", False),
    "CP017": ("TEST06: the first-token check was skipped outside Offline.",
              "'First token check pass: Skipped' only for Offline.", "token streaming must be verified in Server; "
              "the official checker accepts Skipped anywhere (stricter).", "Server TEST06 with Skipped.",
              "log first tokens in Server runs.", True),
    "CP018": ("TEST06: the token count differs from the output length.", "token_count equals the decoded output length.",
              "TEST06 run_verification.py.", "token_count 120 for 118 tokens.", "report the real token count.", False),
    "CP019": ("A log needed to recompute a compliance verdict is truncated.",
              "whether the published (head+tail) accuracy log can be compared; the verify file is then trusted.",
              "published accuracy logs are truncated by the official tools.", "TEST01 on a published tree.",
              "nothing to fix; keep the untruncated logs for audits.", True),
    "CP020": ("A log needed to recompute a compliance verdict is missing or unreadable.",
              "every log the recomputation needs can be read.", "without it the verdict cannot be recomputed.",
              "a binary mlperf_log_detail.txt in TEST04.", "copy the logs exactly as LoadGen wrote them.", True),
    "CP021": ("The submitted verify file disagrees with the recomputed verdict.",
              "the verdict in verify_*.txt equals the verdict recomputed from the logs.",
              "a verify file that says PASS for a failing run is not evidence of compliance.",
              "verify_performance.txt TEST PASS for a run 30% faster.", "rerun the verification script on the real logs.", True),
    "CP022": ("Figures in the submitted verify file differ from those in the logs.",
              "the reference and test scores printed in verify_performance.txt match the logs; TEST07/08/09: the "
              "scores, counts, means and thresholds printed match the logs and the round's rules.",
              "the verify file must describe the submitted logs.", "a verify file from another run.",
              "rerun the verification on the submitted logs.", True),
    "CP023": ("TEST06: the accuracy log holds no sample.", "the TEST06 accuracy log has at least one entry.",
              "an empty log verifies nothing; the official checker only reads verify_accuracy.txt.",
              "TEST06/accuracy/mlperf_log_accuracy.json is []", "rerun TEST06 with accuracy logging.", True),
    "CP024": ("An accuracy-log entry of a compliance test is malformed.", "each entry is a {seq_id, qsl_idx, data} object.",
              "malformed entries cannot be compared.", 'an entry with "data": 5.', "copy the log as LoadGen wrote it.", True),
    "CP025": ("A compliance test folder exists that the round does not require.",
              "TEST0x folders beyond the model's required tests.", "extra tests are ignored by the official checker.",
              "TEST05 in a v5.0 submission.", "remove the folder or keep it knowingly.", True),
    "CP027": ("TEST07: the accuracy score on the compliance dataset is below the round's threshold.",
              "the score the accuracy script printed in TEST07/verify_accuracy.txt (the round's score pattern, first "
              "match) against the round's threshold (gpt-oss-120b: exact_match >= 60.698 over 990 GPQA samples).",
              "rounds-v6.md 5.1 (TEST07 run_verification.py passes iff score >= threshold); the official checker "
              "only reads 'TEST PASS', so a verify file that says PASS under a lower threshold passes there.",
              "'exact_match': 55.0 with 'Accuracy threshold: 50' and TEST PASS.",
              "make the SUT accurate on every sample, not only on the accuracy run's, and rerun TEST07.", True),
    "CP028": ("TEST08: performance-run outputs are unmatched or differ from the accuracy run.",
              "TEST08 counts: no normalised-entropy mismatch, at least one matched and no unmatched (ts_idx, "
              "query_idx); recomputed from TEST08/accuracy/mlperf_log_accuracy.json and the result's accuracy log "
              "when both are whole, else from the counts in verify_accuracy.txt.",
              "rounds-v6.md 5.2 (TEST08 run_verification.py pass rule, 0.1 % NE tolerance); the official checker "
              "only reads the 'TEST PASS' line.",
              "num_ne_mismatch = 12 with a TEST PASS line; or outputs that change between identical queries.",
              "make the outputs depend only on the query, never on the mode or on earlier queries; rerun TEST08.", True),
    "CP029": ("TEST09: the mean output length is outside the round's bounds.",
              "the mean number of output tokens (4-byte token ids) over every sample of TEST09/accuracy/"
              "mlperf_log_accuracy.json, or the mean verify_output_len.txt reports when the log is truncated, "
              "within the round's inclusive bounds (gpt-oss-120b [1150.38, 1406.02]; v6.1 e2e-rag-qna "
              "[246.43, 301.19]).",
              "rounds-v6.md 5.3 and 3.9 (TEST09 stops output truncation in performance runs); the official "
              "checker only reads 'TEST PASS'.",
              "outputs truncated to 900 tokens in the performance run, mean 900 < 1150.38.",
              "generate the same outputs in performance mode as in accuracy mode; rerun TEST09.", True),
    "CP026": ("TEST01: the accuracy-mode log has one sample twice with different outputs.",
              "every qsl_idx of the accuracy log has a single output.", "non-deterministic outputs make TEST01 meaningless.",
              "qsl_idx 7 logged twice with different data.", "make the SUT deterministic per sample.", True),
    "CP030": ("A compliance test run's summary log disagrees with its detail log.",
              "every field the test run's mlperf_log_summary.txt shares with its mlperf_log_detail.txt (scenario, mode, "
              "validity, rates, latencies, seeds, sample counts) has the same value.",
              "the test verdict (CP006) is recomputed from the summary, which is LoadGen's digest of the detail log; "
              "a detail log that tells another story means one of them was edited or copied from another run.",
              "a TEST04 detail log whose result_samples_per_second was changed while its summary was left alone.",
              "submit the test's logs as LoadGen wrote them.", True),
}


@per_context
def _findings(ctx, rules) -> dict:
    """The verification's findings of a result by code (each code's in the verification's order); empty for
    a result that needs no verification (open division, a folder that is not a scenario)."""
    by_code: dict = {}
    if ctx.division in ("closed", "network") and ctx.scenario is not None:
        source = ctx.log_scenario
        inferred = source is not None and source != ctx.scenario and [ctx.scenario, source] in rules.inferable
        model = rules.models.get(ctx.mlperf_model)
        spec = load_round_spec(rules.round)
        # the round's rules name the tests a model needs; the load stage read the compliance folder (from
        # v6.0 on the result folder itself) into ctx.compliance, for every closed and network result
        found = verify_compliance(ctx.compliance, ctx.model_dir, ctx.scenario_dir, spec, ctx.submission_root,
                                  run_scenario=source if inferred else None,
                                  required_tests=tuple(model.compliance_tests) if model else None)
        for item in found:
            by_code.setdefault(item.code, []).append(item)
    return by_code


def _verified(ctx, rules) -> bool:
    """``when`` of the CP checks: the verification of the result found something (each CP check reports
    the findings of its own code)."""
    return bool(_findings(ctx, rules))


def _make(code: str) -> Check:
    summary, what, why, example, fix, stricter = DOCS[code]
    doc = (f"{summary}\n\nWhat it checks: {what}\nWhy: {why}\nFailing example: {example}\nHow to fix: {fix}\n"
           f"Data used: audits/TEST0x/spec.yaml, audits/rounds.yaml.\n"
           f"{'Stricter than the official checker.' if stricter else 'Same verdict as the official checker.'}")

    def run(ctx, rules):
        return _findings(ctx, rules).get(code, ())

    return Check(code=code, name=CODES[code], scope="result", func=run, docstring=doc, stricter=stricter, when=_verified)


CHECKS = tuple(_make(code) for code in sorted(CODES))
