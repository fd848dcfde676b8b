"""Audit inputs built from the engine's report (checker/audit/from_report.py) and the sources of the audit
commands (checker/audit/tree_adapter.py): real trees agree with an independent parser and the official
checker, and bad input becomes warnings, never tracebacks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers_audit import V41, V51, need, parse_real_tree

from checker.audit.from_report import submissions_from_report, submissions_from_summaries, units_of
from checker.audit.tree_adapter import check_round, load_submissions, submissions_from_tree
from checker.loaders.rules import load_rules
from checker.report import ResultSummary

REPO = Path(__file__).resolve().parents[2]
PL_FIXTURES = REPO / "fixtures" / "plausibility"


# ------------------------------------------------------------------ real trees


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
        got = {(r.model, r.scenario): (r.value, r.units) for r in o.results if r.scenario in ("Offline", "Server")}
        want = {(r.model, r.scenario): (r.value, r.units) for r in t.results}
        assert got == want, sid


def test_v41_audit_view_is_what_mlpc_check_sees():
    checked = check_round(need(V41), round_name="v4.1")
    report, inputs = checked.report, checked.inputs
    valid = {r.id for r in report.results if r.valid}
    kept = set(inputs.result_ids.values())
    assert kept == valid  # every valid result, nothing else (46 results, 42 valid)
    assert len(kept) == 42
    invalid = [n for n in inputs.notes if "invalid" in n]
    assert len(invalid) == 4 and all("stable-diffusion-xl" in n for n in invalid)
    subs = {s.system_id: s for s in inputs.submissions}
    h200 = {(r.model, r.scenario): r for r in subs["H200-SXM-141GBx8_TRT"].results}
    assert ("stable-diffusion-xl", "Offline") not in h200
    llama = h200[("llama2-70b-99", "Server")]
    # v4.1 labels the value "Queries/s"; it is result_completed_tokens_per_second
    assert llama.value == 29228.2 and llama.units == "tokens/s"
    assert llama.samples_per_second == pytest.approx(29228.2 / 291.3)
    assert {r.model for r in subs["X210M7-1-node-2S-EMR-PyTorch"].results} >= {"resnet", "gptj-99", "3d-unet-99.9"}
    assert all(s.round == "v4.1" for s in inputs.submissions)


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
    checked = check_round(need(V51), round_name="v5.1")
    subs = {s.system_id: s for s in checked.inputs.submissions}
    tri = next(s for k, s in subs.items() if k.startswith("TRIGKEY"))
    inf = {r.scenario: r for r in tri.results}
    assert not inf["SingleStream"].inferred and inf["MultiStream"].inferred and inf["Offline"].inferred
    assert inf["MultiStream"].units == "ms" and inf["Offline"].units == "samples/s"
    hpe = subs["HPE_Cray_XD670_H200_SXM_141GBx8_TRT"]
    inter = {r.model: r for r in hpe.results if r.scenario == "Interactive"}
    assert inter and not any(r.inferred for r in inter.values())
    assert inter["llama2-70b-99"].value == 20432.1 and inter["llama2-70b-99"].units == "tokens/s"
    assert inter["llama3.1-8b"].units == "tokens/s"  # labelled "Queries/s" by the round file
    b200 = subs["SR680a_V3_B200SXMx8_TRT"]
    assert b200.results[0].power_metric == pytest.approx(7636.489583, rel=1e-8)
    assert hpe.round == "v5.1"
    # alias folders get the canonical model name in closed, the folder name in open
    intel = subs["1-node-4x-BMG-Pro-B60-Dual"]
    assert {r.model for r in intel.results} == {"llama3.1-8b"}
    assert {r.model for r in subs[next(k for k in subs if k.startswith("xe9680"))].results} == {"llama3_1-70b-fp8_dyn"}


# ------------------------------------------------------------------ constructed summaries


def _summary(system="s", model="resnet50", scenario="Offline", value=100.0, **kw):
    base = dict(id=f"closed/A/results/{system}/{model}/{scenario}", division="closed", submitter="A", system=system,
                model=model, mlperf_model="resnet" if model == "resnet50" else model, scenario=scenario,
                scenario_dir=scenario, valid=True, value=value, unit="Samples/s", inferred=False, has_power=False,
                system_fields=(("accelerator_model_name", "X"), ("accelerators_per_node", "4"), ("status", "available")))
    base.update(kw)
    return ResultSummary(**base)


def test_grouping_units_and_ids():
    rules = load_rules("v5.1")
    rows = [_summary(), _summary(scenario="SingleStream", value=0.5, unit="Latency (ms)"),
            _summary(model="llama2-70b-99", value=3000.0, accuracy=(("TOKENS_PER_SAMPLE", "300"),)),
            _summary(scenario="MultiStream", value=4.0, inferred=True),
            _summary("t", value=None), _summary("t", model="bert-99", value=5.0, valid=False)]
    built = submissions_from_summaries(rows, rules)
    [s] = built.submissions  # system t has no valid result
    assert s.id == "closed/A/s" and s.accelerator_count == 4
    units = {(r.model, r.scenario): r.units for r in s.results}
    assert units == {("resnet", "Offline"): "samples/s", ("resnet", "SingleStream"): "ms",
                     ("llama2-70b-99", "Offline"): "tokens/s", ("resnet", "MultiStream"): "ms"}
    llama = next(r for r in s.results if r.model == "llama2-70b-99")
    assert llama.samples_per_second == pytest.approx(10.0)
    assert built.result_id(s, llama) == "closed/A/results/s/llama2-70b-99/Offline"
    assert any("no valid result" in n for n in built.notes) and any("invalid" in n for n in built.notes)
    everything = submissions_from_summaries(rows, rules, valid_only=False)
    assert {x.system_id for x in everything.submissions} == {"s", "t"}
    assert units_of(_summary(scenario="Server", inferred=True), rules) is None


def test_network_systems_carry_their_networking():
    fields = (("accelerator_model_name", "X"), ("accelerators_per_node", 1), ("is_network", "true"),
              ("network_type", "Ethernet"), ("network_speed_mbit", 100000), ("status", "available"))
    [s] = submissions_from_summaries([_summary(system_fields=fields, division="network",
                                               id="network/A/results/s/resnet50/Offline")],
                                     load_rules("v5.1")).submissions
    assert s.is_network and s.network_config == {"network_speed_mbit": "100000", "network_type": "Ethernet"}


def test_bad_system_fields_are_notes_not_crashes():
    odd = (("accelerators_per_node", "N/A"), ("number_of_nodes", -2), ("status", None))
    built = submissions_from_summaries([_summary(system_fields=odd)], load_rules("v4.1"))
    assert built.submissions == () and any("unusable system description" in n for n in built.notes)
    dup = [_summary(), _summary(model="resnet50-copy", mlperf_model="resnet",
                                id="closed/A/results/s/resnet50-copy/Offline")]
    built = submissions_from_summaries(dup, load_rules("v4.1"))
    assert len(built.submissions[0].results) == 1 and any("already given" in n for n in built.notes)


def test_report_round_label():
    checked = check_round(PL_FIXTURES / "PL003")
    assert checked.rules.round == "v4.1" and "seeds" in checked.round_reason
    again = submissions_from_report(checked.report, checked.rules)
    assert [s.id for s in again.submissions] == [s.id for s in checked.inputs.submissions]
    assert {s.round for s in again.submissions} == {"v4.1"}


# ------------------------------------------------------------------ sources and bad input


def test_json_input_and_bad_json(tmp_path):
    good = tmp_path / "subs.json"
    good.write_text(json.dumps({"submissions": [{
        "division": "closed", "submitter": "A", "system_id": "x", "status": "available",
        "results": [{"model": "resnet50", "scenario": "Offline", "value": 5.0, "units": "samples/s"}]}]}))
    assert load_submissions(good)[0].id == "closed/A/x"
    for name, content in (("bad.json", '{"submissions": [{"division": "closed", "surprise": 1}]}'),
                          ("broken.json", b"{not json\xff"), ("deep.json", "[" * 5000 + "]" * 5000),
                          ("bin.json", b"\x00\x01")):
        p = tmp_path / name
        p.write_bytes(content if isinstance(content, bytes) else content.encode())
        warnings: list[str] = []
        assert load_submissions(p, warnings.append) == []
        assert "not a valid submissions file" in warnings[0], name
    dup = tmp_path / "dup.json"  # a key written twice: the last value is used, and the warning says so
    dup.write_text('{"submissions": [{"division": "closed"}], "submissions": []}')
    warnings = []
    assert load_submissions(dup, warnings.append) == []
    assert warnings == [f"{dup}: key 'submissions' written 2 times in the object at '/'; the last value is used"]


def test_unusable_trees_are_warnings(tmp_path):
    warnings: list[str] = []
    assert submissions_from_tree(tmp_path / "nope", warnings.append) == []
    assert load_submissions(tmp_path, warnings.append) == []  # no logs: round not detectable
    root = tmp_path / "copy"
    shutil.copytree(PL_FIXTURES / "PL001", root)
    assert load_submissions(root, warnings.append, round_name="v9.9") == []
    text = "\n".join(warnings)
    assert "nope: no such file or directory" in text and "cannot detect the round" in text and "v9.9" in text


def test_garbage_tree_is_checked_not_crashed(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(PL_FIXTURES / "PL003", root)
    (root / "closed/Acme/systems/h200_a.json").write_bytes(b"{not json\xff")
    (root / "closed/Acme/systems/h200_b.json").write_text(json.dumps({"accelerators_per_node": [1], "status": 3}))
    log = root / "closed/Acme/results/h200_c/gptj-99/Offline/performance/run_1/mlperf_log_detail.txt"
    log.write_bytes(log.read_bytes()[:500] + b"\x00\xff garbage")
    checked = check_round(root)
    ids = {s.system_id for s in checked.inputs.submissions}
    assert ids <= {"h200_d", "h200_c", "h200_b"} and "h200_d" in ids
    assert not [f for f in checked.report.findings if f.code == "TL001"]
