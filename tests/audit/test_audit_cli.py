"""The `audit` typer sub-app: eligible / select / replay / nominate."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers_audit import V41, V51, need, res, sub
from typer.testing import CliRunner

from checker.commands.audit_select import app

runner = CliRunner()


def _round_file(tmp_path, subs, name="round.json"):
    p = tmp_path / name
    p.write_text(json.dumps({"submissions": [s.model_dump(mode="json") for s in subs]}))
    return p


def test_eligible_select_replay_on_json(tmp_path):
    cur = _round_file(tmp_path, [sub("A", "x"), sub("B", "y", accelerator_model_name="NVIDIA L40S"),
                                 sub("C", "z", division="open")])
    prev = _round_file(tmp_path, [sub("A", "old")], "prev.json")
    out = runner.invoke(app, ["eligible", str(cur), "--previous", str(prev)])
    assert out.exit_code == 0, out.output
    assert "excluded-equivalent  closed/A/x" in out.output
    assert "1 eligible of 3 submissions" in out.output
    log = tmp_path / "draw.json"
    out = runner.invoke(app, ["select", str(cur), "--previous", str(prev), "--seed", "v5.1",
                              "--log", str(log)])
    assert out.exit_code == 0, out.output
    data = json.loads(log.read_text())
    assert data["result"]["submission_id"] == "closed/B/y" and data["seed"] == "v5.1"
    out = runner.invoke(app, ["replay", str(log)])
    assert out.exit_code == 0 and "replay ok: closed/B/y" in out.output
    data["result"]["submission_id"] = "closed/A/x"
    log.write_text(json.dumps(data))
    out = runner.invoke(app, ["replay", str(log)])
    assert out.exit_code == 1


def test_integer_seed_and_json_rows(tmp_path):
    cur = _round_file(tmp_path, [sub("A", "x"), sub("B", "y")])
    out = runner.invoke(app, ["select", str(cur), "--seed", "42"])
    assert out.exit_code == 0
    body = out.stdout[: out.stdout.rindex("}") + 1]
    assert json.loads(body)["seed"] == 42
    out = runner.invoke(app, ["eligible", str(cur), "--json"])
    assert [r["verdict"] for r in json.loads(out.stdout)] == ["eligible", "eligible"]


def test_refusals_exit_2(tmp_path):
    cur = _round_file(tmp_path, [sub("A", "x", division="open")])
    out = runner.invoke(app, ["select", str(cur), "--seed", "1"])
    assert out.exit_code == 2 and "empty" in out.output
    out = runner.invoke(app, ["eligible", str(tmp_path / "missing")])
    assert out.exit_code == 2
    out = runner.invoke(app, ["replay", str(tmp_path / "missing.json")])
    assert out.exit_code == 2


def test_nominate_json(tmp_path):
    cur = _round_file(tmp_path, [sub("A", "x", res("resnet50", "Offline", 3e6)),
                                 sub("B", "y", res("resnet50", "Offline", 1e3),
                                     accelerator_model_name="Mystery X1")])
    out = runner.invoke(app, ["nominate", str(cur), "--json"])
    assert out.exit_code == 0
    data = json.loads(out.stdout)
    assert data["results"][0]["submission_id"] == "closed/A/x"
    assert data["results"][1]["status"] == "no-assessment"
    rows = data["submissions"]
    assert [r["submission_id"] for r in rows] == ["closed/A/x", "closed/B/y"] and rows[0]["rank"] == 1
    assert rows[0]["score"] > 1 and "performance outside expectations" in rows[0]["reason"]
    assert rows[1]["score"] is None and "no assessment" in rows[1]["reason"]


# ------------------------------------------------------------------ trees, through the engine

REPO = Path(__file__).resolve().parents[2]
PL_FIXTURES = REPO / "fixtures" / "plausibility"


def _constructed_round(tmp_path) -> Path:
    """Four identical 1xH200 closed systems (one Preview, one 1.5x its peers) plus an open copy."""
    root = tmp_path / "round"
    shutil.copytree(PL_FIXTURES / "PL003", root)
    shutil.copytree(root / "closed" / "Acme", root / "open" / "Acme")
    for system in (root / "open" / "Acme" / "systems").glob("*.json"):
        data = json.loads(system.read_text())
        data["division"] = "open"
        system.write_text(json.dumps(data, indent=2))
    preview = root / "closed" / "Acme" / "systems" / "h200_b.json"
    data = json.loads(preview.read_text())
    data["status"] = "preview"
    preview.write_text(json.dumps(data, indent=2))
    return root


def test_constructed_tree_eligible_lists_closed_available_only(tmp_path):
    root = _constructed_round(tmp_path)
    out = runner.invoke(app, ["eligible", str(root), "--json"])
    assert out.exit_code == 0, out.output
    rows = {r["submission_id"]: r["verdict"] for r in json.loads(out.stdout)}
    assert {k for k, v in rows.items() if v == "eligible"} == {"closed/Acme/h200_a", "closed/Acme/h200_c",
                                                                "closed/Acme/h200_d"}
    assert rows["closed/Acme/h200_b"] == "not-auditable" and len(rows) == 8
    assert all(v == "not-auditable" for k, v in rows.items() if k.startswith("open/"))
    assert "round v4.1" in out.stderr


def test_constructed_tree_select_is_reproducible(tmp_path):
    root = _constructed_round(tmp_path)
    picks = []
    for i in range(2):
        log = tmp_path / f"draw{i}.json"
        out = runner.invoke(app, ["select", str(root), "--seed", "mlperf-v4.1", "--log", str(log)])
        assert out.exit_code == 0, out.output
        picks.append(json.loads(log.read_text()))
    assert picks[0] == picks[1]
    assert picks[0]["submissions"] == {"Acme": ["closed/Acme/h200_a", "closed/Acme/h200_c", "closed/Acme/h200_d"]}
    assert runner.invoke(app, ["replay", str(tmp_path / "draw0.json")]).exit_code == 0
    seen = {json.loads(runner.invoke(app, ["select", str(root), "--seed", str(s)]).stdout.rsplit("}", 1)[0] + "}")
            ["result"]["submission_id"] for s in range(12)}
    assert len(seen) > 1  # different seeds reach different submissions


def test_constructed_tree_previous_round_tree_with_audited(tmp_path):
    root = _constructed_round(tmp_path)
    prev = PL_FIXTURES / "PL001"  # one 1xH200 system with the same CPU, NIC and accelerator configuration
    out = runner.invoke(app, ["eligible", str(root), "--previous", str(prev), "--audited", "closed/Acme/h200_a",
                              "--json"])
    assert out.exit_code == 0, out.output
    rows = {r["submission_id"]: r for r in json.loads(out.stdout)}
    assert {k for k, r in rows.items() if r["verdict"] == "excluded-equivalent"} == {
        "closed/Acme/h200_a", "closed/Acme/h200_c", "closed/Acme/h200_d"}
    assert rows["closed/Acme/h200_c"]["matched_audit"] == "closed/Acme/h200_a"
    out = runner.invoke(app, ["eligible", str(root), "--previous", str(prev), "--audited", "closed/Acme/nope"])
    assert out.exit_code == 2 and "not a submission" in out.output and "Traceback" not in out.output
    out = runner.invoke(app, ["eligible", str(root), "--previous", str(prev)])
    assert out.exit_code == 0 and "treated as audited" in out.stderr
    out = runner.invoke(app, ["select", str(root), "--previous", str(prev), "--seed", "1"])
    assert out.exit_code == 2 and "empty" in out.stderr


def test_constructed_tree_nominate_ranks_the_outlier_first(tmp_path):
    root = _constructed_round(tmp_path)
    out = runner.invoke(app, ["nominate", str(root)])
    assert out.exit_code == 0, out.output
    first = out.stdout.splitlines()[0]
    assert first.startswith("#1 score 1.15") and "closed/Acme/h200_d" in first
    assert "performance outside expectations: gptj-99 Offline warning: above-peers" in out.stdout
    assert "R 1.50 (n=3)" in out.stdout and "open/" not in out.stdout
    out = runner.invoke(app, ["nominate", str(root), "--all-divisions", "--json"])
    data = json.loads(out.stdout)
    assert {r["division"] for r in data["submissions"]} == {"closed", "open"}
    assert data["new_accelerators"] == []
    out = runner.invoke(app, ["nominate", str(root), "--reference", str(PL_FIXTURES / "PL005"), "--json"])
    assert json.loads(out.stdout)["new_accelerators"] == []
    out = runner.invoke(app, ["nominate", str(PL_FIXTURES / "PL005"), "--reference", str(root), "--json"])
    rows = json.loads(out.stdout)["submissions"]
    assert [r["new_accelerator"] for r in rows] == [False, True] and rows[1]["accelerator"] == "Mystery X1"


def test_unusable_tree_exits_2_without_traceback(tmp_path):
    (tmp_path / "empty").mkdir()
    for cmd in (["eligible"], ["nominate"], ["select", "--seed", "1"]):
        out = runner.invoke(app, [*cmd, str(tmp_path / "empty")])
        assert out.exit_code == 2 and "Traceback" not in out.output and "cannot detect the round" in out.output
    out = runner.invoke(app, ["eligible", str(PL_FIXTURES / "PL001"), "--round", "v0.1"])
    assert out.exit_code == 2


def test_real_v41_end_to_end(tmp_path):
    v41 = need(V41)
    log = tmp_path / "draw.json"
    out = runner.invoke(app, ["select", str(v41), "--seed", "20241028", "--log", str(log)])
    assert out.exit_code == 0, out.output
    drawn = json.loads(log.read_text())
    assert drawn["submitters"] == ["Cisco", "NVIDIA", "NeuralMagic", "UntetherAI"]
    again = runner.invoke(app, ["select", str(v41), "--seed", "20241028"])
    assert json.loads(again.stdout.rsplit("}", 1)[0] + "}") == drawn
    assert runner.invoke(app, ["replay", str(log)]).exit_code == 0
    out = runner.invoke(app, ["nominate", str(v41)])
    assert out.exit_code == 0
    lines = out.stdout.splitlines()
    assert lines[0].startswith("#1 score 0.88  closed/NVIDIA/H200-SXM-141GBx8_TRT")
    assert "highest term S/O = 0.969 (mixtral-8x7b Server)" in out.stdout
    assert "left out, the result is invalid" in out.stderr  # SDXL on H200 and Orin
