"""TEST07, TEST08 and TEST09 (and TEST01/04/06 in the v6.0 place): pass, fail, missing and tampered.

Real folders come from the published v6.0 subset (copied to a temporary folder before any edit);
the recomputation from whole logs uses the generated fixtures (fixtures/make_compliance_fixtures.py),
since the published accuracy logs are truncated.
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from checker.audit.compliance import verify_compliance_dir
from checker.loaders.audit_spec import load_round_spec
from tests.conftest import REPO, real_tree

from .helpers import codes

sys.path.insert(0, os.path.join(REPO, "fixtures"))
import make_compliance_fixtures as gen  # noqa: E402

NVIDIA = "closed/NVIDIA/results/GB200-NVL72_GB200-186GB_aarch64x72_TRT/gpt-oss-120b"
GOOGLE = "closed/Google/results/B200-SXM-180GBx8_TRT/dlrm-v3"
DELL_YOLO = "closed/Dell/results/XE7745_L4x16/yolo-95"
# published accuracy logs are truncated (CP019); Google ships only TEST08/verify_accuracy.txt (CP020)
TOLERATED = {"CP019", "CP020"}


def _verify(res: str, root: str, round_name: str = "v6.0", only=None, run_scenario=None):
    model, scenario = res.rstrip("/").split(os.sep)[-2:]
    return verify_compliance_dir(res, res, model, scenario, load_round_spec(round_name), root,
                                 only_tests=only, run_scenario=run_scenario)


def _copy(rel: str, tmp_path) -> str:
    src = os.path.join(real_tree("v6.0"), rel)
    dst = tmp_path / "tree" / rel
    shutil.copytree(src, dst)
    for dirpath, dirnames, filenames in os.walk(dst):
        for name in dirnames + filenames:
            os.chmod(os.path.join(dirpath, name), 0o755 if name in dirnames else 0o644)
    os.chmod(dst, 0o755)
    return str(dst)


def _edit(path: str, old: str, new: str) -> None:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert old in text, (path, old)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text.replace(old, new))


# --------------------------------------------------------------------------- fixtures (whole logs)


@pytest.mark.parametrize("code", sorted(gen.CASES))
def test_fixture_emits_its_code_and_its_twin_passes(code, tmp_path):
    round_name, _, _, test = gen.CASES[code]
    committed = gen.result_dir(os.path.join(REPO, "fixtures", "compliance", code), code)
    found = _verify(committed, REPO, round_name, (test,))
    assert code in codes(found)
    assert "CP021" in codes(found)  # each fixture's verify file says PASS
    twin = gen.build(code, str(tmp_path / "twin"), honest=True)
    assert _verify(twin, str(tmp_path), round_name, (test,)) == []


def test_committed_fixtures_match_the_generator(tmp_path):
    for code in gen.CASES:
        built = gen.build(code, str(tmp_path / code))
        committed = gen.result_dir(os.path.join(REPO, "fixtures", "compliance", code), code)
        for dirpath, _, filenames in os.walk(built):
            for name in filenames:
                rel = os.path.relpath(os.path.join(dirpath, name), built)
                with open(os.path.join(dirpath, name), "rb") as a, open(os.path.join(committed, rel), "rb") as b:
                    assert a.read() == b.read(), rel


def test_test09_data_edit_only_is_caught(tmp_path):
    res = gen.build("CP029", str(tmp_path), honest=True)
    log = os.path.join(res, "TEST09", "accuracy", "mlperf_log_accuracy.json")
    with open(log, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    # drop the last 40 tokens of the first output: the mean moves, still within bounds
    end = lines[1].index('" }')
    lines[1] = lines[1][: end - 320] + lines[1][end:]
    with open(log, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    found = _verify(res, str(tmp_path), "v6.1", ("TEST09",))
    assert codes(found) == ["CP022"]  # figures differ; the mean (266.5) is still in bounds


def test_test09_verify_edit_only_is_caught(tmp_path):
    res = gen.build("CP029", str(tmp_path), honest=True)
    path = os.path.join(res, "TEST09", "verify_output_len.txt")
    _edit(path, "Min threshold: 246.43", "Min threshold: 100.0")
    assert codes(_verify(res, str(tmp_path), "v6.1", ("TEST09",))) == ["CP022"]


def test_test08_both_edited_is_caught(tmp_path):
    res = gen.build("CP028", str(tmp_path), honest=True)
    log = os.path.join(res, "TEST08", "accuracy", "mlperf_log_accuracy.json")
    with open(log, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    lines = lines[:-3] + [lines[-2].rstrip(","), lines[-1]]  # one logged sample removed
    with open(log, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    verify = os.path.join(res, "TEST08", "verify_accuracy.txt")
    _edit(verify, "num_perf_log_entries = 24", "num_perf_log_entries = 23")  # edited to match
    found = codes(_verify(res, str(tmp_path), "v6.0", ("TEST08",)))
    assert found == ["CP022"]  # num_matched 24 in the file, 23 in the logs


# --------------------------------------------------------------------------- real v6.0 folders


@pytest.mark.parametrize("scenario", ["Offline", "Server", "Interactive"])
def test_real_gpt_oss_test07_test09_pass(scenario):
    root = real_tree("v6.0")
    found = _verify(os.path.join(root, NVIDIA, scenario), root)
    assert set(codes(found)) <= TOLERATED, [f.message for f in found]
    assert not any(dict(f.data).get("official") for f in found)


@pytest.mark.parametrize("scenario", ["Offline", "Server"])
def test_real_dlrm_test08_passes_with_missing_logs_said(scenario):
    root = real_tree("v6.0")
    found = _verify(os.path.join(root, GOOGLE, scenario), root)
    assert codes(found) == ["CP020"]  # only the verify file is shipped: it cannot be recomputed
    assert all("TEST08" in f.message for f in found)


def test_real_dell_yolo_loose_logs_in_test01_are_accepted():
    root = real_tree("v6.0")
    for scenario in ("multistream", "offline", "singlestream"):
        found = _verify(os.path.join(root, DELL_YOLO, scenario), root)
        assert codes(found) == ["CP019"], [f.message for f in found]


def test_real_test07_fail_missing_and_tampered(tmp_path):
    res = _copy(f"{NVIDIA}/Offline", tmp_path)
    root = str(tmp_path / "tree")
    verify = os.path.join(res, "TEST07", "verify_accuracy.txt")
    # tampered verify file only: the threshold lowered and the score raised in the summary block
    _edit(verify, "Accuracy threshold: 60.698", "Accuracy threshold: 60.0")
    _edit(verify, "Accuracy score: 61.818", "Accuracy score: 70.5")
    assert set(codes(_verify(res, root))) - TOLERATED == {"CP022"}
    # the accuracy script's score itself below the threshold (data and summary edited alike)
    _edit(verify, "'exact_match': 61.818", "'exact_match': 58.0")
    found = _verify(res, root)
    assert {"CP027", "CP021", "CP022"} <= set(codes(found))
    # fail: the file says TEST FAIL
    _edit(verify, "TEST PASS", "TEST FAIL")
    found = _verify(res, root)
    assert {"CP005", "CP027"} <= set(codes(found)) and "CP021" not in codes(found)
    # missing verify file, then missing folder
    os.remove(verify)
    assert "CP003" in codes(_verify(res, root))
    shutil.rmtree(os.path.join(res, "TEST07"))
    assert "CP002" in codes(_verify(res, root))


def test_real_test07_run_log_seeds_checked(tmp_path):
    res = _copy(f"{NVIDIA}/Server", tmp_path)
    detail = os.path.join(res, "TEST07", "performance", "run_1", "mlperf_log_detail.txt")
    _edit(detail, '"value": 2465351861681999779', '"value": 0')  # like the published RedHat TEST07 log
    found = _verify(res, str(tmp_path / "tree"))
    seeds = [f for f in found if f.code == "CP009"]
    assert seeds and not dict(seeds[0].data)["official"]


def test_real_test09_tampered_and_failing(tmp_path):
    res = _copy(f"{NVIDIA}/Server", tmp_path)
    root = str(tmp_path / "tree")
    verify = os.path.join(res, "TEST09", "verify_output_len.txt")
    text = open(verify, encoding="utf-8").read()
    mean = text.split("Mean output tokens: ")[1].split()[0]
    # a truncating SUT's figures with a PASS line: the reported mean is out of bounds
    _edit(verify, f"Mean output tokens: {mean}", "Mean output tokens: 1012.40")
    found = _verify(res, root)
    assert {"CP029", "CP021"} <= set(codes(found))
    # bounds edited to match: the bounds differ from the round's
    _edit(verify, "Min threshold: 1150.38", "Min threshold: 1000.0")
    assert {"CP029", "CP021", "CP022"} <= set(codes(_verify(res, root)))
    _edit(verify, "TEST PASS", "TEST FAIL")
    assert {"CP005", "CP029"} <= set(codes(_verify(res, root)))
    os.remove(verify)
    assert "CP003" in codes(_verify(res, root))


def test_real_test08_exact_line_counts_and_fail(tmp_path):
    res = _copy(f"{GOOGLE}/Offline", tmp_path)
    root = str(tmp_path / "tree")
    verify = os.path.join(res, "TEST08", "verify_accuracy.txt")
    _edit(verify, "\nTEST PASS\n", "\n=> TEST PASS\n")  # official J11: the line must be exactly TEST PASS
    assert "CP005" in codes(_verify(res, root))
    _edit(verify, "=> TEST PASS", "TEST PASS")
    _edit(verify, "num_ne_mismatch = 0", "num_ne_mismatch = 7")  # a failing run filed with TEST PASS
    assert {"CP028", "CP021"} <= set(codes(_verify(res, root)))
    _edit(verify, "num_ne_mismatch = 7", "num_ne_mismatch = 0")
    _edit(verify, "num_acc_log_entries = 349823", "num_acc_log_entries = 300000")  # not the accuracy run's count
    found = _verify(res, root)
    assert "CP022" in codes(found) and "CP021" not in codes(found)
    shutil.rmtree(os.path.join(res, "TEST08"))
    assert "CP002" in codes(_verify(res, root))


def test_real_v60_tests_not_required_are_reported(tmp_path):
    res = _copy(f"{GOOGLE}/Server", tmp_path)
    shutil.copytree(os.path.join(res, "TEST08"), os.path.join(res, "TEST09"))
    found = _verify(res, str(tmp_path / "tree"))
    assert "CP025" in codes(found)


def test_real_lenovo_3d_unet_test01_is_a_resnet_run():
    """A deliberate difference from the official checker (which reads only verify_performance.txt):
    the TEST01 run filed under 3d-unet Offline is a resnet50 run (25212 samples/s against 2.19)."""
    root = real_tree("v6.0")
    res = os.path.join(root, "closed/Lenovo/results/SE455I_V3_TRT/3d-unet-99/Offline")
    found = _verify(res, root)
    assert {"CP006", "CP021"} <= set(codes(found))


def test_real_inferred_result_compares_the_run_scenario():
    root = real_tree("v6.0")
    res = os.path.join(root, "closed/Lenovo/results/SE100/resnet50/offline")  # inferred from SingleStream
    assert codes(_verify(res, root, run_scenario="SingleStream")) == ["CP019"]


def test_real_v61_e2e_rag_qna_test09_passes_saying_what_it_could_not_recompute():
    root = real_tree("v6.1")
    res = os.path.join(root, "closed/Intel/results/1-node-2S-Xeon_6787P/e2e-rag-qna/Offline")
    found = _verify(res, root, "v6.1")
    assert codes(found) == ["CP020"]  # the round's TEST09 folder ships no accuracy log
    assert "TEST09" in found[0].message


def test_test08_run_log_is_checked_when_shipped(tmp_path):
    res = gen.build("CP028", str(tmp_path), honest=True)
    detail = os.path.join(res, "TEST08", "performance", "run_1", "mlperf_log_detail.txt")
    os.makedirs(os.path.dirname(detail))
    with open(detail, "w", encoding="utf-8") as handle:
        handle.write(gen.run_detail("v6.0", "Server", effective_accuracy_log_sampling_target=4096,
                                    effective_qsl_rng_seed=0))
    found = _verify(res, str(tmp_path), "v6.0", ("TEST08",))
    assert codes(found) == ["CP009"]


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("code", sorted(gen.CASES))
@pytest.mark.parametrize("junk", [b"\xff\xfe\x00binary", b"", b"TEST PASS\n" + b"x" * 1_100_000, b"[\n{ broken\n"])
def test_junk_files_give_findings_not_exceptions(code, junk, tmp_path):
    round_name, _, _, test = gen.CASES[code]
    res = gen.build(code, str(tmp_path / "t"), honest=True)
    for dirpath, _, filenames in os.walk(res):
        for name in filenames:
            with open(os.path.join(dirpath, name), "wb") as handle:
                handle.write(junk)
    found = _verify(res, str(tmp_path), round_name, (test,))
    assert found and all(f.code.startswith("CP") and f.location.path for f in found)


def test_test08_nan_outputs_never_match(tmp_path):
    import struct

    res = gen.build("CP028", str(tmp_path), honest=True)
    log = os.path.join(res, "TEST08", "accuracy", "mlperf_log_accuracy.json")
    nan = struct.pack("<6f", 0, 0, *[float("nan")] * 4).hex().upper()
    with open(log, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    head = lines[1].split('"data" : "')[0]
    lines[1] = head + f'"data" : "{nan}" }},'
    with open(log, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    found = _verify(res, str(tmp_path), "v6.0", ("TEST08",))
    assert {"CP028", "CP021"} <= set(codes(found))


def test_output_length_stats_are_numpys_without_numpy():
    """length_stats reads count, mean, min and max without numpy, to the bit of numpy's float64 mean; the spread
    (the live runner's verify file) is numpy's standard deviation."""
    import dataclasses
    import random

    import numpy as np

    from checker.audit.verify_tests_v6 import length_stats

    rng = random.Random(3)
    cases = [[0], [8, 8, 8], [7, 2], [2 ** 40, 3, 4]] + [
        [rng.randrange(0, rng.choice((5, 300, 70_000))) * 2 for _ in range(rng.randrange(1, 3000))] for _ in range(200)]
    for sizes in cases:
        lengths = [n // 2 if n % 2 == 0 else 0 for n in sizes]  # (an odd byte count is not whole tokens: 0)
        arr = np.asarray(lengths, dtype=np.float64)
        plain, spread = length_stats(sizes, 2), length_stats(sizes, 2, spread=True)
        assert (plain.total, plain.mean, plain.min, plain.max, plain.std) == \
            (len(lengths), float(arr.mean()), int(arr.min()), int(arr.max()), None)
        assert dataclasses.replace(spread, std=None) == plain and spread.std == float(arr.std())
    assert length_stats([-1, 3, 4], 2).mean == 2 / 3 and length_stats([], 2).mean is None
