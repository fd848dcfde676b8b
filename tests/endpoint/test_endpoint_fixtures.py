"""One failing fixture per endpoint check (fixtures/endpoint/EPnnn), a clean base, committed trees fresh."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from checker.pipeline import check_tree
from checker.loaders.detect import detect_round
from checker.loaders.rules import load_rules
from checker.registry import ALL_CHECKS
from tests.conftest import REPO

sys.path.insert(0, os.path.join(REPO, "fixtures"))
import make_endpoint_fixtures as gen  # noqa: E402

FIXTURES = os.path.join(REPO, "fixtures", "endpoint")
RULES = load_rules("v6.1")
EP_CODES = sorted(c.code for c in ALL_CHECKS if c.code.startswith("EP"))


def test_base_is_clean_and_every_result_has_its_published_kind_of_value():
    report = check_tree(os.path.join(FIXTURES, "_base"), RULES)
    assert report.findings == []
    assert len(report.results) == 9 and all(r.valid for r in report.results)
    units = {(r.model, r.scenario): r.unit for r in report.results}
    assert units[("deepseek-r1", "Interactive")] == "Tokens/s"
    assert units[("wan-2.2-t2v-a14b", "SingleStream")] == "Latency (s)"
    assert units[("qwen3.6-27b", "SingleStream")] == "Latency (ms)"
    assert units[("qwen3-vl-235b-a22b", "Server")] == "Queries/s"


def test_round_detected_from_endpoint_seeds_alone():
    name, reason = detect_round(os.path.join(FIXTURES, "_base"))
    assert name == "v6.1" and "endpoint" in reason


def test_every_endpoint_code_has_a_fixture():
    assert sorted(gen.MUTATIONS) == EP_CODES
    assert sorted(d for d in os.listdir(FIXTURES) if not d.startswith("_")) == EP_CODES


@pytest.mark.parametrize("code", EP_CODES)
def test_fixture_emits_its_code(code):
    report = check_tree(os.path.join(FIXTURES, code), RULES)
    codes = {f.code for f in report.findings}
    assert code in codes
    assert codes - {code} <= gen.CONSEQUENCES.get(code, set()), f"unexpected extra codes {codes - {code}}"


def test_committed_fixtures_are_not_stale():
    result = subprocess.run([sys.executable, os.path.join(REPO, "fixtures", "make_endpoint_fixtures.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_committed_endpoint_schemas_are_fresh():
    from checker.commands.schema import render_endpoint_schemas

    for name, text in render_endpoint_schemas().items():
        path = os.path.join(REPO, "schemas", name)
        assert os.path.isfile(path), f"run: mlpc schema export-endpoint -o schemas"
        with open(path, encoding="utf-8") as handle:
            assert handle.read() == text, f"stale {name}: run mlpc schema export-endpoint -o schemas"


WAN = "closed/Acme/results/dc_sys/wan-2.2-t2v-a14b/Offline"
BAD_INPUT = {
    "summary is a list": ("performance/result_summary.json", "[1, 2, 3]", "EP001"),
    "summary not UTF-8": ("performance/result_summary.json", b"\xff\xfe\x00\x01", "EP001"),
    "scores not a list": ("accuracy/accuracy_results.json", '{"accuracy_scores": "x"}', "EP001"),
    "entries of any type": ("accuracy/accuracy_results.json", '{"accuracy_scores": [1, "a", null, {"score": "high"}]}', "EP001"),
    "config a list": ("config.yaml", "- a\n- b\n", "EP001"),
    "config bad YAML": ("config.yaml", "a: [\n", "EP001"),
    "config empty": ("config.yaml", "", "EP001"),
    "seed a string": ("config.yaml", "type: offline\nsettings:\n  runtime:\n    scheduler_random_seed: x\n", "EP001"),
    "audit a list": ("audit/audit_output_caching_test.json", "[]", "EP001"),
    "audit mistyped": ("audit/audit_output_caching_test.json", '{"test": 5, "passed": "yes", "ref_qps": "fast"}', "EP001"),
    "audit sub-run gone": ("audit/reference/performance/result_summary.json", None, "EP014"),
    "zero window": ("performance/result_summary.json", '{"n_samples_issued": 0, "n_samples_completed": 0, '
                    '"n_samples_failed": 0, "duration_ns": 0, "legacy_loadgen_window_duration_ns": 0, "qps": 0, '
                    '"tps": 0, "output_sequence_lengths": {"total": 5}}', "EP013"),
    "alias bomb": ("config.yaml", "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                   "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n", "EP006"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT))
def test_bad_endpoint_input_is_a_coded_finding_never_a_crash(name, tmp_path):
    import shutil

    rel, content, code = BAD_INPUT[name]
    root = tmp_path / "tree"
    shutil.copytree(os.path.join(FIXTURES, "_base"), root)
    path = root / WAN / rel
    if content is None:
        path.unlink()
    else:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    report = check_tree(str(root), RULES)
    assert not [f for f in report.findings if f.code.startswith("TL")]
    assert code in {f.code for f in report.findings if f.result_id == WAN}
    assert not {r.id: r for r in report.results}[WAN].valid
