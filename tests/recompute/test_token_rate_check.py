"""PF026 on the datacenter llama2-70b fixture: the Offline token rate against the accuracy run's output
length, edited in the performance logs only, in accuracy.txt only, and across the band's edges."""

import os
import re
import shutil

import pytest

from tests.conftest import REPO, real_tree
from tests.recompute.helpers import check, findings

BASE = os.path.join(REPO, "fixtures", "checks", "_base_llm")
RES = "closed/Acme/results/dc_sys/llama2-70b-99/Offline"
LOG = f"{RES}/performance/run_1/mlperf_log_detail.txt"


def _tree(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(BASE, root, symlinks=True)
    return root


def _edit(root, rel, pattern, replacement):
    path = os.path.join(root, rel)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    new, count = re.subn(pattern, replacement, text, count=1)
    assert count == 1
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(new)


@pytest.mark.parametrize("factor,caught", [(1.0, False), (1.04, False), (1.06, True), (1.5, True), (0.94, True)])
def test_token_rate_against_the_accuracy_runs_output_length(tmp_path, factor, caught):
    root = _tree(tmp_path)  # 2945 tokens/s at 10 samples/s: 294.5 tokens per sample, as accuracy.txt says
    _edit(root, LOG, r'("result_tokens_per_second", "value": )[0-9.]+', rf"\g<1>{2945.0 * factor}")
    assert bool(findings(check(root), "PF026")) is caught


def test_output_length_edited_in_accuracy_txt_only(tmp_path):
    root = _tree(tmp_path)
    _edit(root, f"{RES}/accuracy/accuracy.txt", r"'tokens_per_sample': [0-9.]+", "'tokens_per_sample': 200.0")
    assert [f.location.path for f in findings(check(root), "PF026")] == [LOG]


def test_no_stated_output_length_is_not_checked(tmp_path):
    root = _tree(tmp_path)
    shutil.rmtree(os.path.join(root, RES.replace("/Offline", "/Server")))  # no other run of the model either
    _edit(root, f"{RES}/accuracy/accuracy.txt", r", 'tokens_per_sample': [0-9.]+", "")
    _edit(root, LOG, r'("result_tokens_per_second", "value": )[0-9.]+', r"\g<1>4417.5")
    assert findings(check(root), "PF026") == []


@pytest.mark.parametrize("factor,caught", [(1.0, False), (1.04, False), (1.5, True)])
def test_without_a_stated_output_length_the_sibling_scenarios_run_is_the_reference(tmp_path, factor, caught):
    """accuracy.txt states no output length (as llama3.1-8b's and whisper's do not): the Server run of the same
    model and system (2800 completed tokens/s at 9.5 samples/s: 294.7 tokens per sample) is the reference."""
    root = _tree(tmp_path)
    _edit(root, f"{RES}/accuracy/accuracy.txt", r", 'tokens_per_sample': [0-9.]+", "")
    _edit(root, LOG, r'("result_tokens_per_second", "value": )[0-9.]+', rf"\g<1>{2945.0 * factor}")
    found = findings(check(root), "PF026")
    assert [f.location.path for f in found] == ([LOG] if caught else [])
    assert all("Server/performance/run_1/mlperf_log_detail.txt 294.7" in f.message for f in found)


GATE = "open/GATEOverflow"
GATE_RES = f"{GATE}/results/GATEOverflow_RTX4090x2-reference-gpu-vllm-default_config/llama3_1-8b-edge/offline"


@pytest.mark.parametrize("factor,caught", [(1.0, False), (1.08, False), (1.25, True), (1.5, True), (0.8, True)])
def test_with_no_other_run_the_characters_per_sample_bound_the_output_length(tmp_path, factor, caught):
    """A real open llama3.1-8b-edge result measured Offline only (no sibling, no compliance run): its accuracy.txt
    states 612.987 characters per sample (gen_len / gen_num), so at 4.3-5.25 characters per token the Offline run
    holds 116.8-142.6 tokens per sample (it logs 128.0)."""
    root = tmp_path / "tree"
    shutil.copytree(os.path.join(real_tree("v5.1"), GATE), root / GATE)
    log = f"{GATE_RES}/performance/run_1/mlperf_log_detail.txt"
    os.chmod(os.path.join(root, log), 0o644)
    _edit(root, log, r'("result_tokens_per_second", "value": )[0-9.]+', rf"\g<1>{89.3416 * factor}")
    found = findings(check(root, "v5.1"), "PF026")
    assert [f.location.path for f in found] == ([log] if caught else [])
    assert all("612.987 characters per sample" in f.message for f in found)
