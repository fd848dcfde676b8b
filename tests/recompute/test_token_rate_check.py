"""PF026 on the datacenter llama2-70b fixture: the Offline token rate against the accuracy run's output
length, edited in the performance logs only, in accuracy.txt only, and across the band's edges."""

import os
import re
import shutil

import pytest

from tests.conftest import REPO
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
