"""`mlpc check` without typer (checker/check_argv.py, checker/cli_main.py): every command line the short
reader takes, it reads as typer does; the rest goes to typer; both ways give the same report and status."""

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st
from typer.testing import CliRunner

from checker.check_argv import DEFAULTS, parse
from tests.conftest import REPO

FIXTURE = os.path.join(REPO, "fixtures", "example_submission_v6.0")


@pytest.fixture(scope="module")
def typer_reading():
    """What the typer application passes to ``check_run.run`` for a command line (None where it refuses it)."""
    from checker import cli
    from checker.commands import check_run

    runner = CliRunner()
    seen: list[dict] = []

    def record(path, **options):
        seen.append({"path": path, **options})
        return 0

    def read(args: list[str]) -> dict | None:
        seen.clear()
        original, check_run.run = check_run.run, record
        try:
            result = runner.invoke(cli.app, args)
        finally:
            check_run.run = original
        if result.exit_code != 0 or len(seen) != 1:
            return None
        return dict(seen[0])

    return read


COMMON = [
    ["check", "tree"],
    ["check", "tree", "--round", "v4.1", "--quiet", "--no-cache", "-o", "report.json"],
    ["check", "-r", "v5.1", "tree", "-q", "-j", "2", "--format", "sarif", "--output", "r.sarif"],
    ["check", "tree", "--round=v6.0", "--jobs=0", "--profile", "official", "--strict", "--show-info", "--details"],
    ["check", "tree", "--git-ref", "main", "--cache-dir", "cache", "--waivers", "w.yaml", "--cache"],
    ["check", "tree", "-f", "markdown", "--profile=smoke", "--no-cache", "--cache"],
    ["check", "tree", "--round", "v4.1", "--round", "v5.0", "-j", "007"],
]


@pytest.mark.parametrize("args", COMMON, ids=lambda a: " ".join(a[1:]))
def test_the_common_forms_are_read_without_typer_as_typer_reads_them(args, typer_reading):
    fast = parse(args)
    assert fast is not None, args
    assert fast == typer_reading(args)


def test_the_defaults_are_those_of_the_typer_command(typer_reading):
    assert parse(["check", "tree"]) == {"path": "tree", **DEFAULTS} == typer_reading(["check", "tree"])


@pytest.mark.parametrize("args", [
    ["check"], ["check", "--help"], ["check", "tree", "--watch"], ["check", "tree", "-w"],
    ["check", "tree", "--bogus"], ["check", "tree", "-qj2"], ["check", "tree", "-rv4.1"],
    ["check", "tree", "--round"], ["check", "tree", "--round", "--quiet"], ["check", "tree", "--jobs", "-1"],
    ["check", "tree", "--jobs", "+2"], ["check", "tree", "-j", "\u0663"], ["check", "tree", "--format", "JSON"],
    ["check", "tree", "--quiet=1"], ["check", "tree", "other"], ["check", "--", "tree"], ["check", "-"],
    ["check", ""], ["check", "tree", "--round", ""], ["report", "tree"], [],
], ids=lambda a: " ".join(a) or "(nothing)")
def test_anything_else_is_left_to_typer(args):
    assert parse(args) is None


TOKENS = st.sampled_from([
    "tree", "a b", "check", "x.json", "r.sarif", "v4.1", "json", "text", "csv", "sarif", "markdown", "junit",
    "official", "smoke", "default", "3", "0", "007", "-1", "+2", "\u0663", "", "-", "--", "JSON", "x=y",
    "--round", "-r", "--format", "-f", "--output", "-o", "--profile", "--jobs", "-j", "--git-ref", "--cache-dir",
    "--waivers", "--strict", "--show-info", "--details", "--quiet", "-q", "--cache", "--no-cache", "--help",
    "--watch", "-w", "--bogus", "-qj2", "-rv4.1", "--round=v5.1", "--jobs=2", "--jobs=x", "--format=json", "--format=JSON",
    "--quiet=1", "-o=x", "--output=a.csv", "--profile=smoke", "--round=",
])


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(TOKENS, max_size=8))
def test_what_the_short_reader_takes_typer_reads_the_same(typer_reading, tokens):
    args = ["check", *tokens]
    fast = parse(args)
    if fast is not None:
        assert fast == typer_reading(args), args


PROBE = """
import json, os, sys
sys.argv = ["/usr/bin/mlpc", *sys.argv[1:]]
from checker import cli_process

def leave(code):
    print(json.dumps({"code": code, "typer": "typer" in sys.modules}))
    sys.stdout.flush()
    os._exit(0)

cli_process.leave = leave
from checker.cli_main import main
main()
"""


def _run(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=REPO,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "stderr": out.stderr}


def _report(path) -> dict:
    data = json.loads(path.read_text())
    data.pop("elapsed_seconds", None)
    return data


def test_a_check_gives_the_same_report_and_status_either_way(tmp_path):
    fast = _run("check", FIXTURE, "--round", "v6.0", "--quiet", "--no-cache", "--jobs", "1",
                "-o", str(tmp_path / "fast.json"))
    # short options run together are left to typer
    slow = _run("check", FIXTURE, "-rv6.0", "-qj1", "--no-cache", "--output", str(tmp_path / "slow.json"))
    assert not fast["typer"] and slow["typer"]
    assert fast["code"] == slow["code"] and fast["code"] in (0, 1)
    assert _report(tmp_path / "fast.json") == _report(tmp_path / "slow.json")


def test_usage_errors_and_help_read_the_same_either_way(tmp_path):
    missing = str(tmp_path / "missing")
    fast, slow = _run("check", missing, "-q"), _run("check", missing, "-qj1")
    assert not fast["typer"] and slow["typer"]
    assert fast["code"] == slow["code"] == 2
    assert "error:" in fast["stderr"] and fast["stderr"] == slow["stderr"]
    mismatch = _run("check", FIXTURE, "-f", "text", "-o", str(tmp_path / "r.json"))
    assert mismatch["code"] == 2 and "does not match the output file" in mismatch["stderr"]
    helped = _run("check", "--help")
    assert helped["typer"] and helped["code"] == 0
    unknown = _run("check", FIXTURE, "--bogus")
    assert unknown["typer"] and unknown["code"] == 2
