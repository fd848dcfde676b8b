"""`mlpc check --profile official` on the real v6.1 subset against the official v6.1 checker
(mlcommons/inference@b66003e1, ../shared/real_submissions/v6.1-expected/official-b66003e1/verdicts.csv), result
by result.

The official checker judges the 15 published results 9 valid, 4 error, 2 crashed. mlpc's verdict (valid or
error) equals the official one for all 13 it judged; the 2 it crashed on are both valid in mlpc. Where the
verdict agrees for another reason, or the official result value is not the published one, the difference is
listed below with its reason (and in rules/v6.1.yaml, the notes above `profiles`).
"""

import json
import os

import pytest

from checker.pipeline import check_tree
from checker.loaders.detect import rules_for
from tests.conftest import official_verdicts, real_tree
from tests.parity import verdict_mismatches

NV = "closed/NVIDIA/results/VR200-NVL72_GR200-288GB_aarch64x72_TRT"
HPE = "closed/HPE/results/HPE_PROLIANT_DL345_GEN12_RTX_PRO_4500_PCIE_32GBx4_AGENTIC/qwen3.6-27b/SingleStream"
DELL = "closed/Dell/results/XE9712x18/wan-2.2-t2v-a14b"
QNA = "closed/Intel/results/1-node-2S-Xeon_6787P/e2e-rag-qna/Offline"
LAMBDA = "closed/Lambda/results/GB300-NVL4_GB300-288GB_aarch64x4/qwen3-vl-235b-a22b"

# The official checker crashed (`AttributeError: 'NoneType' object has no attribute 'lower'`) because
# Lambda's config.yaml is under accuracy/, not at the scenario root (rounds-v6.md 7.2, L14). mlpc finds the
# file where it is and judges the result like any other: valid (it was accepted and published).
CRASHED_VALID_IN_MLPC = {f"{LAMBDA}/Offline", f"{LAMBDA}/Server"}

# Same verdict (error), another reason: path -> (the error codes mlpc gives, why the official checker rejected)
SAME_VERDICT_OTHER_REASON = {
    f"{DELL}/Offline": ({"MS003"}, "the copy lacks measurements.json (both agree); the official checker also "
                        "requires accuracy/videos, which published repositories never ship (rounds-v6.md 7.5 F8): "
                        "mlpc does not"),
    f"{DELL}/SingleStream": ({"MS003"}, "as Dell Offline"),
    HPE: ({"EP007"}, "the official checker finds no result_summary.json under performance/run_1/ (it reads "
          "performance/ only); mlpc reads it and rejects the seeds the run recorded (42/42 in run_config), where "
          "the official checker would have read the edited config.yaml"),
    QNA: ({"AC005", "ST020"}, "the copy lacks mlperf_log_accuracy.json: both reject for it"),
}

# Same verdict (valid), another value: the official value of LLM Offline and Interactive endpoint results is
# queries/s labelled Tokens/s (rounds-v6.md 7.5 "Metric"); the published table, and mlpc, give tokens/s
# (result_summary.json `tps`). The official number is the file's `qps`.
OFFICIAL_VALUE_IS_QPS = {f"{NV}/deepseek-r1/Offline", f"{NV}/deepseek-r1/Interactive"}


@pytest.fixture(scope="module")
def v61():
    root = real_tree("v6.1")
    expected = official_verdicts("v6.1", "official-b66003e1")
    rules, reason = rules_for(root)
    report = check_tree(root, rules, reason, profile="official")
    return root, expected, report


def _errors(report, path):
    """Error codes of one result: its own findings and those of the folders above it but the model (ST017
    is the model's consequence of a rejected scenario and says so)."""
    return {f.code for f in report.findings if f.severity.value == "error" and f.result_id
            and (f.result_id == path or f.result_id.startswith(path + "/"))}


def test_v61_official_profile_is_the_official_one(v61):
    _, expected, report = v61
    assert report.round == "v6.1" and report.profile == "official"
    assert {r.id for r in report.results} == set(expected)
    statuses = [row["status"] for row in expected.values()]
    assert (statuses.count("valid"), statuses.count("error"), statuses.count("crashed")) == (9, 4, 2)


def test_v61_every_judged_verdict_and_value_is_the_official_one_but_the_documented_qps(v61):
    root, expected, report = v61
    assert verdict_mismatches(expected, report, skip=OFFICIAL_VALUE_IS_QPS) == []
    got = {r.id: r for r in report.results}
    assert all(got[path].valid and expected[path]["status"] == "valid" for path in OFFICIAL_VALUE_IS_QPS)
    for path in OFFICIAL_VALUE_IS_QPS:
        with open(os.path.join(root, path, "performance", "result_summary.json"), encoding="utf-8") as handle:
            summary = json.load(handle)
        assert float(expected[path]["result"]) == summary["qps"], path  # the official value is the qps ...
        assert got[path].value == summary["tps"] and got[path].unit == "Tokens/s", path  # mlpc's the tps
        assert got[path].official_result() != expected[path]["result"], f"{path} no longer differs; drop it"


def test_v61_crashed_results_get_a_verdict(v61):
    root, expected, report = v61
    with open(os.path.join(os.path.dirname(root), "v6.1-expected", "published_rows.json"), encoding="utf-8") as handle:
        published = json.load(handle)
    crashed = {p for p, row in expected.items() if row["status"] == "crashed"}
    assert crashed == CRASHED_VALID_IN_MLPC
    got = {r.id: r for r in report.results}
    for path in crashed:
        assert got[path].valid and not _errors(report, path), (path, _errors(report, path))
        assert got[path].unit == published[path]["Units"], path
        assert got[path].value == pytest.approx(published[path]["Result"], abs=1e-10), path  # 10 places published


def test_v61_rejections_for_another_reason_are_the_documented_ones(v61):
    _, expected, report = v61
    rejected = {p for p, row in expected.items() if row["status"] == "error"}
    assert rejected == set(SAME_VERDICT_OTHER_REASON)
    for path, (codes, reason) in SAME_VERDICT_OTHER_REASON.items():
        assert reason
        assert _errors(report, path) == codes, path


def test_v61_default_profile_differs_only_by_the_stricter_endpoint_checks(v61):
    """Without the profile mlpc also reports the HPE config.yaml edited after the run (EP008); every other
    verdict is the same as under the official profile."""
    root, _, official = v61
    rules, reason = rules_for(root)
    default = check_tree(root, rules, reason)
    assert {r.id: r.valid for r in default.results} == {r.id: r.valid for r in official.results}
    assert _errors(default, HPE) == {"EP007", "EP008"}
