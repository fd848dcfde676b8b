"""The stop-gap tree adapter: real trees agree with an independent parser and the official checker;
bad files become warnings, never tracebacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_audit import V41, V51, need, parse_real_tree

from checker.audit.tree_adapter import load_submissions, submissions_from_tree


def test_v41_matches_independent_parser():
    root = need(V41)
    warnings: list[str] = []
    ours = {s.id: s for s in submissions_from_tree(root, warnings.append)}
    theirs = {s.id: s for s in parse_real_tree(root)}
    assert set(ours) == set(theirs) and len(ours) == 9
    assert warnings == []
    for sid, t in theirs.items():
        o = ours[sid]
        for field in ("accelerator_model_name", "accelerators_per_node", "number_of_nodes",
                      "host_processor_model_name", "host_networking", "status", "division"):
            assert getattr(o, field) == getattr(t, field), (sid, field)
        got = {(r.model, r.scenario): (r.value, r.units, r.samples_per_second) for r in o.results
               if r.scenario in ("Offline", "Server")}
        want = {(r.model, r.scenario): (r.value, r.units, r.samples_per_second)
                for r in t.results}
        assert got == want, sid


def test_v41_values_and_power_match_official_verdicts():
    subs = {s.system_id: s for s in submissions_from_tree(need(V41))}
    val = {(s, r.model, r.scenario): r for s, x in subs.items() for r in x.results}
    # official v4.1 checker (v4.1-expected/verdicts.csv)
    assert val[("Orin_TRT", "gptj-99", "SingleStream")].value == pytest.approx(4176.62608)
    assert val[("H200-SXM-141GBx8_TRT", "llama2-70b-99", "Server")].value == 29228.2
    h13 = {k[2]: v for k, v in val.items() if k[0] == "h13_u3_slim"}
    assert h13["Offline"].power_metric == pytest.approx(398.329985, rel=1e-8)
    assert h13["SingleStream"].power_metric == pytest.approx(29.238987, rel=1e-7)
    assert h13["MultiStream"].power_metric == pytest.approx(61.316697, rel=1e-7)
    assert h13["MultiStream"].value == pytest.approx(0.212477)
    r760 = {k[2]: v for k, v in val.items() if k[0] == "r760_u6_slim"}
    assert r760["Server"].power_metric == pytest.approx(985.519135, rel=1e-8)
    assert r760["Server"].value == 309752
    assert not val[("H200-SXM-141GBx8_TRT", "gptj-99", "Offline")].power_measured


def test_v51_inferred_interactive_and_power():
    subs = {s.system_id: s for s in submissions_from_tree(need(V51), round_label="v5.1")}
    tri = next(s for k, s in subs.items() if k.startswith("TRIGKEY"))
    inf = {r.scenario: r for r in tri.results}
    assert not inf["SingleStream"].inferred and inf["MultiStream"].inferred
    assert inf["Offline"].inferred
    hpe = subs["HPE_Cray_XD670_H200_SXM_141GBx8_TRT"]
    inter = [r for r in hpe.results if r.scenario == "Interactive"]
    assert inter and not any(r.inferred for r in inter)
    assert {r.model: r.value for r in inter}["llama2-70b-99"] == 20432.1
    b200 = subs["SR680a_V3_B200SXMx8_TRT"]
    assert b200.results[0].power_metric == pytest.approx(7636.489583, rel=1e-8)
    assert hpe.round == "v5.1"


def _write(p: Path, text: str | bytes) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text if isinstance(text, bytes) else text.encode())


def _system(**kw):
    d = {"division": "closed", "submitter": "Acme", "status": "available",
         "system_type": "datacenter", "accelerator_model_name": "NVIDIA L40S",
         "accelerators_per_node": "4", "number_of_nodes": 1,
         "host_processor_model_name": "AMD EPYC", "host_processors_per_node": 2,
         "host_networking": "Ethernet"}
    d.update(kw)
    return json.dumps(d)


def test_bad_files_become_warnings(tmp_path):
    sub = tmp_path / "closed" / "Acme"
    _write(sub / "systems" / "good.json", _system())
    _write(sub / "systems" / "broken.json", b"{not json\xff")
    _write(sub / "systems" / "list.json", "[1, 2]")
    _write(sub / "systems" / "badcount.json", _system(number_of_nodes=-3))
    log = sub / "results" / "good" / "resnet50" / "Offline" / "performance" / "run_1"
    _write(log / "mlperf_log_detail.txt",
           ':::MLLOG {"key": "result_samples_per_second", "value": 1234.5}\n'
           ":::MLLOG {garbage\n\x00\xff\n"
           ':::MLLOG {"key": "effective_scenario", "value": "Offline"}\n')
    _write(sub / "results" / "good" / "resnet50" / "Server" / "performance" / "run_1" /
           "mlperf_log_detail.txt", ':::MLLOG {"key": "result_completed_samples_per_sec", '
                                    '"value": "NaN"}\n')
    (sub / "results" / "good" / "resnet50" / "Weird").mkdir(parents=True)
    (sub / "results" / "good" / "bert-99" / "Offline").mkdir(parents=True)
    warnings: list[str] = []
    subs = submissions_from_tree(tmp_path, warnings.append)
    assert [s.system_id for s in subs] == ["good"]
    good = subs[0]
    assert good.accelerators_per_node == 4 and good.accelerator_count == 4
    assert [(r.scenario, r.value) for r in good.results] == [("Offline", 1234.5)]
    text = "\n".join(warnings)
    for needle in ("broken.json", "list.json", "badcount.json", "Weird", "bert-99/Offline",
                   "no result value for Server"):
        assert needle in text, needle


def test_json_input_and_bad_json(tmp_path):
    good = tmp_path / "subs.json"
    good.write_text(json.dumps({"submissions": [{
        "division": "closed", "submitter": "A", "system_id": "x", "status": "available",
        "results": [{"model": "resnet50", "scenario": "Offline", "value": 5.0,
                     "units": "samples/s"}]}]}))
    subs = load_submissions(good)
    assert subs[0].id == "closed/A/x"
    bad = tmp_path / "bad.json"
    bad.write_text('{"submissions": [{"division": "closed", "surprise": 1}]}')
    warnings: list[str] = []
    assert load_submissions(bad, warnings.append) == []
    assert "not a valid submissions file" in warnings[0]


def test_missing_root_is_a_warning(tmp_path):
    warnings: list[str] = []
    assert submissions_from_tree(tmp_path / "nope", warnings.append) == []
    assert warnings
