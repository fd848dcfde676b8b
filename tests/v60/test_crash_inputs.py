"""Every input that aborts the official v6.0 checker (rounds-v6.md 4-L, L1-L11) gives mlpc a coded finding
with the file's path, and checking goes on: the untouched results of the same tree keep their verdict."""

import json
import os
import shutil

import pytest

from tests.v60.helpers import check, codes_for, copy_submitter, result_dir, verdict

KRAI = "closed/Krai"


def _wan(root, scenario="offline"):
    return result_dir(root, KRAI, "wan-2.2-t2v-a14b", scenario)


def _system_json(root):
    return os.path.join(root, KRAI, "systems", "h200_n1-kissv.json")


def _edit_json(path, **changes):
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    data.update(changes)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle)


def _write(path, data: bytes, mode="wb"):
    with open(path, mode) as handle:
        handle.write(data)


def _prepend(path, data: bytes):
    with open(path, "rb") as handle:
        rest = handle.read()
    _write(path, data + rest)


def l1_missing_performance_log(root):
    os.remove(os.path.join(_wan(root), "performance", "run_1", "mlperf_log_detail.txt"))
    return _wan(root), {"ST019"}


def l2_missing_accuracy_log(root):
    os.remove(os.path.join(_wan(root), "accuracy", "mlperf_log_detail.txt"))
    return _wan(root), {"AC006", "ST020"}


def l3_missing_system_json(root):
    os.remove(_system_json(root))
    return _wan(root), {"ST013"}


def l5_unknown_model_folder(root):
    model = os.path.dirname(_wan(root))
    shutil.move(model, os.path.join(os.path.dirname(model), "dlrm-v2-99"))
    return os.path.join(os.path.dirname(model), "dlrm-v2-99", "offline"), {"ST014"}


def l5_stray_folder_in_model(root):
    os.makedirs(os.path.join(os.path.dirname(_wan(root)), "old_runs", "logs"))
    _write(os.path.join(os.path.dirname(_wan(root)), "old_runs", "logs", "run.log"), b"x\n")
    return os.path.join(os.path.dirname(_wan(root)), "old_runs"), {"ST016"}


def l6_invalid_system_type(root):
    _edit_json(_system_json(root), system_type="cloud")
    return _wan(root), {"SY003"}


def l7_invalid_system_json(root):
    _write(_system_json(root), b'{"division": "closed",')
    return _wan(root), {"SY001"}


def l7_invalid_measurements_json(root):
    _write(os.path.join(_wan(root), "measurements.json"), b"{not json")
    return _wan(root), {"MS003"}


def l8_line_without_marker(root):
    _prepend(os.path.join(_wan(root), "performance", "run_1", "mlperf_log_detail.txt"), b"starting the run\n")
    return _wan(root), {"PF003"}


def l9_marker_with_invalid_json(root):
    _prepend(os.path.join(_wan(root), "performance", "run_1", "mlperf_log_detail.txt"), b":::MLLOG {broken\n")
    return _wan(root), {"PF003"}


def l10_non_utf8_byte(root):
    _prepend(os.path.join(_wan(root), "performance", "run_1", "mlperf_log_detail.txt"), b"\xff\xfe\n")
    return _wan(root), {"PF003"}


def l10_non_utf8_accuracy_txt(root):
    _prepend(os.path.join(_wan(root), "accuracy", "accuracy.txt"), b"\xff\n")
    return _wan(root), {"AC003"}


def measurements_json_missing(root):
    os.remove(os.path.join(_wan(root), "measurements.json"))
    return _wan(root), {"MS003"}


def src_missing(root):
    shutil.rmtree(os.path.join(root, KRAI, "src"))
    return _wan(root), {"MS004"}


CASES = [measurements_json_missing, src_missing, l1_missing_performance_log, l2_missing_accuracy_log, l3_missing_system_json, l5_unknown_model_folder,
         l5_stray_folder_in_model, l6_invalid_system_type, l7_invalid_system_json, l7_invalid_measurements_json,
         l8_line_without_marker, l9_marker_with_invalid_json, l10_non_utf8_byte, l10_non_utf8_accuracy_txt]


@pytest.mark.parametrize("edit", CASES, ids=lambda f: f.__name__)
def test_official_crash_input_is_a_coded_finding(tmp_path, edit):
    root = copy_submitter(tmp_path, KRAI)
    result, codes = edit(root)
    report = check(root)
    found = codes_for(report, result)
    assert codes & found, (codes, found)
    assert "TL001" not in {f.code for f in report.findings}
    # the other wan result is still checked (and, where the edit did not touch what it shares, still valid)
    other = [r for r in report.results if r.id.endswith("/singlestream")]
    assert other


def test_l4_submitter_without_results_and_the_others_are_checked(tmp_path):
    root = copy_submitter(tmp_path, KRAI)
    os.makedirs(os.path.join(root, "closed", "Empty", "systems"))
    report = check(root)
    assert [(f.code, f.location.path) for f in report.findings if f.code == "ST027"] == [("ST027", "closed/Empty")]
    assert all(r.valid for r in report.results) and len(report.results) == 2


def test_l7_invalid_model_mapping(tmp_path):
    root = copy_submitter(tmp_path, "open/Krai")
    _write(os.path.join(root, "open", "Krai", "model_mapping.json"), b'{"llama3_1-70b-fp8_dyn": ')
    report = check(root)
    assert "ST012" in {f.code for f in report.findings}
    assert report.results


def test_l11_non_integer_accelerator_count(tmp_path):
    root = copy_submitter(tmp_path, KRAI)
    _edit_json(_system_json(root), accelerators_per_node="8 GPUs")
    report = check(root)
    hits = [f for f in report.findings if f.code == "SY010"]
    assert hits and "accelerators_per_node" in hits[0].message
    assert all(verdict(report, os.path.join(root, r.id)) for r in report.results)
