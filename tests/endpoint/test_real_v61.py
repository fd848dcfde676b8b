"""The published v6.1 subset (../shared/real_submissions/v6.1): detection, verdicts, values, and the edits a
submitter hoping for a better number would make to the real endpoint files.

Decided for the HPE qwen3.6-27b result: its run recorded seeds 42/42 (result_summary.json run_config)
while its config.yaml, edited after the run, shows the round's seeds. mlpc judges the seeds the run
recorded (EP007, error) and reports the edited configuration (EP008, error): the result is invalid by the
round's rules, a deliberate difference from the official checker, which read the edited config.yaml.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.pipeline import check_tree
from checker.loaders.detect import detect_round
from checker.loaders.rules import load_rules
from tests.conftest import real_tree

RULES = load_rules("v6.1")
NV = "closed/NVIDIA/results/VR200-NVL72_GR200-288GB_aarch64x72_TRT"
HPE = "closed/HPE/results/HPE_PROLIANT_DL345_GEN12_RTX_PRO_4500_PCIE_32GBx4_AGENTIC/qwen3.6-27b/SingleStream"
DELL = "closed/Dell/results/XE9712x18/wan-2.2-t2v-a14b"
QNA = "closed/Intel/results/1-node-2S-Xeon_6787P/e2e-rag-qna/Offline"
# what this copy lacks (v6.1-expected/modifications.json) and the finding each absence gives; ST017 follows
# on the model (its scenario no longer counts as run)
MISSING_FILE_FINDINGS = {f"{DELL}/Offline": {"MS003"}, f"{DELL}/SingleStream": {"MS003"},
                         QNA: {"ST020", "AC005"}}
HPE_SEED_FINDINGS = {"EP007", "EP008"}


@pytest.fixture(scope="module")
def v61():
    return real_tree("v6.1")


@pytest.fixture(scope="module")
def report(v61):
    return check_tree(v61, RULES)


def _expected(v61):
    with open(os.path.join(os.path.dirname(v61), "v6.1-expected", "published_rows.json")) as handle:
        return json.load(handle)


def test_cli_detects_v61_and_finishes(v61):
    result = CliRunner().invoke(app, ["check", v61, "--format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code in (0, 1)
    data = json.loads(result.output)
    assert data["round"] == "v6.1"
    assert detect_round(v61)[0] == "v6.1"


def test_all_fifteen_valid_except_missing_files_and_the_hpe_seeds(v61, report):
    assert len(report.results) == 15
    errors = {}
    for f in report.findings:
        if f.severity.value == "error":
            errors.setdefault(f.result_id, set()).add(f.code)
    for r in report.results:
        mine = set().union(*(codes for scope, codes in errors.items() if r.id == scope or r.id.startswith(scope + "/")))
        model_level = errors.get(r.id.rsplit("/", 1)[0], set())
        if r.id == HPE:
            assert not r.valid and mine == HPE_SEED_FINDINGS | {"ST017"}, mine
        elif r.id in MISSING_FILE_FINDINGS:
            assert not r.valid and mine - {"ST017"} == MISSING_FILE_FINDINGS[r.id], (r.id, mine)
        else:
            assert r.valid and not mine, (r.id, mine)
            assert model_level <= set(), (r.id, model_level)


def test_no_tool_errors_and_the_layouts_are_named(report, v61):
    assert not [f for f in report.findings if f.code.startswith("TL")]
    tree_layouts = {}
    from checker.loaders.tree import load_tree
    for result in load_tree(v61, RULES).results:
        if result.endpoint is not None:
            tree_layouts[result.rel] = result.endpoint.layout
    assert len(tree_layouts) == 13
    assert tree_layouts[HPE].startswith("publish script")
    assert "config.yaml at accuracy/config.yaml" in tree_layouts[
        "closed/Lambda/results/GB300-NVL4_GB300-288GB_aarch64x4/qwen3-vl-235b-a22b/Server"]


def test_reports_name_the_layout_found(v61, report):
    """The layout is visible in normal output: the JSON report's `layout` of each endpoint result (absent for
    LoadGen results) and the text report's `files` column."""
    layouts = {r["id"]: r.get("layout") for r in json.loads(
        CliRunner().invoke(app, ["check", v61, "--format", "json"]).output)["results"]}
    assert layouts[HPE] == "publish script: performance/run_1/"
    assert layouts[f"{NV}/deepseek-r1/Offline"] == "official: performance/"
    assert layouts["closed/Lambda/results/GB300-NVL4_GB300-288GB_aarch64x4/qwen3-vl-235b-a22b/Server"] == \
        "official: performance/, config.yaml at accuracy/config.yaml"
    assert layouts[QNA] is None and sum(v is not None for v in layouts.values()) == 13
    from checker.reporters.text import render
    text = render(report, width=220, details=True)
    header = next(line for line in text.splitlines() if "verdict" in line)
    assert header.split()[-2:] == ["files", "┃"]
    hpe_line = next(line for line in text.splitlines() if "HPE_PROLIANT" in line)
    assert "publish script: performance/run_1/" in hpe_line
    assert "LoadGen logs" in next(line for line in text.splitlines() if "e2e-rag-qna" in line)


def test_values_and_units_are_the_published_ones(v61, report):
    rows = _expected(v61)
    by_id = {r.id: r for r in report.results}
    for rel, row in rows.items():
        ours = by_id[rel]
        assert ours.unit == row["Units"], rel
        assert ours.value == pytest.approx(float(row["Result"]), rel=1e-9), rel


def test_published_table_models_scenarios_and_units_are_known(v61):
    with open(os.path.join(os.path.dirname(v61), "v6.1-expected", "summary.json")) as handle:
        table = list(json.load(handle).values())  # {"0": row, "1": row, ...}
    assert len(table) == 492
    from checker.naming import canonical_scenario, mlperf_model
    from checker.results import unit_for
    unknown = set()
    for row in table:
        model = mlperf_model(row["Model"], RULES)
        scenario = canonical_scenario(row["Scenario"], RULES)
        if model not in RULES.models or scenario is None:
            unknown.add((row["Model"], row["Scenario"]))
            continue
        unit = unit_for(RULES, model, scenario)
        if row["Units"] != unit and not (row["Units"] in ("Watts", "millijoules")):
            unknown.add((row["Model"], row["Scenario"], row["Units"], unit))
    assert not unknown, sorted(unknown)


# ---- edits to copies of real endpoint files ----------------------------------------------------------

def _copy(v61, tmp_path, submitter="closed/NVIDIA"):
    root = tmp_path / "tree"
    shutil.copytree(os.path.join(v61, submitter), root / submitter)
    return root


def _json(root, rel, change):
    path = root / rel
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def _codes(root):
    report = check_tree(str(root), RULES)
    return {f.code for f in report.findings if f.severity.value in ("error", "warning")}, report


def _baseline(v61, tmp_path, submitter="closed/NVIDIA"):
    return _codes(_copy(v61, tmp_path / "base", submitter))[0]


def _summary(model, scenario):
    return f"{NV}/{model}/{scenario}/performance/result_summary.json"


def _shorter(d):
    d["duration_ns"] = 400 * 10**9
    d["qps"] = d["n_samples_completed"] / 400.0
    d["tps"] = d["output_sequence_lengths"]["total"] / 400.0


EDITS = {
    "duration": (_summary("deepseek-r1", "Offline"), _shorter, "EP005"),
    "failures": (_summary("deepseek-r1", "Offline"), lambda d: d.update(n_samples_failed=7), "EP004"),
    "interruption": (_summary("deepseek-r1", "Server"), lambda d: d.update(state="interrupted", complete=False), "EP003"),
    "in-flight": (_summary("deepseek-r1", "Server"), lambda d: d.update(n_samples_issued=d["n_samples_issued"] + 50), "EP003"),
    "seeds": (_summary("deepseek-r1", "Offline"),
              lambda d: d["run_config"].update(scheduler_random_seed=42, dataloader_random_seed=42), "EP007"),
    "accuracy": (f"{NV}/deepseek-r1/Offline/accuracy/accuracy_results.json",
                 lambda d: d["accuracy_scores"][0].update(score=80.1), "EP010"),
    "accuracy-qwen3-vl-interactive": (f"{NV}/qwen3-vl-235b-a22b/Interactive/accuracy/accuracy_results.json",
                                      lambda d: d["accuracy_scores"][0].update(score=0.7790), "EP010"),
    "accuracy-qwen3-vl-offline": (f"{NV}/qwen3-vl-235b-a22b/Offline/accuracy/accuracy_results.json",  # above the
                                  lambda d: d["accuracy_scores"][0].update(score=0.7810), "EP010"),  # Interactive target
    "dataset coverage": (f"{NV}/qwen3-vl-235b-a22b/Interactive/accuracy/accuracy_results.json",
                         lambda d: d["accuracy_scores"][0].update(total_samples=4000, unit_samples=4000), "EP012"),
    "ttft percentile": (_summary("deepseek-r1", "Interactive"),
                        lambda d: d["ttft"]["early_stopping_percentiles"].update({"99.0": 1.6e9}), "EP009"),
    "tpot percentile": (_summary("deepseek-r1", "Server"),
                        lambda d: d["tpot"]["early_stopping_percentiles"].update({"99.0": 8.1e7}), "EP009"),
    "latency bound": (_summary("qwen3-vl-235b-a22b", "Interactive"),
                      lambda d: d["latency"]["early_stopping_percentiles"].update({"99.0": 1.6e9}), "EP009"),
    "es disabled": (_summary("deepseek-r1", "Interactive"),
                    lambda d: d["ttft"].pop("early_stopping_percentiles"), "EP009"),
    "qps": (_summary("qwen3-vl-235b-a22b", "Offline"), lambda d: d.update(qps=d["qps"] * 1.05), "EP013"),
    "tps": (_summary("deepseek-r1", "Server"), lambda d: d.update(tps=d["tps"] * 1.05), "EP013"),
    # qps over the LoadGen-compatible window: a halved run duration no longer holds that window
    "duration below the legacy window": (_summary("deepseek-r1", "Server"),
                                         lambda d: d.update(duration_ns=d["duration_ns"] // 2), "EP013"),
    # the gated TTFT estimate lowered below its own percentile, still within the bound
    "ttft estimate below its percentile": (_summary("deepseek-r1", "Interactive"), lambda d: d["ttft"][
        "early_stopping_percentiles"].update({"99.0": d["ttft"]["percentiles"]["99.0"] * 0.9}), "EP018"),
    "tpot percentiles out of order": (_summary("deepseek-r1", "Server"), lambda d: d["tpot"]["percentiles"].update(
        {"99.0": d["tpot"]["percentiles"]["90.0"] * 0.9}), "EP018"),
    "completed with qps": (_summary("qwen3-vl-235b-a22b", "Offline"),  # consistent edit, caught by the snapshot
                           lambda d: d.update(n_samples_completed=int(d["n_samples_completed"] * 1.1),
                                              n_samples_issued=int(d["n_samples_issued"] * 1.1),
                                              qps=d["qps"] * 1.1), "EP013"),
}


@pytest.mark.parametrize("name", sorted(EDITS))
def test_edit_of_real_endpoint_file_is_caught(v61, tmp_path, name):
    rel, change, code = EDITS[name]
    before = _baseline(v61, tmp_path)
    assert code not in before
    root = _copy(v61, tmp_path / "edited")
    _json(root, rel, change)
    after, _ = _codes(root)
    assert code in after, (name, after)


def test_truncated_json_is_a_finding_not_a_crash(v61, tmp_path):
    root = _copy(v61, tmp_path)
    path = root / _summary("deepseek-r1", "Offline")
    path.write_text(path.read_text()[:3000])
    codes, report = _codes(root)
    assert "EP001" in codes and not [f for f in report.findings if f.code.startswith("TL")]


def test_mistyped_field_is_a_finding_with_its_pointer(v61, tmp_path):
    root = _copy(v61, tmp_path)
    _json(root, _summary("deepseek-r1", "Offline"), lambda d: d.update(duration_ns="5124s"))
    report = check_tree(str(root), RULES)
    found = [f for f in report.findings if f.code == "EP001"]
    assert found and found[0].location.pointer == "/duration_ns"


def test_missing_config_yaml(v61, tmp_path):
    root = _copy(v61, tmp_path)
    (root / NV / "deepseek-r1" / "Server" / "config.yaml").unlink()
    codes, _ = _codes(root)
    assert "EP002" in codes


def test_missing_server_and_interactive(v61, tmp_path):
    root = _copy(v61, tmp_path)
    for scenario in ("Server", "Interactive"):
        shutil.rmtree(root / NV / "deepseek-r1" / scenario)
    report = check_tree(str(root), RULES)
    st017 = [f for f in report.findings if f.code == "ST017"]
    assert st017 and "one of Server, Interactive" in st017[0].message


def _audit_edit(root, change_json=None, faster=False):
    rel = f"{'closed/Dell/results/XE9712x18/wan-2.2-t2v-a14b'}/Offline/audit"
    if change_json:
        _json(root, f"{rel}/audit_output_caching_test.json", change_json)
    if faster:  # the audited phase served from a cache: it ran twice as fast
        def quicker(d):
            d["duration_ns"] //= 2
            d["qps"] *= 2
        _json(root, f"{rel}/output_caching/performance/result_summary.json", quicker)


@pytest.mark.parametrize("edit", ["numbers", "verdict", "cached phase"])
def test_audit_is_recomputed_from_its_sub_runs(v61, tmp_path, edit):
    assert "EP014" not in _baseline(v61, tmp_path, "closed/Dell")
    root = _copy(v61, tmp_path / "edited", "closed/Dell")
    if edit == "numbers":
        _audit_edit(root, lambda d: d.update(audit_qps=d["audit_qps"] * 0.8))
    elif edit == "verdict":
        _audit_edit(root, lambda d: d.update(passed=False))
    else:
        _audit_edit(root, faster=True)
    codes, _ = _codes(root)
    assert "EP014" in codes


def test_wan_without_audit_file(v61, tmp_path):
    root = _copy(v61, tmp_path, "closed/Dell")
    shutil.rmtree(root / DELL / "SingleStream" / "audit")
    report = check_tree(str(root), RULES)
    assert any(f.code == "EP014" and "missing" in f.message for f in report.findings)


def _verdicts(report):
    return sorted((r.id.lower(), r.valid, r.value) for r in report.results), \
        sorted((f.code, f.message.lower()) for f in report.findings)


def test_lowercase_folder_crlf_and_a_notes_file_change_nothing(v61, tmp_path):
    before = check_tree(str(_copy(v61, tmp_path / "a")), RULES)
    root = _copy(v61, tmp_path / "b")
    (root / NV / "deepseek-r1" / "Offline").rename(root / NV / "deepseek-r1" / "offline")
    for path in (root / NV).rglob("*"):
        if path.is_file() and path.suffix in (".json", ".yaml", ".md", ".txt"):
            path.write_bytes(path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    (root / NV / "qwen3-vl-235b-a22b" / "Server" / "NOTES.md").write_text("Run on the second rack.\n")
    after = check_tree(str(root), RULES)
    assert _verdicts(after) == _verdicts(before)


# ---- LoadGen results of v6.1 (Intel e2e-rag) -----------------------------------------------------------

INTEL = "closed/Intel/results/1-node-2S-Xeon_6787P"


def test_e2e_rag_values_units_and_duration_exemption(v61, report):
    by_id = {r.id: r for r in report.results}
    qna, db = by_id[f"{INTEL}/e2e-rag-qna/Offline"], by_id[f"{INTEL}/e2e-rag-db/Offline"]
    assert (qna.unit, db.unit) == ("Tasks/s", "Samples/s")
    assert float(dict(qna.accuracy)["E2E_ACCURACY"]) == pytest.approx(35.9223)
    assert float(dict(db.accuracy)["E2E_ACCURACY"]) == pytest.approx(98.1952)
    assert not [f for f in report.findings if f.code == "PF009" and "e2e-rag" in f.message]


def test_loadgen_summary_saying_invalid_is_an_error(v61, tmp_path):
    root = _copy(v61, tmp_path, "closed/Intel")
    run = root / INTEL / "e2e-rag-db" / "Offline" / "performance" / "run_1"
    detail = run / "mlperf_log_detail.txt"
    detail.write_text(detail.read_text().replace('"key": "result_validity", "value": "VALID"',
                                                 '"key": "result_validity", "value": "INVALID"'))
    summary = run / "mlperf_log_summary.txt"
    summary.write_text(summary.read_text().replace("Result is : VALID", "Result is : INVALID"))
    report = check_tree(str(root), RULES)
    assert any(f.code == "PF001" and f.severity.value == "error" for f in report.findings)
    assert not {r.id: r for r in report.results}[f"{INTEL}/e2e-rag-db/Offline"].valid


def test_e2e_rag_db_accuracy_below_target(v61, tmp_path):
    root = _copy(v61, tmp_path, "closed/Intel")
    acc = root / INTEL / "e2e-rag-db" / "Offline" / "accuracy" / "accuracy.txt"
    acc.write_text(acc.read_text().replace("Accuracy: 98.1952", "Accuracy: 97.5000", 1))
    report = check_tree(str(root), RULES)
    assert not {r.id: r for r in report.results}[f"{INTEL}/e2e-rag-db/Offline"].valid
    assert any(f.code.startswith("AC") and "E2E_ACCURACY" in f.message for f in report.findings)


def test_a_dropped_model_names_the_round_that_dropped_it(v61, tmp_path):
    root = _copy(v61, tmp_path, "closed/Intel")
    (root / INTEL / "e2e-rag-db").rename(root / INTEL / "llama2-70b-99")
    report = check_tree(str(root), RULES)
    st014 = [f for f in report.findings if f.code == "ST014"]
    assert st014 and "dropped in round v6.1" in st014[0].message


def test_qwen3_vl_targets_per_scenario():
    model = RULES.models["qwen3-vl-235b-a22b"]
    assert [t.target for t in model.targets_for("Interactive")] == [0.779922]
    assert [t.target for t in model.targets_for("Offline")] == [0.782397]
    assert [t.target for t in model.targets_for("Server")] == [0.782397]


def test_integer_percentile_keys_are_read_like_decimal_ones(v61, tmp_path):
    root = _copy(v61, tmp_path)

    def integer_keys(d):
        for name in ("ttft", "tpot", "latency"):
            es = d[name]["early_stopping_percentiles"]
            d[name]["early_stopping_percentiles"] = {k[:-2] if k.endswith(".0") else k: v for k, v in es.items()}
    _json(root, _summary("deepseek-r1", "Interactive"), integer_keys)
    codes, _ = _codes(root)
    assert "EP009" not in codes
    _json(root, _summary("deepseek-r1", "Interactive"), lambda d: d["ttft"]["early_stopping_percentiles"].update({"99": 1.6e9}))
    codes, _ = _codes(root)
    assert "EP009" in codes


def test_the_fourth_layout_everything_under_performance(v61, tmp_path):
    """The layout another open submitter used: config.yaml and result_summary.json both in performance/."""
    root = _copy(v61, tmp_path, "open/Krai")
    scenario = root / "open/Krai/results/h200/qwen3-vl-235b-a22b/Offline"
    (scenario / "config.yaml").rename(scenario / "performance" / "config.yaml")
    report = check_tree(str(root), RULES)
    assert [r.valid for r in report.results] == [True]
    assert not [f for f in report.findings if f.code.startswith(("EP", "TL"))]
    from checker.loaders.tree import load_tree
    layout = load_tree(str(root), RULES).results[0].endpoint.layout
    assert "config.yaml at performance/config.yaml" in layout
