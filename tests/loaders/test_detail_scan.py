"""The C extension of detail logs (checker/_detail_scan.c) answers as the Python code it stands for: its
line walk gives the same parsed log as the Python walk, on every real log and on logs made of every kind
of line the walk tells apart, and its line-tail test the same answer as the regular expression
``_LINE_TAIL``; where it is not built (or not wanted) the Python code is used."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings, strategies as st

from checker.loaders import loadgen_log
from checker.loaders.compiled import compiled
from checker.loaders.loadgen_log import DetailLog, parse_detail_text
from tests.conftest import REAL

scan = compiled("scan")
tail_ok = compiled("tail_ok")
needs_scan = pytest.mark.skipif(scan is None and not os.environ.get("CI"),
                                reason="the C extension checker._detail_scan is not built here")


def _fields(log: DetailLog) -> tuple:
    return (log.raw, log.duplicates, log.errors, log.warnings, log.problems, log.lines_total, log.foreign_lines,
            log.undecodable, log._cache)


def _python(text: str) -> DetailLog:
    """The log parse_detail_text gives with the Python walk."""
    saved, loadgen_log._SCAN = loadgen_log._SCAN, None
    try:
        return parse_detail_text(text, "x")
    finally:
        loadgen_log._SCAN = saved


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
    assert compiled("scan") is None and compiled("tail_ok") is None and compiled("entry_lines") is None
    monkeypatch.setattr(loadgen_log, "_SCAN", None)
    text = ':::MLLOG {"key": "k", "value": 1' + _TAIL % ("false", "false") + "\n"
    log = parse_detail_text(text)
    assert (list(log.raw), log.get("k"), log.lines_total, log.problems) == (["k"], 1, 1, [])


def _regex(text: str, stop: int, end: int) -> bool:
    return loadgen_log._LINE_TAIL.fullmatch(text, stop, end) is not None


_CHARS = st.sampled_from(["a", ":", " ", '"', "\\", "/", "b", "u", "0", "F", "g", "x", "\x00", "\x1f", "\x7f", "\u00e9",
                          "\u20ac", "\U0001f600"])
_ESCAPES = st.sampled_from(['\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u00e9", "\\uABCD",
                            "\\u12g4", "\\u12", "\\x", "\\a", "\\"])
_STRINGS = st.lists(st.one_of(_CHARS, _ESCAPES), max_size=6).map(lambda parts: '"%s"' % "".join(parts)) | \
    st.sampled_from(['"mlperf::logging"', '"', '"a', "a", '""'])
_INTEGERS = st.sampled_from(["0", "7", "12", "-0", "-12", "00", "01", "-", "", "1a", "+1", " 1"])
_NUMBERS = st.tuples(_INTEGERS, st.sampled_from(["", ".5", ".25", ".", ".x", "5"]),
                     st.sampled_from(["", "e5", "E-3", "e+10", "e", "E+", "e1.5"])).map("".join)
_BOOLEANS = st.sampled_from(["true", "false", "tru", "False", "1", "truee"])
_SEPARATORS = st.sampled_from([", ", ",", ",  ", "; "])


_VALID_STRINGS = st.lists(st.one_of(st.sampled_from(["a", ":", " ", "/", "\x7f", "\u00e9", "\u20ac", "\U0001f600"]),
                                    _ESCAPES.filter(lambda e: e in ('\\"', "\\\\", "\\/", "\\n", "\\u00e9", "\\uABCD"))),
                          max_size=6).map(lambda parts: '"%s"' % "".join(parts))


@st.composite
def _tails(draw) -> str:
    """A LoadGen line tail whose parts are each valid nine times in ten (numbers, strings with every kind of
    escape and character, booleans, separators) and otherwise drawn from near misses, so that about half the
    tails are valid; one in five has a piece cut out."""

    def part(valid, anything):
        return draw(valid) if draw(st.integers(0, 19)) else draw(anything)

    number = part(st.sampled_from(["0", "1.5", "12", "1e5", "1.25E-3", "-7", "0.0", "3.25e+2"]), _NUMBERS)
    integer = [part(st.sampled_from(["0", "7", "12", "-3", "4194304"]), _INTEGERS) for _ in range(3)]
    text = [part(_VALID_STRINGS, _STRINGS) for _ in range(3)]
    flags = [part(st.sampled_from(["true", "false"]), _BOOLEANS) for _ in range(2)]
    tail = (f'{part(st.just(", "), _SEPARATORS)}"time_ms": {number}, "namespace": {text[0]}, "event_type": {text[1]}, '
            f'"metadata": {{"is_error": {flags[0]}, "is_warning": {flags[1]}, "file": {text[2]}, '
            f'"line_no": {integer[0]}, "pid": {integer[1]}, "tid": {integer[2]}}}}}')
    if draw(st.integers(0, 4)) == 0:
        at = draw(st.integers(0, len(tail)))
        tail = tail[:at] + tail[at + draw(st.integers(1, 3)):]
    return tail


needs_tail = pytest.mark.skipif(tail_ok is None and not os.environ.get("CI"),
                                reason="the C extension checker._detail_scan is not built here")


@needs_tail
@settings(max_examples=500)
@given(_tails(), st.integers(0, 3), st.integers(0, 3))
def test_the_tail_test_answers_as_the_regular_expression(tail, before, after):
    text = "v" * before + tail + "w" * after
    for stop, end in ((before, before + len(tail)), (before, len(text)), (0, before + len(tail))):
        assert tail_ok(text, stop, end) == _regex(text, stop, end), (text, stop, end)


_NEAR_MISSES = [("a.cc", "a\x1fcc"), ("a.cc", "a\x00cc"), ("a.cc", "a\\xcc"), ("a.cc", "a\\u12cc"), ("a.cc", "a\\u12G4"),
                ("a.cc", 'a"cc'), ("a.cc", "a\\"), ("1.5", "01.5"), ("1.5", "1."), ("1.5", "1.5e"), ("1.5", "-"),
                ("1.5", "+1.5"), ('"pid": 1', '"pid": 01'), ('"pid": 1', '"pid": -'), ("false", "fals"),
                ("false", "False"), ("}}", "}"), ("}}", "}} "), (", ", ",", 1), ("mlperf", "ml\x7f\u00e9\\/perf"),
                ("a.cc", "a\\u00e9\\n\\\"\\\\cc"), ("1.5", "-0.25E+12"), ('"tid": 2', '"tid": -0')]


@needs_tail
@pytest.mark.parametrize("edit", _NEAR_MISSES)
def test_the_tail_test_answers_as_the_regular_expression_on_near_misses(edit):
    """A tail with one part made (in)valid in each of the ways the grammar tells apart."""
    tail = (_TAIL % ("false", "true")).replace(*edit)
    assert tail_ok(tail, 0, len(tail)) == _regex(tail, 0, len(tail)), tail


@needs_tail
def test_the_tail_test_takes_any_range_without_failing():
    text = _TAIL % ("false", "true")
    assert tail_ok(text, 0, len(text)) and not tail_ok(text, 0, len(text) - 1)
    for stop, end in ((-1, 5), (5, 2), (0, len(text) + 1), (len(text), len(text))):
        assert tail_ok(text, stop, end) is False


@needs_tail
def test_every_real_detail_line_has_the_same_tail_answer():
    if not os.path.isdir(REAL):
        pytest.skip(f"real submission data not found at {REAL}")
    lines = 0
    for folder, _, files in os.walk(REAL):
        if "mlperf_log_detail.txt" not in files:
            continue
        with open(os.path.join(folder, "mlperf_log_detail.txt"), "rb") as handle:
            text = handle.read().decode("utf-8", errors="replace")
        log = parse_detail_text(text)
        for key, (line, start, end, _) in log.raw.items():
            at = line.find('"value": ', start, end) + len('"value": ')
            try:
                _, stop = loadgen_log._DECODER.raw_decode(line, at)
            except ValueError:
                continue
            assert tail_ok(line, stop, end) == _regex(line, stop, end), (folder, key)
            lines += 1
    assert lines > 10000
