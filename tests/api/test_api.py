"""The Python API (checker.api.check): its signature, that it prints and writes nothing, that it gives
the same report as the CLI (which is built on it), waivers, ``only`` and usage errors."""

from __future__ import annotations

import inspect
import json
import os
import shutil
import typing

import pytest
from typer.testing import CliRunner

import checker
from checker import api
from checker.cli import app
from checker.diagnostics import Finding, MlpcError
from checker.report import Report, ResultSummary
from checker.reporters import json_report

RESULT = "closed/Acme/results/edge_sys/gptj-99/Offline"


def _lower_accuracy(root: str, submitter: str = "Acme") -> None:
    """The edit that makes a result invalid: rouge1 below 99% of the reference (AC001)."""
    path = os.path.join(root, "closed", submitter, "results", "edge_sys", "gptj-99", "Offline", "accuracy",
                        "accuracy.txt")
    with open(path) as handle:
        text = handle.read()
    with open(path, "w") as handle:
        handle.write(text.replace("'rouge1': 43.1", "'rouge1': 41.0"))


def _add_submitter(root: str, name: str) -> None:
    shutil.copytree(os.path.join(root, "closed", "Acme"), os.path.join(root, "closed", name), symlinks=True)
    system = os.path.join(root, "closed", name, "systems", "edge_sys.json")
    with open(system) as handle:
        data = json.load(handle)
    data["submitter"] = name
    with open(system, "w") as handle:
        json.dump(data, handle, indent=2)


def _state(root: str) -> dict:
    out = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                out[path] = (handle.read(), os.stat(path).st_mtime_ns)
    return out


def test_signature():
    assert checker.check is api.check
    sig = inspect.signature(api.check)
    params = list(sig.parameters.values())
    assert [p.name for p in params] == ["path", "round", "profile", "waivers", "only", "git_ref", "jobs", "cache",
                                        "progress", "spool"]
    assert params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and params[0].default is inspect.Parameter.empty
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:])
    assert {p.name: p.default for p in params[1:]} == {
        "round": None, "profile": "default", "waivers": None, "only": None, "git_ref": None, "jobs": 1,
        "cache": True, "progress": None, "spool": False}
    hints = typing.get_type_hints(api.check)
    assert hints["return"] is Report
    assert typing.get_args(hints["profile"]) == ("default", "official", "smoke")
    for name in ("Report", "ResultSummary", "Finding", "Severity", "MlpcError", "Location"):
        assert getattr(checker, name) is not None
    with pytest.raises(AttributeError):
        checker.no_such_name  # noqa: B018


def test_typed_report_without_printing_or_writing(base_tree, capsys):
    _lower_accuracy(base_tree)
    before = _state(base_tree)
    report = api.check(base_tree)
    assert capsys.readouterr() == ("", "")
    assert _state(base_tree) == before
    assert isinstance(report, Report) and report.round == "v4.1"
    assert all(isinstance(r, ResultSummary) for r in report.results)
    assert all(isinstance(f, Finding) for f in report.findings)
    bad = {r.id: r for r in report.results}[RESULT]
    assert not bad.valid and bad.errors >= 1
    assert any(f.code == "AC001" and f.result_id == RESULT for f in report.findings)
    assert not report.ok()
    assert report.elapsed_s > 0  # the text report's "time" row (it read 0.00 s for every run)


def test_clean_tree_is_ok_and_strict_counts_warnings(base_tree):
    assert api.check(base_tree, cache=False).ok()
    # a warning (SY007 unknown field) passes, except with strict
    system = os.path.join(base_tree, "closed", "Acme", "systems", "edge_sys.json")
    with open(system) as handle:
        data = json.load(handle)
    data["no_such_field"] = "x"
    with open(system, "w") as handle:
        json.dump(data, handle)
    report = api.check(base_tree, cache=False)
    assert report.ok() and not report.ok(strict=True)
    assert [f.code for f in report.findings if f.severity.value == "warning"] == ["SY007"]


def test_cli_report_is_the_api_report(base_tree, tmp_path):
    _lower_accuracy(base_tree)
    out = tmp_path / "report.json"
    result = CliRunner().invoke(app, ["check", base_tree, "--format", "json", "-o", str(out), "--no-cache"])
    assert result.exit_code == 1, result.output
    from_cli = json.loads(out.read_text())
    from_api = json.loads(json_report.render(api.check(base_tree, cache=False)))
    for volatile in ("elapsed_s",):
        from_cli.pop(volatile, None)
        from_api.pop(volatile, None)
    assert from_cli == from_api


def test_waivers_as_a_list_or_a_file(base_tree, tmp_path):
    _lower_accuracy(base_tree)
    entry = {"code": "AC001", "path": "closed/Acme/*", "reason": "accepted by the review committee"}
    report = api.check(base_tree, waivers=[entry], cache=False)
    assert report.ok()
    assert [f.waived for f in report.findings if f.code == "AC001"] == ["accepted by the review committee"]
    waiver_file = tmp_path / "waivers.yaml"
    waiver_file.write_text("- code: AC001\n  path: 'closed/Other/*'\n  reason: other submitter\n")
    report = api.check(base_tree, waivers=waiver_file, cache=False)
    assert not report.ok()
    assert {f.code for f in report.findings} >= {"AC001", "TL003"}  # the waiver matched nothing
    with pytest.raises(MlpcError, match="reason"):
        api.check(base_tree, waivers=[{"code": "AC001", "path": "*"}])
    with pytest.raises(MlpcError):
        api.check(base_tree, waivers={"code": "AC001"})


def test_only_checks_the_submitters_holding_the_paths(base_tree, monkeypatch):
    _add_submitter(base_tree, "Beta")
    _lower_accuracy(base_tree, "Beta")
    monkeypatch.chdir(base_tree)

    def submitters(report):
        return sorted({r.submitter for r in report.results})

    assert submitters(api.check(".", cache=False)) == ["Acme", "Beta"]
    acme = api.check(".", only=["closed/Acme/systems/edge_sys.json"], cache=False)
    assert submitters(acme) == ["Acme"] and acme.ok()
    beta = api.check(".", only=[os.path.join(base_tree, "closed/Beta/results/gone.txt")], cache=False)
    assert submitters(beta) == ["Beta"] and not beta.ok()  # a deleted file still names its submitter
    assert submitters(api.check(".", only=["closed"], cache=False)) == ["Acme", "Beta"]
    assert submitters(api.check(".", only=["closed/Beta"], cache=False)) == ["Beta"]
    assert api.check(".", only=[], cache=False).results == []
    assert api.check(".", only=["README.md", "/elsewhere/x"], cache=False).results == []


def test_usage_errors_raise(base_tree, tmp_path):
    with pytest.raises(MlpcError, match="missing: no such file or directory"):
        api.check(tmp_path / "missing")
    (tmp_path / "file").write_text("")
    with pytest.raises(MlpcError, match="file: not a directory"):
        api.check(tmp_path / "file")
    with pytest.raises(MlpcError, match="round"):
        api.check(base_tree, round="v0.0")
    with pytest.raises(MlpcError, match="profile"):
        api.check(base_tree, profile="fast")
    with pytest.raises(MlpcError, match="cache"):
        api.check(base_tree, cache=3)
    with pytest.raises(MlpcError):
        api.check(base_tree, only=["x"], git_ref="HEAD")


def test_progress_and_cache_folder(base_tree, tmp_path):
    seen = []
    api.check(base_tree, cache=tmp_path / "cache", progress=lambda done, total, unit: seen.append((done, total, unit)))
    assert seen == [(1, 1, ("closed", "Acme"))]
    assert os.listdir(tmp_path / "cache")


def test_readme_example_runs(base_tree, monkeypatch, capsys):
    from tests.conftest import REPO

    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    section = readme.split("## Python API", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(example.strip().splitlines()) < 10
    monkeypatch.chdir(base_tree)
    with open("waivers.yaml", "w") as handle:
        handle.write("- code: AC001\n  path: 'closed/Acme/*'\n  reason: accepted\n")
    _lower_accuracy(base_tree)
    namespace: dict = {}
    exec(compile(example, "README.md", "exec"), namespace)
    assert isinstance(namespace["report"], Report) and isinstance(namespace["only_acme"], Report)
    assert RESULT in capsys.readouterr().out
