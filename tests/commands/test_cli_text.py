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
                 "--scenario", "Offline", "--out", tmp_path / "out", "--accept-installed-seeds")
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


# --------------------------------------------------------------------------- item 7: nothing to check is exit 2


def _said(result) -> str:
    return " ".join(result.stderr.split())


def test_empty_folder_is_a_usage_error_with_or_without_round(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with_round = run("check", empty, "--round", "v4.1", "--no-cache")
    assert with_round.exit_code == 2, with_round.output
    assert f"nothing to check: {empty} holds no division folder (closed/, open/, network/); it is empty" \
        in _said(with_round)
    without = run("check", empty, "--no-cache")
    assert without.exit_code == 2
    assert "no performance log (<division>/<submitter>/results/" in _said(without)


def test_tree_without_results_folders_is_a_usage_error(tmp_path):
    (tmp_path / "root" / "closed" / "Acme" / "systems").mkdir(parents=True)
    for path, said in ((tmp_path / "root", "has closed/ but no <division>/<submitter>/results/ folder"),
                       (tmp_path / "root" / "closed", "division folder"),
                       (tmp_path / "root" / "closed" / "Acme", "has systems/ but no results/ folder")):
        result = run("check", path, "--round", "v4.1", "--no-cache")
        assert result.exit_code == 2, (path, result.output)
        assert said in _said(result), _said(result)


def test_one_submitter_with_results_is_still_checked(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(BASE_TREE, root, symlinks=True)
    (root / "open").mkdir()  # an empty division beside a real one changes nothing
    result = run("check", root, "--round", "v4.1", "--no-cache", "--quiet")
    assert result.exit_code == 0, result.output


# --------------------------------------------------------------------------- item 5: help as a user sees it


def test_check_help_snapshot(snapshot):
    """`mlpc check --help` at 100 columns, as the pinned typer and rich render it: flags without a value
    type (typer 0.29 printed `--strict <bool>`), the argument as PATH (it printed `{path}`)."""
    from tests.reporters.test_snapshots import _extension

    result = CliRunner().invoke(app, ["check", "--help"], env={"COLUMNS": "100", "TERMINAL_WIDTH": None,
                                                               "NO_COLOR": "1"}, color=False)
    assert result.exit_code == 0
    assert "<bool>" not in result.stdout and "{path}" not in result.stdout
    assert "Usage: mlpc check [OPTIONS] PATH" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 100
    assert result.stdout == snapshot(extension_class=_extension("txt"))


def test_no_flag_of_any_command_shows_a_value_type():
    """Every command's help: a flag (an option without a value) has no type column entry."""
    import typer.main

    def commands(command, path):
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from commands(sub, path + [name])

    for path, _ in commands(typer.main.get_command(app), []):
        result = CliRunner().invoke(app, path + ["--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, path
        assert "<bool>" not in result.stdout and "{" + "path}" not in result.stdout, path


# --------------------------------------------------------------------------- item 6: width follows the terminal


def test_text_report_fits_80_columns():
    result = run("check", BASE_TREE, "--no-cache", "--quiet", env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert sum(line.startswith("│ valid") for line in lines) == 2  # one row per result
    assert any("closed/Acme/edge_sys/gptj-99/" in line for line in lines)


def test_text_report_follows_columns_and_keeps_160_for_pipes():
    """Finding panels span the whole width: COLUMNS sets it; output that goes to no terminal keeps 160."""
    failing = BASE_TREE.replace("_base", "PF005")
    for columns, width in (("130", 130), ("80", 80), (None, 160)):
        result = run("check", failing, "--no-cache", "--quiet", env={"COLUMNS": columns})
        assert result.exit_code == 1 and "PF005" in result.stdout
        assert max(len(line) for line in result.stdout.splitlines()) == width, columns


def test_checks_table_fits_80_columns():
    result = run("checks", env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    assert "PF005" in result.stdout and "wrong-seeds" in result.stdout


def test_output_width(monkeypatch):
    from checker.commands.terminal import output_width

    monkeypatch.setenv("COLUMNS", "90")
    assert output_width(160) == 90 and output_width(160, to_terminal=False) == 90
    monkeypatch.setenv("COLUMNS", "5")
    assert output_width(160) == 40  # never narrower than a usable minimum
    monkeypatch.delenv("COLUMNS")
    assert output_width(160, to_terminal=False) == 160


# --------------------------------------------------------------------------- item 10: small things


def test_version_flag():
    from checker.loaders.fingerprint import checker_fingerprint, version

    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"mlpc {version()} (fingerprint {checker_fingerprint()[:16]})"


def test_missing_path_is_not_called_not_a_directory(tmp_path):
    missing = run("check", tmp_path / "nope")
    assert missing.exit_code == 2 and "nope: no such file or directory" in _said(missing)
    (tmp_path / "afile").write_text("x")
    a_file = run("check", tmp_path / "afile")
    assert a_file.exit_code == 2 and "afile: not a directory" in _said(a_file)


def test_counts_are_singular_for_one():
    from checker.words import count

    assert [count(n, "warning") for n in (0, 1, 2)] == ["0 warnings", "1 warning", "2 warnings"]
    result = run("calc", "early-stopping", "--percentile", "90", "--queries", "64", "--overlatency", "1")
    assert "with 1 over-latency query needs" in result.stdout and "1 over-latency queries" not in result.stdout
    one_warning = BASE_TREE.replace("_base", "SY007")
    report = run("check", one_warning, "--no-cache", "--quiet")
    assert "1 warning," in report.stdout and "1 warnings" not in report.stdout



def test_st017_says_an_existing_scenario_is_invalid(base_tree):
    """ST017 names a required scenario whose folder exists but whose run is invalid as such, instead of
    "actual: none"."""
    from checker.pipeline import check_tree
    from checker.loaders.rules import load_rules

    import os

    log = os.path.join(base_tree, "closed/Acme/results/edge_sys/gptj-99/Offline/performance/run_1/mlperf_log_detail.txt")
    with open(log, encoding="utf-8") as handle:
        text = handle.read()
    with open(log, "w", encoding="utf-8") as handle:
        handle.write(text.replace('"key": "result_validity", "value": "VALID"', '"key": "result_validity", "value": "INVALID"'))
    report = check_tree(base_tree, load_rules("v4.1"))
    (st017,) = [f for f in report.findings if f.code == "ST017"]
    assert "missing required scenarios: Offline (present but invalid)" in st017.message
    assert st017.actual == "SingleStream; Offline present but invalid (performance run not valid)"


def test_diff_takes_the_profile(tmp_path):
    """`mlpc diff --profile smoke` checks both sides as `mlpc check --profile smoke` does (the example tree
    is made of short runs: invalid by default, valid under the smoke profile)."""
    import json
    import os

    example = os.path.join(os.path.dirname(BASE_TREE), "..", "example_submission")
    verdicts = {}
    for profile in ("default", "smoke"):
        result = run("diff", example, example, "--format", "json", "--no-cache", "--quiet", "--profile", profile)
        assert result.exit_code == 0, result.output
        rows = json.loads(result.stdout)["results"]
        verdicts[profile] = {(r["valid_a"], r["valid_b"]) for r in rows}
    assert verdicts["smoke"] == {(True, True)}
    assert (False, False) in verdicts["default"]


def test_progress_bar_shows_submitter_names_as_written():
    import io
    import time

    from rich.console import Console

    from checker.commands.progress import with_progress

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100, color_system=None)

    def work(progress):
        progress(1, 2, ("closed", "my[red]sub"))
        time.sleep(0.2)  # the bar refreshes in its own thread
        return 5

    assert with_progress(work, False, console) == 5
    assert "closed/my[red]sub" in buf.getvalue()


def test_report_of_an_empty_folder_is_a_usage_error(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("report", empty, "--out", tmp_path / "bundle", "--round", "v4.1", "--no-cache")
    assert result.exit_code == 2
    assert "nothing to check" in _said(result)
    assert not (tmp_path / "bundle").exists()
