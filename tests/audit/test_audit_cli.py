"""The `audit` typer sub-app: eligible / select / replay / nominate."""

from __future__ import annotations

import json

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
    cur = _round_file(tmp_path, [sub("A", "x", res("resnet50", "Offline", 3e5)),
                                 sub("B", "y", res("resnet50", "Offline", 1e3),
                                     accelerator_model_name="Mystery X1")])
    out = runner.invoke(app, ["nominate", str(cur), "--json"])
    assert out.exit_code == 0
    data = json.loads(out.stdout)
    assert data["results"][0]["submission_id"] == "closed/A/x"
    assert data["results"][1]["status"] == "no-assessment"


def test_real_trees():
    v41, v51 = need(V41), need(V51)
    out = runner.invoke(app, ["eligible", str(v41)])
    assert out.exit_code == 0 and "6 eligible of 9 submissions" in out.output
    out = runner.invoke(app, ["nominate", str(v51), "--reference", str(v41)])
    assert out.exit_code == 0
    assert "nvidia rtx-2000e-ada-16gb" in out.output and "roofline utilisation U =" in out.output
