"""More edits of the real v6.1 endpoint files (issue #22, "Done when"): the same facts are checked in every
layout the round's submitters used, across each threshold, and whether a submitter edits one file or
both.

The edits of tests/endpoint/test_real_v61.py use NVIDIA's files (everything at the scenario root); here the
same numbers are changed in HPE's (files under performance/run_1/), Lambda's (config.yaml only under
accuracy/) and Krai's (open) copies, and on both sides of the duration and accuracy thresholds.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from checker.pipeline import check_tree
from tests.endpoint.test_real_v61 import HPE, NV, RULES, _codes, _copy, _json, _summary

ATLAS = "closed/Atlas_Inference/results/DGX_Spark_GB10/qwen3.6-27b/SingleStream"
LAMBDA = "closed/Lambda/results/GB300-NVL4_GB300-288GB_aarch64x4/qwen3-vl-235b-a22b/Server"
KRAI = "open/Krai/results/h200/qwen3-vl-235b-a22b/Offline"
# (submitter folder, result_summary.json of the result) in each layout
LAYOUTS = {
    "scenario root (NVIDIA)": ("closed/NVIDIA", _summary("deepseek-r1", "Server")),
    "performance/run_1 (HPE)": ("closed/HPE", f"{HPE}/performance/run_1/result_summary.json"),
    "config under accuracy/ (Lambda)": ("closed/Lambda", f"{LAMBDA}/performance/result_summary.json"),
    "open (Krai)": ("open/Krai", f"{KRAI}/performance/result_summary.json"),
}


@pytest.fixture(scope="module")
def v61():
    from tests.conftest import real_tree
    return real_tree("v6.1")


def _result_codes(root, rel_in_result):
    """Error and warning codes of the result that holds ``rel_in_result``."""
    report = check_tree(str(root), RULES)
    return {f.code for f in report.findings if f.severity.value in ("error", "warning")
            and f.result_id and rel_in_result.startswith(f.result_id + "/")}, report


def _scaled(factor, *keys):
    def change(d):
        for key in keys:
            d[key] = type(d[key])(d[key] * factor)  # a count of ns stays an integer
    return change


EDITS = {
    "failures": (lambda d: d.update(n_samples_failed=3), "EP004"),
    "interruption": (lambda d: d.update(state="interrupted", complete=False), "EP003"),
    "qps": (_scaled(1.05, "qps"), "EP013"),
    "qps and tps together": (_scaled(1.05, "qps", "tps"), "EP013"),
    "a shorter window with the same counts": (_scaled(0.9, "duration_ns"), "EP013"),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("edit", sorted(EDITS))
def test_each_edit_is_caught_in_each_layout(v61, tmp_path, layout, edit):
    submitter, rel = LAYOUTS[layout]
    change, code = EDITS[edit]
    before, _ = _result_codes(_copy(v61, tmp_path / "a", submitter), rel)
    assert code not in before, before
    root = _copy(v61, tmp_path / "b", submitter)
    if edit == "a shorter window with the same counts" and layout.startswith("scenario root"):
        # deepseek-r1 Server reports qps over the LoadGen-compatible window: shrink that one
        change = _scaled(0.9, "legacy_loadgen_window_duration_ns")
    _json(root, rel, change)
    after, report = _result_codes(root, rel)
    assert code in after, (layout, edit, after)
    assert not [f for f in report.findings if f.code.startswith("TL")]


def _window(d, seconds):
    d["duration_ns"] = int(seconds * 10**9)


@pytest.mark.parametrize("nanoseconds, caught", [(0, False), (-1, True)])
def test_duration_across_the_minimum(v61, tmp_path, nanoseconds, caught):
    """At exactly the round's 600 s the run is long enough; one nanosecond less is EP005."""
    root = _copy(v61, tmp_path)
    floor_ns = RULES.min_duration_for("deepseek-r1") * 1_000_000
    _json(root, _summary("deepseek-r1", "Offline"), lambda d: d.update(duration_ns=floor_ns + nanoseconds))
    codes, _ = _result_codes(root, _summary("deepseek-r1", "Offline"))
    assert ("EP005" in codes) is caught, codes


def test_duration_in_the_publish_script_layout(v61, tmp_path):
    root = _copy(v61, tmp_path, "closed/HPE")
    rel = f"{HPE}/performance/run_1/result_summary.json"
    _json(root, rel, lambda d: _window(d, 400))
    codes, _ = _result_codes(root, rel)
    assert "EP005" in codes


def _config_seed(root, rel, seed):
    path = root / rel
    text = path.read_text()
    assert "dataloader_random_seed:" in text
    lines = [f"{line.split(':')[0]}: {seed}" if line.strip().startswith("dataloader_random_seed:") else line
             for line in text.splitlines()]
    path.write_text("\n".join(lines) + "\n")


def test_seeds_edited_in_config_only_in_summary_only_and_in_both(v61, tmp_path):
    config = f"{NV}/deepseek-r1/Offline/config.yaml"
    summary = _summary("deepseek-r1", "Offline")
    only_config = _copy(v61, tmp_path / "config")
    _config_seed(only_config, config, 42)
    codes, _ = _result_codes(only_config, summary)
    assert "EP008" in codes and "EP007" not in codes, codes  # the run recorded the round's seeds

    only_summary = _copy(v61, tmp_path / "summary")
    _json(only_summary, summary, lambda d: d["run_config"].update(dataloader_random_seed=42))
    codes, _ = _result_codes(only_summary, summary)
    assert {"EP007", "EP008"} <= codes, codes

    both = _copy(v61, tmp_path / "both")
    _config_seed(both, config, 42)
    _json(both, summary, lambda d: d["run_config"].update(dataloader_random_seed=42))
    codes, _ = _result_codes(both, summary)
    assert "EP007" in codes and "EP008" not in codes, codes


@pytest.mark.parametrize("score, caught", [(0.86, False), (0.85, True)])
def test_edge_agentic_accuracy_across_its_target(v61, tmp_path, score, caught):
    """qwen3.6-27b's bfcl_v4 scorer reports a fraction; the target is 85.3677 % (86.23 * 0.99)."""
    root = _copy(v61, tmp_path, "closed/Atlas_Inference")
    rel = f"{ATLAS}/accuracy/accuracy_results.json"
    _json(root, rel, lambda d: d["accuracy_scores"][0].update(score=score))
    codes, _ = _result_codes(root, rel)
    assert bool(codes & {"EP010", "EP011"}) is caught, codes


@pytest.mark.parametrize("name", ["performance/result_summary.json", "accuracy/accuracy_results.json",
                                  "config.yaml"])
def test_truncated_file_is_a_coded_finding(v61, tmp_path, name):
    root = _copy(v61, tmp_path)
    path = root / NV / "deepseek-r1" / "Offline" / name
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    report = check_tree(str(root), RULES)
    found = [f for f in report.findings if f.code == "EP001"]
    assert found and found[0].location.path.endswith(name), [(f.code, f.location.path) for f in report.findings]
    assert not [f for f in report.findings if f.code.startswith("TL")]
    assert not {r.id: r for r in report.results}[f"{NV}/deepseek-r1/Offline"].valid


def test_missing_config_in_the_accuracy_only_layout(v61, tmp_path):
    root = _copy(v61, tmp_path, "closed/Lambda")
    (root / LAMBDA / "accuracy" / "config.yaml").unlink()
    codes, report = _result_codes(root, f"{LAMBDA}/performance/result_summary.json")
    assert "EP002" in codes
    assert not {r.id: r for r in report.results}[LAMBDA].valid


def test_missing_server_and_interactive_rejects_offline(v61, tmp_path):
    root = _copy(v61, tmp_path)
    for scenario in ("Server", "Interactive"):
        shutil.rmtree(root / NV / "deepseek-r1" / scenario)
    report = check_tree(str(root), RULES)
    assert [f.severity.value for f in report.findings if f.code == "ST017"] == ["error"]
    assert not {r.id: r for r in report.results}[f"{NV}/deepseek-r1/Offline"].valid
    # one of them is enough
    root = _copy(v61, tmp_path / "server")
    shutil.rmtree(root / NV / "deepseek-r1" / "Interactive")
    report = check_tree(str(root), RULES)
    assert not [f for f in report.findings if f.code == "ST017"]


def test_lowercase_folders_in_every_layout_change_nothing(v61, tmp_path):
    def verdicts(report):
        return sorted((r.id.lower(), r.valid, r.value) for r in report.results)

    for submitter, rel in LAYOUTS.values():
        before = check_tree(str(_copy(v61, tmp_path / f"a{len(submitter)}{submitter[-3:]}", submitter)), RULES)
        root = _copy(v61, tmp_path / f"b{len(submitter)}{submitter[-3:]}", submitter)
        scenario = root / rel.split("/performance/")[0]
        scenario.rename(scenario.with_name(scenario.name.lower()))
        after = check_tree(str(root), RULES)
        assert verdicts(after) == verdicts(before), submitter
        assert os.path.isdir(scenario.with_name(scenario.name.lower()))
        assert json.dumps(sorted(f.code for f in after.findings)) == json.dumps(sorted(f.code for f in before.findings))
