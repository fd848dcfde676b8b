"""What a user reads: messages, help and reports of the CLI (issue #21 items 3-7, 10)."""

from __future__ import annotations

import shutil

from typer.testing import CliRunner

from checker.cli import app
from tests.conftest import BASE_TREE

runner = CliRunner()


def run(*args, **kwargs):
    return runner.invoke(app, [str(a) for a in args], **kwargs)


# --------------------------------------------------------------------------- item 3: no markup in user text


def test_bracketed_path_is_printed_as_given(tmp_path):
    missing = tmp_path / "my[red]tree"
    result = run("check", missing)
    assert result.exit_code == 2
    assert "my[red]tree" in result.stderr


def test_bracketed_root_is_shown_in_the_report(tmp_path):
    root = tmp_path / "my[bold]tree"
    shutil.copytree(BASE_TREE, root, symlinks=True)
    result = run("check", root, "--no-cache", "--quiet")
    assert result.exit_code == 0, result.output
    assert "my[bold]tree" in result.stdout


def test_bracketed_round_is_printed_as_given():
    result = run("check", BASE_TREE, "--round", "v4[bold]9")
    assert result.exit_code == 2
    assert "v4[bold]9" in result.stderr


def test_audit_run_without_loadgen_names_the_extra(tmp_path, monkeypatch):
    import checker.audit.runner as runner_module

    monkeypatch.setattr(runner_module, "loadgen_available", lambda: False)
    result = run("audit", "run", "TEST04", "--sut", "fixtures.suts.honest:make_sut", "--model", "resnet50",
                 "--scenario", "Offline", "--out", tmp_path / "out", "--round", "v5.1")
    assert result.exit_code == 2
    assert "pip install 'mlpc[audit]'" in " ".join(result.stderr.split())
    assert not (tmp_path / "out").exists()


def test_checks_table_keeps_the_stricter_mark():
    result = run("checks", "--round", "v4.1")
    assert result.exit_code == 0
    assert "[stricter]" in result.stdout


# --------------------------------------------------------------------------- item 4: -o FILE picks the format


def test_output_extension_picks_the_format(tmp_path):
    import json

    for name, probe in (("r.json", lambda t: json.loads(t)["findings"] is not None),
                        ("r.csv", lambda t: t.startswith("Organization,") or t.split("\n")[0].count(",") > 10),
                        ("r.md", lambda t: t.lstrip().startswith("#")),
                        ("r.sarif", lambda t: json.loads(t)["version"] == "2.1.0"),
                        ("r.xml", lambda t: t.lstrip().startswith("<?xml") or "<testsuite" in t),
                        ("r.txt", lambda t: "mlpc check" in t and "round" in t)):
        result = run("check", BASE_TREE, "--no-cache", "--quiet", "-o", tmp_path / name)
        assert result.exit_code == 0, (name, result.output)
        assert probe((tmp_path / name).read_text()), name


def test_explicit_format_wins_when_it_fits_the_file(tmp_path):
    import json

    result = run("check", BASE_TREE, "--no-cache", "--quiet", "--format", "sarif", "-o", tmp_path / "r.json")
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "r.json").read_text())["version"] == "2.1.0"
    result = run("check", BASE_TREE, "--no-cache", "--quiet", "--format", "json", "-o", tmp_path / "report")
    assert result.exit_code == 0 and json.loads((tmp_path / "report").read_text())["results"]


def test_format_contradicting_the_file_is_refused(tmp_path):
    result = run("check", BASE_TREE, "--no-cache", "--quiet", "--format", "text", "-o", tmp_path / "r.json")
    assert result.exit_code == 2
    assert "--format text does not match the output file" in " ".join(result.stderr.split())
    assert not (tmp_path / "r.json").exists()
