"""The console entry ends the process without Python's teardown (``checker.cli.leave``): what a command
wrote is all there, the exit status is the one ``sys.exit`` would give, atexit functions run and other
threads are waited for. Each case runs in a new process (``leave`` ends the process that calls it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "fixtures", "example_submission_v6.0")


def _run(*args: str, program: str | None = None) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", program, *args] if program else [sys.executable, "-m", "checker.cli_main", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_a_report_on_stdout_is_written_whole():
    done = _run("check", EXAMPLE, "--profile", "smoke", "--no-cache", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)  # all of it: a truncated report does not parse
    assert report["counts"]["results"] == len(report["results"]) > 0


def test_a_report_file_is_written_whole_and_the_status_kept(tmp_path):
    out = tmp_path / "r.json"
    done = _run("check", EXAMPLE, "--no-cache", "-o", str(out))  # default profile: the example's runs are short
    assert done.returncode == 1 and "report written" in done.stderr
    assert json.loads(out.read_text())["counts"]["errors"] > 0


def test_usage_errors_keep_their_status():
    assert _run("no-such-command").returncode == 2
    assert _run("--version").returncode == 0


LEAVING = """
import atexit, sys, threading, time
from checker.cli import leave
marker, status = sys.argv[1], sys.argv[2]
atexit.register(lambda: open(marker, "a").write("atexit "))
def late():
    time.sleep(0.2)
    open(marker, "a").write("thread ")
threading.Thread(target=late).start()
print("buffered", end="")
leave(None if status == "none" else int(status) if status.lstrip("-").isdigit() else status)
"""


@pytest.mark.parametrize("status, code", [("none", 0), ("0", 0), ("1", 1), ("2", 2), ("256", 0), ("-1", 255),
                                          ("bye", 1)])
def test_leave_ends_as_sys_exit_would(tmp_path, status, code):
    marker = tmp_path / "m"
    done = _run(str(marker), status, program=LEAVING)
    assert done.returncode == code
    assert done.stdout == "buffered"  # the stream's buffer was flushed
    assert marker.read_text() == "thread atexit "  # the thread was waited for, then atexit ran
    assert done.stderr == ("bye\n" if status == "bye" else "")


def test_a_stream_that_cannot_be_flushed_gives_120():
    program = """
import sys
from checker.cli import leave
class Broken:
    def write(self, text): return len(text)
    def flush(self): raise BrokenPipeError(32, "Broken pipe")
sys.stdout = Broken()
leave(0)
"""
    done = _run(program=program)
    assert done.returncode == 120 and done.stderr == ""
