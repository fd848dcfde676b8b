"""``mlpc check --watch``: real file notifications drive re-checks; failures and usage errors are clear."""

import os
import shutil
import threading
import time

import pytest
from typer.testing import CliRunner

from checker.cache import ResultCache
from checker.cli import app
from checker.commands.watch import Watcher, describe, watch
from checker.diagnostics import MlpcError
from checker.pipeline import check_tree
from checker.live import LiveRound
from checker.loaders.rules import load_rules
from checker.reporters import json_report
from tests.conftest import REPO

RULES = load_rules("v4.1")
ACCURACY = "closed/Acme/results/edge_sys/gptj-99/Offline/accuracy/accuracy.txt"


@pytest.fixture
def tree(base_tree):
    return base_tree


def _edit(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text.replace("rouge1", "rougeQ"))


def _wait_for(condition, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("polling", [False, True], ids=["notifications", "polling"])
def test_a_change_on_disk_is_rechecked_and_reported(tree, tmp_path, polling):
    shown: list[tuple[object, str]] = []
    notices: list[str] = []
    stop = threading.Event()
    watcher = Watcher(tree, notices.append, force_polling=polling)
    live = LiveRound(tree, RULES, round_reason="test", cache=ResultCache(str(tmp_path / "c")))
    runner = threading.Thread(target=watch, args=(live, watcher, lambda r, s: shown.append((r, s)), notices.append),
                              kwargs={"stop": stop})
    runner.start()
    try:
        assert _wait_for(lambda: len(shown) == 1)
        assert all(r.valid for r in shown[0][0].results)
        _edit(os.path.join(tree, ACCURACY))
        assert _wait_for(lambda: len(shown) >= 2), "no re-check after the change"
    finally:
        stop.set()
        runner.join(10)
    assert not runner.is_alive()
    report, status = shown[-1]
    assert json_report.render(report) == json_report.render(check_tree(tree, RULES, round_reason="test"))
    assert "re-checked closed/Acme" in status and "1 invalid" in status
    assert "1 verdict changed:\n  closed/Acme/results/edge_sys/gptj-99/Offline: valid -> INVALID (AC003)" in status
    # where the machine refuses notifications (an inotify limit), the watch polls and says so
    assert notices == [] or (not polling and notices[0].startswith("file notifications cannot be used"))


class FakeWatcher:
    def __init__(self, batches):
        self._batches = batches

    def batches(self, stop=None):
        yield from self._batches


def test_a_failing_pass_is_a_notice_and_the_next_change_checks_everything(tree, monkeypatch):
    live = LiveRound(tree, RULES, round_reason="test")
    shown, notices = [], []
    calls = []
    real_recheck = live.recheck

    def recheck(paths, progress=None):
        calls.append("recheck")
        if len(calls) == 1:
            raise MlpcError("the tree vanished")
        return real_recheck(paths, progress)

    monkeypatch.setattr(live, "recheck", recheck)
    changed = os.path.join(tree, ACCURACY)
    last = watch(live, FakeWatcher([{changed}, {changed}]), lambda r, s: shown.append(s), notices.append)
    assert calls == ["recheck"]  # the second change ran a full check instead
    assert len(shown) == 2 and "checked 1 submitter" in shown[1]
    assert notices == ["cannot check the tree (the tree vanished); waiting for the next change"]
    assert last is not None and len(last.results) == 2


def test_ctrl_c_ends_the_watch_with_the_last_report(tree):
    class Interrupted:
        def batches(self, stop=None):
            raise KeyboardInterrupt
            yield  # pragma: no cover

    live = LiveRound(tree, RULES, round_reason="test")
    last = watch(live, Interrupted(), lambda r, s: None, print)
    assert last is not None and len(last.results) == 2


def test_status_lines(tree):
    live = LiveRound(tree, RULES, round_reason="test")
    report = live.check_all()
    assert describe(live, report, 0.5, True).endswith("checked 1 submitter in 0.50 s: 2 results, 0 invalid")
    report = live.recheck([os.path.join(tree, "notes.txt")])
    assert "re-read the root and division level" in describe(live, report, 0.01, False)


def test_a_missing_tree_is_a_clear_error(tmp_path):
    with pytest.raises(MlpcError, match="not found"):
        Watcher(str(tmp_path / "absent"), print)


@pytest.mark.parametrize("extra, message", [
    (["--git-ref", "HEAD"], "cannot be combined with --git-ref"),
    (["--output", "{tree}/report.json"], "lies inside the watched tree"),
])
def test_usage_errors(tree, extra, message):
    result = CliRunner().invoke(app, ["check", tree, "--watch", *[e.format(tree=tree) for e in extra]])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())
    assert not os.path.exists(os.path.join(tree, "report.json"))


def test_a_vanished_tree_ends_the_watch(tree):
    live = LiveRound(tree, RULES, round_reason="test")
    notices, shown = [], []

    class Removing:
        def batches(self, stop=None):
            shutil.rmtree(tree)
            yield {tree}
            raise AssertionError("kept watching a tree that is gone")  # pragma: no cover

    last = watch(live, Removing(), lambda r, s: shown.append(s), notices.append)
    assert len(shown) == 1 and last is not None
    assert notices == [f"{tree} is gone; stopped watching"]


def test_the_cli_watch_rewrites_its_report_and_stops_on_sigterm(tree, tmp_path):
    """End to end: a real `mlpc check --watch` process, a change on disk, SIGTERM."""
    import json
    import signal
    import subprocess
    import sys

    out = tmp_path / "report.json"
    env = dict(os.environ, MLPC_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.Popen([sys.executable, "-m", "checker.cli_main", "check", tree, "--round", "v4.1", "--watch",
                             "--format", "json", "--output", str(out), "--quiet"],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()
    try:
        assert _wait_for(lambda: any("report written" in line for line in lines), 60), "no first report"
        assert all(r["valid"] for r in json.loads(out.read_text())["results"])
        _edit(os.path.join(tree, ACCURACY))
        assert _wait_for(lambda: sum("report written" in line for line in lines) >= 2, 60), lines
        assert "AC003" in out.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        reader.join(10)
    err = "".join(lines)
    assert proc.returncode == 1, err  # the last report has an invalid result
    assert "Traceback" not in err
    assert "re-checked closed/Acme" in err and "valid -> INVALID (AC003)" in err


def test_a_report_that_cannot_be_written_is_a_notice_and_the_watch_goes_on(tree):
    live = LiveRound(tree, RULES, round_reason="test")
    notices, shown = [], []

    def show(report, status):
        shown.append(status)
        if len(shown) == 2:
            raise MlpcError("cannot write /full/disk/report.json: No space left on device")

    changed = os.path.join(tree, ACCURACY)
    watch(live, FakeWatcher([{changed}, {changed}]), show, notices.append)
    assert len(shown) == 3
    assert notices == ["cannot write /full/disk/report.json: No space left on device"]


def test_a_crashing_pass_is_a_notice_not_a_traceback(tree, monkeypatch):
    live = LiveRound(tree, RULES, round_reason="test")
    notices, shown = [], []
    monkeypatch.setattr(live, "recheck", lambda paths, progress=None: 1 / 0)
    changed = os.path.join(tree, ACCURACY)
    watch(live, FakeWatcher([{changed}, {changed}]), lambda r, s: shown.append(s), notices.append)
    assert notices == ["checking failed (ZeroDivisionError: division by zero; please report this bug); "
                       "the next change starts a full check"]
    assert len(shown) == 2 and "checked 1 submitter" in shown[1]  # the full check after it


def test_verdict_changes_lists_flips_arrivals_and_departures(tree):
    import dataclasses

    from checker.commands.watch import verdict_changes
    from checker.diagnostics import Finding, Location, Severity

    before = check_tree(tree, RULES, round_reason="test")
    one, two = before.results
    after = dataclasses.replace(before, results=[dataclasses.replace(one, valid=False),
                                                 dataclasses.replace(two, id=two.id + "X")],
                                findings=[Finding("m", Location("x"), code="PF005", severity=Severity.ERROR,
                                                  result_id=one.id),
                                          Finding("m", Location("x"), code="ST001", severity=Severity.ERROR,
                                                  result_id="")])
    count, lines = verdict_changes(before, after)
    assert count == 3
    assert lines == [f"  {one.id}: valid -> INVALID (PF005, ST001)", f"  {two.id}: gone",
                     f"  {two.id}X: new, valid"]
    assert verdict_changes(before, before) == (0, [])
    assert verdict_changes(None, before) == (0, [])
    assert verdict_changes(before, after, limit=1) == (3, [lines[0], "  ... and 2 more"])


def test_verdict_changes_are_those_of_the_waived_reports(tree, tmp_path):
    """With --waivers, a change whose only error is waived flips no verdict in the status either."""
    from checker.commands.report_output import ReportOutput
    from checker.waivers import Waiver

    output = ReportOutput("json", RULES, str(tmp_path / "r.json"),
                          waivers=((Waiver("AC003", "closed/*", "metric renamed on purpose", 0),), "w.yaml"))
    live = LiveRound(tree, RULES, round_reason="test")
    shown = []
    changed = os.path.join(tree, ACCURACY)

    class EditThenChange:
        def batches(self, stop=None):
            _edit(changed)
            yield {changed}

    watch(live, EditThenChange(), lambda r, s: shown.append((r, s)), print, prepare=output.prepare)
    report, status = shown[-1]
    assert "verdict" not in status and "0 invalid" in status
    assert any(f.code == "AC003" and f.waived for f in report.findings)
