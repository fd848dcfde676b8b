"""Markdown review packs and the `mlpc report` bundle (atomic, never inside the input tree)."""

from __future__ import annotations

import csv
import io
import json
import os

from typer.testing import CliRunner

from checker.cli import app
from checker.commands.report import bundle
from checker.reporters import markdown
from tests.conftest import REAL, REPO, real_tree

runner = CliRunner()
EXAMPLE = os.path.join(REPO, "fixtures", "example_submission")


def test_pack_lists_every_result_with_flags_and_findings(synthetic):
    pack = markdown.render_pack(synthetic, "closed", "OtherCo")
    assert pack.startswith("# Review pack: closed / OtherCo")
    assert "`closed/OtherCo/results/box/bert-99/Offline`" in pack and "**INVALID**" in pack
    assert "TEST01 failed, TEST05 passed" in pack
    assert "acc 76.1 (target >= 75.6954): ok" in pack
    assert "| PF001 | error |  | `closed/OtherCo/results/box/bert-99/Offline/performance/run_1/mlperf_log_detail.txt:7` |" in pack
    assert "fix \\| the run" in pack  # pipes escaped inside table cells
    assert "(applies to every result below it)" in pack and "SY011" in pack
    assert "open/OtherCo" not in pack  # another division's results stay out
    acme = markdown.render_pack(synthetic, "closed", "Acme")
    assert "inferred" in acme and "power" in acme and "12.5 millijoules" in acme
    assert "## Waived findings" in acme and "accepted by the WG on 2024-08-01" in acme
    assert "| 3 | 3 | 0 | 0 | 0 | 1 |" in acme  # counts: results, valid, invalid, errors, warnings, waived


def test_whole_markdown_report(synthetic):
    text = markdown.render(synthetic)
    assert text.startswith("# mlpc report: round v5.1")
    for division, submitter in markdown.units(synthetic):
        assert f"## Review pack: {division} / {submitter}" in text
    assert markdown.units(synthetic) == [("closed", "Acme"), ("closed", "OtherCo"), ("open", "OtherCo")]


def test_bundle_contents(synthetic, rules41):
    files = bundle(synthetic, rules41)
    assert set(files) == {"summary.csv", "report.json", "index.html", "closed-Acme.md", "closed-OtherCo.md",
                          "open-OtherCo.md"}
    rows = list(csv.DictReader(io.StringIO(files["summary.csv"])))
    assert rows and "status" in rows[0]
    official = list(csv.DictReader(io.StringIO(bundle(synthetic, rules41, official_csv=True)["summary.csv"])))
    assert list(official[0]) == rules41.summary_columns
    assert json.loads(files["report.json"])["round"] == "v5.1"


def _tree_state(root):
    state = []
    for folder, dirs, files in os.walk(root):
        for name in files:
            st = os.stat(os.path.join(folder, name))
            state.append((os.path.relpath(os.path.join(folder, name), root), st.st_size, st.st_mtime_ns))
    return sorted(state)


def test_report_command_writes_bundle_atomically(tmp_path):
    out = tmp_path / "review"
    before = _tree_state(EXAMPLE)
    result = runner.invoke(app, ["report", EXAMPLE, "--out", str(out), "--profile", "smoke", "-q"])
    assert result.exit_code == 0, result.output
    assert sorted(os.listdir(out)) == ["closed-ExampleCo.md", "index.html", "report.json", "summary.csv"]
    assert _tree_state(EXAMPLE) == before  # never writes into the input tree
    assert [p for p in os.listdir(tmp_path) if p.startswith(".mlpc-")] == []  # no temp folder left behind
    for name in os.listdir(out):
        assert EXAMPLE not in (out / name).read_text(encoding="utf-8"), f"{name} leaks the root path"
    # an earlier report is replaced as a whole
    (out / "stale.md").write_text("old")
    assert runner.invoke(app, ["report", EXAMPLE, "--out", str(out), "--profile", "smoke", "-q"]).exit_code == 0
    assert not (out / "stale.md").exists()


def test_report_command_usage_errors(tmp_path):
    inside = os.path.join(EXAMPLE, "closed", "out")
    result = runner.invoke(app, ["report", EXAMPLE, "--out", inside])
    assert result.exit_code == 2 and "inside the checked tree" in result.output
    assert not os.path.exists(inside)
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    result = runner.invoke(app, ["report", EXAMPLE, "--out", str(foreign)])
    assert result.exit_code == 2 and "not empty" in result.output
    assert (foreign / "notes.txt").read_text() == "keep me"
    result = runner.invoke(app, ["report", str(tmp_path / "missing"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    result = runner.invoke(app, ["report", EXAMPLE, "--out", str(tmp_path / "o"), "--round", "v9.9"])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_report_on_real_round(tmp_path):
    root = real_tree("v4.1")
    out = tmp_path / "v41"
    result = runner.invoke(app, ["report", root, "--out", str(out), "--round", "v4.1", "--jobs", "2", "-q",
                                 "--official-csv"])
    assert result.exit_code == 0, result.output
    packs = sorted(p for p in os.listdir(out) if p.endswith(".md"))
    assert packs == ["closed-Cisco.md", "closed-NVIDIA.md", "closed-NeuralMagic.md", "closed-UntetherAI.md",
                     "open-Krai.md", "open-NeuralMagic.md"]
    with open(os.path.join(REAL, "v4.1-expected", "summary.csv"), encoding="utf-8") as handle:
        expected = sorted(handle.read().splitlines())
    assert sorted((out / "summary.csv").read_text().splitlines()) == expected


def test_report_command_reuses_the_cache(tmp_path):
    """A second `mlpc report` with the same cache writes the same bundle without checking again."""
    cache = tmp_path / "cache"
    first, second, plain = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    args = [EXAMPLE, "--profile", "smoke", "-q", "--cache-dir", str(cache)]
    assert runner.invoke(app, ["report", *args, "--out", str(first)]).exit_code == 0
    entries = sorted(p.name for p in cache.rglob("*") if p.is_file() and "/units/" in str(p))
    assert entries, "no unit entry was stored"
    assert runner.invoke(app, ["report", *args, "--out", str(second)]).exit_code == 0
    assert runner.invoke(app, ["report", EXAMPLE, "--profile", "smoke", "-q", "--no-cache",
                               "--out", str(plain)]).exit_code == 0
    for name in os.listdir(first):
        assert (first / name).read_bytes() == (second / name).read_bytes() == (plain / name).read_bytes(), name
