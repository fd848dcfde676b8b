"""`mlpc infer SRC --out DEST`: inferred edge results added as preprocess_submission.py does."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.commands.infer import plan_inference
from checker.loaders.rules import load_rules
from checker.loaders.tree_writer import SubmitterLayout
from tests.conftest import REPO, real_tree
from tests.recompute.helpers import MEAS, RES, SUB, base_tree, check, findings, tree_digest

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


@pytest.fixture()
def source(tmp_path):
    """The fixture tree (edge, gptj-99) with only the SingleStream result: Offline is to be inferred."""
    root = base_tree(tmp_path, "src")
    shutil.rmtree(root / RES / "Offline")
    shutil.rmtree(root / MEAS / "Offline")
    return root


def test_infer_end_to_end(tmp_path, source):
    before = tree_digest(source)
    out = tmp_path / "out"
    result = run("infer", str(source), "--out", str(out), "--round", "v4.1")
    assert result.exit_code == 0, result.output
    assert tree_digest(source) == before
    assert "offline <- SingleStream" in result.stderr and "0.6667 Samples/s" in result.stderr
    assert sorted(os.listdir(out / RES)) == ["SingleStream", "offline"]  # gptj-99 has no MultiStream on edge
    assert sorted(os.listdir(out / MEAS)) == ["SingleStream", "offline"]
    report = check(out)
    offline = [r for r in report.results if r.scenario_dir == "offline"][0]
    assert offline.inferred and offline.valid and offline.value == 0.6667
    assert not findings(report, "PF020") and not report.findings


def test_round_is_detected_when_not_given(tmp_path, source):
    result = run("infer", str(source), "--out", str(tmp_path / "out"), "--quiet")
    assert result.exit_code == 0, result.output
    assert "round v4.1" in result.stderr


def test_dry_run_lists_and_writes_nothing(tmp_path, source):
    before, listing = tree_digest(source), sorted(os.listdir(tmp_path))
    result = run("infer", str(source), "--out", str(tmp_path / "out"), "--round", "v4.1", "--dry-run")
    assert result.exit_code == 0
    assert "would copy closed/Acme/results/edge_sys/gptj-99/SingleStream -> " \
           "closed/Acme/results/edge_sys/gptj-99/offline" in result.stderr
    assert "would copy closed/Acme/measurements/edge_sys/gptj-99/SingleStream" in result.stderr
    assert sorted(os.listdir(tmp_path)) == listing and tree_digest(source) == before


def test_existing_destination_is_refused(tmp_path, source):
    (tmp_path / "out").mkdir()
    result = run("infer", str(source), "--out", str(tmp_path / "out"), "--round", "v4.1")
    assert result.exit_code == 2 and "already exists" in result.stderr
    assert os.listdir(tmp_path / "out") == []


def test_usage_errors_are_clean(tmp_path, source):
    for args, fragment in ((["infer", str(tmp_path / "nope"), "--out", str(tmp_path / "o")], "no such file"),
                           (["infer", str(source), "--out", str(tmp_path / "o"), "--round", "v9.9"], "v9.9"),
                           (["infer", str(source), "--out", str(source / "x")], "inside the source")):
        result = run(*args)
        assert result.exit_code == 2 and fragment in result.stderr, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_existing_folder_in_any_case_is_not_inferred_again(tmp_path):
    root = base_tree(tmp_path, "src")  # SingleStream and Offline both measured
    result = run("infer", str(root), "--out", str(tmp_path / "out"), "--round", "v4.1")
    assert result.exit_code == 0 and "0 inferred folder(s)" in result.stderr


def test_submitter_folder_as_source(tmp_path, source):
    result = run("infer", str(source / SUB), "--out", str(tmp_path / "out"), "--round", "v4.1")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "results/edge_sys/gptj-99/offline/performance/run_1/mlperf_log_detail.txt").is_file()


def _layout(system_type, folders, division="closed", model="resnet50", compliance=None):
    layout = SubmitterLayout(rel=f"{division}/X", division=division, system_types={"s": system_type})
    layout.folders = {"results": {"s": {model: tuple(folders)}}, "measurements": {"s": {model: tuple(folders)}},
                      "compliance": {"s": {model: tuple(compliance if compliance is not None else folders)}}}
    return layout


def _pairs(layout, round_name="v4.1"):
    steps, notes = plan_inference([layout], load_rules(round_name))
    return sorted({(s.src_rel.rsplit("/", 1)[1], s.dst_rel.rsplit("/", 1)[1], s.kind) for s in steps}), notes


def test_plan_singlestream_only_infers_both():
    pairs, _ = _pairs(_layout("edge", ["SingleStream"]))
    assert pairs == sorted((src, dst, kind) for src, dst in (("SingleStream", "offline"), ("SingleStream", "multistream"))
                           for kind in ("results", "measurements", "compliance"))


def test_plan_multistream_gives_offline():
    pairs, _ = _pairs(_layout("edge", ["singlestream", "multistream"]))
    assert {(s, d) for s, d, _ in pairs} == {("multistream", "offline")}


def test_plan_singlestream_and_offline_give_multistream():
    pairs, _ = _pairs(_layout("edge", ["SingleStream", "Offline"]))
    assert {(s, d) for s, d, _ in pairs} == {("SingleStream", "multistream")}


def test_plan_only_edge_systems():
    assert _pairs(_layout("datacenter", ["SingleStream"]))[0] == []
    assert _pairs(_layout("datacenter,edge", ["SingleStream"]))[0]
    pairs, notes = _pairs(_layout(None, ["SingleStream"]))
    assert pairs == [] and "no readable system_type" in notes[0]


def test_plan_compliance_for_closed_and_network_only():
    assert {k for _, _, k in _pairs(_layout("edge", ["SingleStream"], division="open"))[0]} == {"results", "measurements"}
    assert "compliance" in {k for _, _, k in _pairs(_layout("edge", ["SingleStream"], division="network"))[0]}
    # a compliance folder for the source scenario is needed to copy it
    assert "compliance" not in {k for _, _, k in _pairs(_layout("edge", ["SingleStream"], compliance=[]))[0]}


def test_plan_unknown_model_is_noted():
    pairs, notes = _pairs(_layout("edge", ["SingleStream"], model="my-own-net"))
    assert pairs == [] and "not a model of round v4.1" in notes[0]


def test_real_v51_inferred_folders_are_recreated_byte_for_byte(tmp_path):
    """Take GATEOverflow's TRIGKEY system of the published v5.1 tree, remove its inferred multistream/ and
    offline/ folders, infer them again: the result equals the published tree, and the checker reports the
    official inferred values (v5.1-expected: 42.193952 ms and 220.502000 samples/s)."""
    src = real_tree("v5.1")
    part = tmp_path / "part"
    shutil.copytree(os.path.join(src, "open", "GATEOverflow"), part / "open" / "GATEOverflow", symlinks=True)
    for dirpath, dirnames, _ in os.walk(part):
        os.chmod(dirpath, 0o755)
    system = "TRIGKEY_Mini_PC_Ryzen_5_5560-ctuning_cpp_tflite-cpu-tflite_vmaster-default_config"
    model = "mobilenet-v1-precision_float-1.0-128"
    for kind in ("results", "measurements"):
        for scen in ("multistream", "offline"):
            shutil.rmtree(part / "open/GATEOverflow" / kind / system / model / scen)
    before = tree_digest(part)
    out = tmp_path / "out"
    result = run("infer", str(part), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert tree_digest(part) == before
    published = os.path.join(src, "open", "GATEOverflow")
    for dirpath, _, files in os.walk(published):
        for name in files:
            rel = os.path.relpath(os.path.join(dirpath, name), published)
            with open(os.path.join(dirpath, name), "rb") as handle:
                assert (out / "open/GATEOverflow" / rel).read_bytes() == handle.read(), rel
    report = check(out, "v5.1")
    values = {r.scenario_dir: (r.value, r.inferred, r.valid) for r in report.results if r.model == model}
    assert values["multistream"][1:] == (True, True) and abs(values["multistream"][0] - 42.193952) < 1e-6
    assert values["offline"][1:] == (True, True) and abs(values["offline"][0] - 220.502) < 1e-9
    assert not findings(report, "PF020") and not findings(report, "PF019")
    with open(os.path.join(out, "open/GATEOverflow/systems", f"{system}.json")) as handle:
        assert "edge" in json.load(handle)["system_type"]


def _untether_without_inferable(tmp_path):
    """closed/UntetherAI of the published v4.1 tree with h13_u3_slim's resnet50 multistream and offline
    removed from results/, measurements/ and compliance/ (edge system: both can be inferred)."""
    part = tmp_path / "part"
    shutil.copytree(os.path.join(real_tree("v4.1"), "closed", "UntetherAI"), part / "closed" / "UntetherAI",
                    symlinks=True)
    for kind in ("results", "measurements", "compliance"):
        for scen in ("multistream", "offline"):
            shutil.rmtree(part / "closed/UntetherAI" / kind / "h13_u3_slim/resnet50" / scen)
    return part


def test_real_v41_inferred_closed_results_pass_check(tmp_path):
    """What `mlpc infer` writes, `mlpc check` accepts: the inferred results' compliance folders are copies
    of the SingleStream ones and are judged as SingleStream runs (official J3 runs on the logs' scenario)."""
    out = tmp_path / "out"
    result = run("infer", str(_untether_without_inferable(tmp_path)), "--out", str(out), "--quiet")
    assert result.exit_code == 0, result.output
    checked = run("check", str(out), "--no-cache", "--quiet")
    assert checked.exit_code == 0, checked.output
    report = check(out)
    inferred = {r.scenario_dir: r for r in report.results if r.inferred}
    assert sorted(inferred) == ["multistream", "offline"] and all(r.valid for r in inferred.values())
    for code in ("CP006", "CP008", "CP020", "CP021", "CP022"):
        assert not findings(report, code), code


def test_real_v41_inferred_compliance_is_still_recomputed(tmp_path):
    """An inferred result's compliance copy is still recomputed: a TEST04 run made to look twice as fast as
    the submission run fails (CP006) and its verify file's PASS is contradicted (CP021)."""
    out = tmp_path / "out"
    assert run("infer", str(_untether_without_inferable(tmp_path)), "--out", str(out), "--quiet").exit_code == 0
    summary = out / "closed/UntetherAI/compliance/h13_u3_slim/resnet50/offline/TEST04/performance/run_1" \
                    "/mlperf_log_summary.txt"
    text = summary.read_text()
    assert "Early stopping 90th percentile estimate: 119668" in text
    summary.write_text(text.replace("percentile estimate: 119668", "percentile estimate: 59834"))
    report = check(out)
    offline = [r for r in report.results if r.scenario_dir == "offline"][0]
    assert not offline.valid
    assert [f.location.path for f in findings(report, "CP006")] == [os.path.relpath(summary, out)]
    assert len(findings(report, "CP021")) == 1


def test_unusable_inferred_value_is_a_warning_and_exit_1(tmp_path):
    """The smoke example's SingleStream run is too short for a p99 early-stopping estimate: a MultiStream
    result inferred from it would be 0 ms. The tree is still written, but infer says so and exits 1."""
    part = tmp_path / "part"
    shutil.copytree(os.path.join(REPO, "fixtures", "example_submission"), part, symlinks=True)
    sub = part / "closed" / "ExampleCo"
    for kind in ("results", "measurements", "compliance"):
        for scen in ("MultiStream", "Offline"):
            shutil.rmtree(sub / kind / "example_edge_system" / "resnet50" / scen, ignore_errors=True)
    out = tmp_path / "out"
    result = run("infer", str(part), "--out", str(out), "--round", "v4.1")
    assert result.exit_code == 1, result.output
    said = " ".join(result.stderr.split())
    assert ("warning: closed/ExampleCo/results/example_edge_system/resnet50/multistream: 0 Latency (ms)" in said
            and "not a usable result" in said), said
    assert "resnet50/offline: not a usable" not in said  # Offline from SingleStream has a value
    assert (out / "closed/ExampleCo/results/example_edge_system/resnet50/multistream").is_dir()
