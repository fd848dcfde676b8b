"""`mlpc calc`: early-stopping, round, infer (typer CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from checker.commands.calc import app

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, list(args))


def _assert_clean_error(result, fragment: str) -> None:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert fragment in lines[0]
    assert "Traceback" not in result.output


def test_early_stopping_minima() -> None:
    r = run("early-stopping", "--percentile", "90", "--queries", "64")
    assert r.exit_code == 0, r.output
    assert "minimum queries (h(1)+1): 64" in r.stdout
    assert "met; discards the 0 highest" in r.stdout
    r = run("early-stopping", "--percentile", "0.99")
    assert "(h(1)+1): 662" in r.stdout and "(h(0)): 459" in r.stdout


def test_early_stopping_server_verdict() -> None:
    r = run("early-stopping", "-p", "99", "--queries", "100", "--overlatency", "0")
    assert r.exit_code == 0
    assert "needs at least 459 queries" in r.stdout
    assert "not met: run at least 359 more queries" in r.stdout
    r = run("early-stopping", "-p", "99", "--queries", "2010", "--overlatency", "10")
    assert "Server early stopping: met" in r.stdout
    assert "allow at most 10 over-latency" in r.stdout


def test_early_stopping_latencies_lines_and_json(tmp_path: Path) -> None:
    lat = list(range(1000, 1100))
    lines = tmp_path / "lat.txt"
    lines.write_text("\n".join(map(str, reversed(lat))) + "\n")
    as_json = tmp_path / "lat.json"
    as_json.write_text(json.dumps(lat))
    for f in (lines, as_json):
        r = run("early-stopping", "--latencies", str(f))
        assert r.exit_code == 0, r.output
        assert "100 latencies: p90 early-stopping estimate 1097 ns" in r.stdout
        assert "2 highest discarded" in r.stdout
    short = tmp_path / "short.txt"
    short.write_text("5\n" * 10)
    r = run("early-stopping", "--latencies", str(short))
    assert r.exit_code == 0 and "no estimate" in r.stdout and "64" in r.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("early-stopping", "--queries", "abc"), "--queries must be a number"),
        (("early-stopping", "--queries", "-5"), "non-negative integer"),
        (("early-stopping", "--queries", "1.5"), "non-negative integer"),
        (("early-stopping", "--overlatency", "x"), "--overlatency must be a number"),
        (("early-stopping", "--queries", "10", "--overlatency", "11"), "cannot exceed"),
        (("early-stopping", "--percentile", "100"), "--percentile must be between"),
        (("early-stopping", "--percentile", "-90"), "--percentile must be between"),
        (("early-stopping", "--percentile", "nan"), "finite"),
        (("round", "abc"), "not a number"),
        (("round", "inf"), "non-finite"),
        (("round", "1.5", "--digits", "0"), "--digits"),
        (("infer", "--from", "SingleStream", "--to", "Offline", "--latency-ms", "0"), "--latency-ms must be > 0"),
        (("infer", "--from", "SingleStream", "--to", "Offline", "--latency-ms", "-3"), "--latency-ms must be > 0"),
        (("infer", "--from", "SingleStream", "--to", "Offline", "--latency-ms", "fast"), "must be a number"),
        (("infer", "--from", "Offline", "--to", "MultiStream", "--latency-ms", "5"), "cannot infer"),
        (("infer", "--from", "Foo", "--to", "Offline", "--latency-ms", "5"), "unknown scenario"),
    ],
)
def test_bad_input_one_line_exit_2(args, fragment: str) -> None:
    _assert_clean_error(run(*args), fragment)


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("", "empty file"),
        ("  \n\n", "empty file"),
        ("12\nabc\n", "line 2: not a number"),
        ("12\n-4\n", "line 2: latency must be"),
        ("[1, 2, \"x\"]", "item 3: not a number"),
        ("[1, 2", "invalid JSON"),
        ("[]", "non-empty JSON list"),
        ("[1, [2]]", "item 2: not a latency"),
    ],
)
def test_bad_latency_files(tmp_path: Path, content: str, fragment: str) -> None:
    f = tmp_path / "lat.txt"
    f.write_text(content)
    r = run("early-stopping", "--latencies", str(f))
    _assert_clean_error(r, fragment)
    assert r.stdout == ""  # nothing printed before the error


def test_missing_latency_file(tmp_path: Path) -> None:
    _assert_clean_error(run("early-stopping", "--latencies", str(tmp_path / "nope")), "cannot read latencies")


@pytest.mark.parametrize(
    ("value", "text"), [("98.9995", "99.000"), ("99.9995", "100.00"), ("1.23445", "1.2344"), ("-98.9995", "-99.000")]
)
def test_round(value: str, text: str) -> None:
    r = runner.invoke(app, ["round", "--", value])
    assert r.exit_code == 0 and r.stdout.strip() == text


def test_round_digits() -> None:
    assert run("round", "2.5", "--digits", "1").stdout.strip() == "2"


@pytest.mark.parametrize(
    ("src", "dst", "latency", "expected"),
    [
        ("SingleStream", "MultiStream", "25", "MultiStream inferred from SingleStream: 200 ms"),
        ("singlestream", "offline", "25", "Offline inferred from SingleStream: 40 samples/s"),
        ("MultiStream", "Offline", "200", "Offline inferred from MultiStream: 40 samples/s"),
    ],
)
def test_infer_rules_examples(src: str, dst: str, latency: str, expected: str) -> None:
    r = run("infer", "--from", src, "--to", dst, "--latency-ms", latency)
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith(expected)


def test_help_lists_commands() -> None:
    r = run("--help")
    assert r.exit_code == 0
    for name in ("early-stopping", "round", "infer"):
        assert name in r.stdout
