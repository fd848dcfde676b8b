"""The C line walk of detail logs (checker/_detail_scan.c) gives the same parsed log as the Python walk,
on every real log and on logs made of every kind of line the walk tells apart; and where it is not built
(or not wanted) the Python walk is used."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, strategies as st

from checker.loaders import loadgen_log
from checker.loaders.loadgen_log import DetailLog, _walk_lines, parse_detail_text
from tests.conftest import REAL

scan = loadgen_log._compiled_scan()
needs_scan = pytest.mark.skipif(scan is None and not os.environ.get("CI"),
                                reason="the C extension checker._detail_scan is not built here")


def _fields(log: DetailLog) -> tuple:
    return (log.raw, log.duplicates, log.errors, log.warnings, log.problems, log.lines_total, log.foreign_lines,
            log.undecodable, log._cache)


def _python(text: str) -> DetailLog:
    log = DetailLog(path="x")
    log.lines_total, markers = _walk_lines(log, text)
    log.undecodable = "\ufffd" in text
    if markers == 0:
        log.problems.append(loadgen_log.LogProblem(0, f"no '{loadgen_log.MARKER}' lines: not a LoadGen detail log"))
    return log


def _same(text: str) -> bool:
    """Whether both walks give the same log (the C one when it takes the text, else the Python one)."""
    return _fields(parse_detail_text(text, "x")) == _fields(_python(text))


def test_the_extension_is_built_on_ci():
    """CI installs the project with a compiler: the extension must be there, or the fast path is untested."""
    if os.environ.get("CI") and scan is None:
        pytest.fail("checker._detail_scan was not built (is a C compiler and Python.h installed?)")


@needs_scan
def test_every_real_detail_log_parses_the_same():
    if not os.path.isdir(REAL):
        pytest.skip(f"real submission data not found at {REAL}")
    taken = count = 0
    for folder, _, files in os.walk(REAL):
        for name in files:
            if name == "mlperf_log_detail.txt":
                with open(os.path.join(folder, name), "rb") as handle:
                    text = handle.read().decode("utf-8", errors="replace")
                assert _same(text), os.path.join(folder, name)
                log = DetailLog(path="x")
                taken += scan(text, log.raw, log.duplicates, lambda *a: None) is not None
                count += 1
    assert count > 300 and taken > count * 0.9, (count, taken)  # the C walk takes nearly every real log


_TAIL = ', "time_ms": 1.5, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": ' \
        '{"is_error": %s, "is_warning": %s, "file": "a.cc", "line_no": 1, "pid": 1, "tid": 2}}'
_KEYS = st.sampled_from(["loadgen_version", "effective_qsl_rng_seed", "result_validity", "a\\\\b", "", "k\u00e9y"])
_VALUES = st.sampled_from(['"6.0.10"', "1", "true", '"x\\\\n"', "[1, 2, 3]", '{"value": 2}', '"\u00ff"'])


@st.composite
def _lines(draw) -> str:
    kind = draw(st.sampled_from(["entry", "entry", "entry", "flag", "blank", "space", "crlf", "foreign",
                                 "no-quote", "bad-json", "marker-later", "latin1", "wide", "cut"]))
    key, value = draw(_KEYS), draw(_VALUES)
    flags = ("true", "false") if kind == "flag" and draw(st.booleans()) else \
        ("false", "true") if kind == "flag" else ("false", "false")
    line = ':::MLLOG {"key": "%s", "value": %s%s' % (key, value, _TAIL % flags)
    return {"entry": line, "flag": line, "blank": "", "space": "  \t", "crlf": line + "\r",
            "foreign": "something else", "no-quote": ':::MLLOG {"key": "abc}', "bad-json": ':::MLLOG {"key": "k", }',
            "marker-later": "  :::MLLOG " + line[9:], "latin1": line.replace("a.cc", "\u00e0.cc"),
            "wide": line.replace("a.cc", "\u20ac.cc"), "cut": line[:draw(st.integers(0, len(line)))]}[kind]


@needs_scan
@given(st.lists(_lines(), max_size=12), st.booleans())
def test_both_walks_agree_on_any_mix_of_lines(lines, final_newline):
    text = "\n".join(lines) + ("\n" if final_newline and lines else "")
    assert _same(text)


@needs_scan
def test_a_flag_far_from_the_line_end_is_not_a_flag_in_either_walk():
    value = '"%s"' % ('"is_error": true'.replace('"', "'") + "x" * 400)
    line = ':::MLLOG {"key": "k", "value": %s, "note": "\\"is_error\\": true", "pad": "%s"%s' % (
        value, "y" * 400, _TAIL % ("false", "false"))
    assert _same(line + "\n")
    assert _same(':::MLLOG {"key": "k", "value": 1' + _TAIL % ("true", "false") + "\n")


def test_the_python_walk_is_used_when_asked(monkeypatch):
    """MLPC_PURE_PYTHON (read when the module is imported) leaves the C walk out."""
    monkeypatch.setenv("MLPC_PURE_PYTHON", "1")
    assert loadgen_log._compiled_scan() is None
    monkeypatch.setattr(loadgen_log, "_SCAN", None)
    text = ':::MLLOG {"key": "k", "value": 1' + _TAIL % ("false", "false") + "\n"
    assert _fields(parse_detail_text(text)) == _fields(_python(text))
