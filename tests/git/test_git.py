"""`mlpc check --git-ref` and `mlpc diff` on a repository made in the test."""

import json
import os
import shutil
import stat
import tempfile

import git
import pytest
from typer.testing import CliRunner

from checker.diagnostics import MlpcError
from checker.cli import app
from checker.diffing import compare_rounds, diff_commits, result_reads
from checker.loaders.git_tree import changed_paths, materialise
from checker.report import Report, ResultSummary
from tests.conftest import REPO

BASE = os.path.join(REPO, "fixtures", "checks", "_base")
OFFLINE = "closed/Acme/results/edge_sys/gptj-99/Offline"
SINGLE = "closed/Acme/results/edge_sys/gptj-99/SingleStream"
runner = CliRunner()


def _commit(repo: git.Repo, message: str) -> str:
    repo.git.add("-A")
    repo.git.commit("-q", "-m", message)
    return repo.head.commit.hexsha


@pytest.fixture
def history(tmp_path):
    """A submission repository with two commits: the clean base tree, then an accuracy.txt that lost
    its metric (one result becomes invalid)."""
    work = tmp_path / "repo"
    shutil.copytree(BASE, work, symlinks=True)
    os.remove(work / "README.md")  # the fixture's own note, not part of a submission
    repo = git.Repo.init(work)
    with repo.config_writer() as config:
        config.set_value("user", "name", "Test")
        config.set_value("user", "email", "test@example.org")
    first = _commit(repo, "week 0")
    acc = work / OFFLINE / "accuracy" / "accuracy.txt"
    acc.write_text(acc.read_text().replace("rouge1", "rougeQ"))
    second = _commit(repo, "week 3")
    return str(work), first, second


def _state(path):
    """HEAD, the index's bytes and mtime, and the work tree's status (read without refreshing the index)."""
    index = os.path.join(path, ".git", "index")
    with open(index, "rb") as handle:
        raw = handle.read()
    mtime = os.stat(index).st_mtime_ns
    repo = git.Repo(path)
    return repo.head.commit.hexsha, raw, mtime, repo.git.execute(["git", "--no-optional-locks", "status", "--porcelain"])


def _checkouts() -> set:
    return {d for d in os.listdir(tempfile.gettempdir()) if d.startswith("mlpc-git-")}


def _json_out(result) -> dict:
    text = result.stdout if hasattr(result, "stdout") else result.output
    return json.loads(text[text.index("{"):text.rindex("}") + 1])


def test_check_git_ref_on_both_commits(history, tmp_path):
    path, first, second = history
    before = _state(path)
    leftovers = _checkouts()
    cache = ["--cache-dir", str(tmp_path / "cache")]
    old = runner.invoke(app, ["check", path, "--git-ref", first, "-f", "json", *cache])
    assert old.exit_code == 0, old.output
    new = runner.invoke(app, ["check", path, "--git-ref", "HEAD", "-f", "json", *cache])
    assert new.exit_code == 1, new.output
    report = _json_out(new)
    verdicts = {r["id"]: r["valid"] for r in report["results"]}
    assert verdicts == {OFFLINE: False, SINGLE: True}
    assert all(f["location"]["path"].startswith("closed/Acme/") for f in report["findings"])
    assert any(f["code"] == "AC003" for f in report["findings"])
    assert _state(path) == before  # work tree, index and HEAD untouched
    assert _checkouts() == leftovers  # the temporary checkouts are gone


def test_git_ref_report_equals_a_check_of_the_work_tree(history, tmp_path):
    path, _, second = history
    via_git = runner.invoke(app, ["check", path, "--git-ref", second, "-f", "json", "--no-cache"])
    plain = runner.invoke(app, ["check", path, "-f", "json", "--no-cache"])
    assert _json_out(via_git) == _json_out(plain)


def test_git_ref_text_report_names_the_commit(history):
    path, first, _ = history
    result = runner.invoke(app, ["check", path, "--git-ref", first, "--no-cache"])
    assert result.exit_code == 0 and f"@ {first} ({first[:12]})" in result.output


def test_check_a_submitter_folder_of_a_commit(history):
    path, first, _ = history
    result = runner.invoke(app, ["check", os.path.join(path, "closed", "Acme"), "--git-ref", first,
                                 "-f", "json", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert len(_json_out(result)["results"]) == 2


@pytest.mark.parametrize("ref", ["no-such-branch", "0" * 40, "HEAD~5", "--output=x"])
def test_unknown_ref_is_a_usage_error(history, ref):
    path, _, _ = history
    result = runner.invoke(app, ["check", path, f"--git-ref={ref}", "--no-cache"])
    assert result.exit_code == 2
    assert "error:" in result.output and "Traceback" not in result.output


def test_not_a_repository_is_a_usage_error(tmp_path):
    (tmp_path / "plain").mkdir()
    result = runner.invoke(app, ["check", str(tmp_path / "plain"), "--git-ref", "HEAD", "--no-cache"])
    assert result.exit_code == 2 and "not inside a git repository" in " ".join(result.output.split())


def test_materialise_keeps_links_modes_and_bytes(tmp_path):
    work = tmp_path / "repo"
    (work / "d" / "e").mkdir(parents=True)
    (work / "d" / "e" / "data.bin").write_bytes(bytes(range(256)) * 10)
    (work / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(work / "run.sh", 0o755)
    os.symlink("d/e/data.bin", work / "link")
    os.symlink("../../outside", work / "d" / "escaping")
    repo = git.Repo.init(work)
    with repo.config_writer() as config:
        config.set_value("user", "name", "Test")
        config.set_value("user", "email", "test@example.org")
    sha = _commit(repo, "one")
    (work / "d" / "e" / "data.bin").write_bytes(b"changed in the work tree only")
    with materialise(str(work), sha) as checkout:
        top = checkout.top
        assert not top.startswith(str(work))
        assert (open(os.path.join(top, "d", "e", "data.bin"), "rb").read() == bytes(range(256)) * 10)
        assert os.path.islink(os.path.join(top, "link")) and os.readlink(os.path.join(top, "link")) == "d/e/data.bin"
        assert os.readlink(os.path.join(top, "d", "escaping")) == "../../outside"
        assert os.stat(os.path.join(top, "run.sh")).st_mode & stat.S_IXUSR
        assert not os.path.exists(os.path.join(top, ".git"))
    assert not os.path.exists(top)


def test_changed_paths_uses_the_tree_diff(history):
    path, first, second = history
    a, b, paths = changed_paths(path, first, second)
    assert (a, b) == (first, second)
    assert paths == [f"{OFFLINE}/accuracy/accuracy.txt"]
    with pytest.raises(MlpcError):
        changed_paths(path, first, "nope")


def test_diff_between_commits_lists_the_changed_result(history, tmp_path):
    path, first, second = history
    result = runner.invoke(app, ["diff", path, first, second, "-f", "json", "--cache-dir", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    data = _json_out(result)
    assert data["mode"] == "git" and data["counts"] == {"added": 0, "removed": 0, "changed": 1}
    (change,) = data["results"]
    assert change["id"] == OFFLINE and change["change"] == "changed"
    assert change["before"]["valid"] is True and change["after"]["valid"] is False
    assert change["paths"] == [f"{OFFLINE}/accuracy/accuracy.txt"]
    # the second commit re-checked only the changed model's results (its results folder is part of
    # every one of its results' keys): two new result entries, and one new submitter entry
    stored = {kind: sum(len(files) for folder, _, files in os.walk(tmp_path / "c")
                        if f"{os.sep}{kind}{os.sep}" in folder) for kind in ("results", "units")}
    assert stored == {"results": 4, "units": 2}
    text = runner.invoke(app, ["diff", path, first, second, "--no-cache"])
    assert text.exit_code == 0
    row = next(line for line in text.output.splitlines() if OFFLINE in line)
    assert "changed" in row and row.index("valid") < row.index("INVALID")


def test_diff_added_and_removed_results(history):
    path, _, second = history
    repo = git.Repo(path)
    shutil.rmtree(os.path.join(path, SINGLE))
    shutil.rmtree(os.path.join(path, "closed/Acme/measurements/edge_sys/gptj-99/SingleStream"))
    third = _commit(repo, "drop SingleStream")
    data = _json_out(runner.invoke(app, ["diff", path, second, third, "-f", "json", "--no-cache"]))
    # Offline reads no removed file, but the model now lacks a required scenario: its outcome changed
    assert [(r["change"], r["id"], r["paths"]) for r in data["results"]] == [
        ("changed", OFFLINE, []), ("removed", SINGLE, [])]
    assert data["results"][0]["outcome_changed"] is True
    assert data["results"][0]["after"]["errors"] > data["results"][0]["before"]["errors"]
    back = _json_out(runner.invoke(app, ["diff", path, third, second, "-f", "json", "--no-cache"]))
    assert [(r["change"], r["id"]) for r in back["results"]] == [("changed", OFFLINE), ("added", SINGLE)]
    assert back["results"][1]["before"] is None and back["results"][1]["after"]["valid"] is True


def test_diff_usage_errors(history, tmp_path):
    path, first, _ = history
    for args in (["diff", path, first, "nope"], ["diff", str(tmp_path / "missing"), path],
                 ["diff", str(tmp_path), first, first]):
        result = runner.invoke(app, [*args, "--no-cache"])
        assert result.exit_code == 2, (args, result.output)
        assert "error:" in result.output and "Traceback" not in result.output


def test_diff_two_trees_pairs_results_and_gives_ratios(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(BASE, a, symlinks=True)
    shutil.copytree(BASE, b, symlinks=True)
    shutil.rmtree(b / SINGLE)
    shutil.rmtree(b / "closed/Acme/measurements/edge_sys/gptj-99/SingleStream")
    result = runner.invoke(app, ["diff", str(a), str(b), "-f", "json", "--no-cache", "--round", "v4.1"])
    assert result.exit_code == 0, result.output
    data = _json_out(result)
    assert data["counts"] == {"only_a": 1, "only_b": 0, "both": 1}
    both = next(r for r in data["results"] if r["in"] == "both")
    assert (both["system"], both["model"], both["scenario"], both["ratio"]) == ("edge_sys", "gptj-99", "Offline", 1.0)
    text = runner.invoke(app, ["diff", str(a), str(b), "--no-cache", "--round", "v4.1"])
    assert "A only" in text.output and "1.000" in text.output


# ---- the pure parts ----------------------------------------------------------------------------

def _summary(rid, valid=True, value=1.0, unit="Samples/s", model="m", scenario="Offline"):
    division, submitter, _, system, folder, scen = rid.split("/")
    return ResultSummary(id=rid, division=division, submitter=submitter, system=system, model=folder,
                         mlperf_model=model, scenario=scenario, scenario_dir=scen, valid=valid, value=value,
                         unit=unit, inferred=False, has_power=False)


def test_result_reads():
    rid = "closed/S/results/sys/m/Offline"
    reads = [f"{rid}/performance/run_1/mlperf_log_detail.txt", "closed/S/measurements/sys/m/Offline/user.conf",
             "closed/S/compliance/sys/m/Offline/TEST01/verify_accuracy.txt", "closed/S/systems/sys.json",
             "closed/S/measurements/sys/m/analyzer_table.md", "closed/S/measurements/sys/power_settings.md",
             "closed/S/measurements/analyzer_table.md", "closed/S/code/m"]
    ignores = ["closed/S/results/sys/m/Server/x", "closed/S/systems/other.json", "closed/S/code/m/run.py",
               "closed/S/measurements/sys/m/Server/user.conf", "closed/S/results/sys/m/Offline2/x",
               "closed/S/calibration.md", "closed/T/results/sys/m/Offline/x"]
    assert all(result_reads(rid, p) for p in reads)
    assert not any(result_reads(rid, p) for p in ignores)


def test_diff_commits_and_compare_rounds():
    one, two = "closed/S/results/sys/m/Offline", "closed/S/results/sys/m/Server"
    a = Report(root="a", round="v4.1", round_reason="", profile="official",
               results=[_summary(one), _summary(two, scenario="Server")])
    b = Report(root="b", round="v4.1", round_reason="", profile="official",
               results=[_summary(one, valid=False, value=2.0)])
    changes = diff_commits(a, b, [f"{one}/accuracy/accuracy.txt"])
    assert [(c.kind, c.id, c.reason) for c in changes] == [("changed", one, "1 file(s)"), ("removed", two, "removed")]
    assert diff_commits(a, b, [])[0].reason == "outcome only"
    pairs = compare_rounds(a, b)
    assert [(p.key[4], p.ratio) for p in pairs] == [("Offline", 2.0), ("Server", None)]
