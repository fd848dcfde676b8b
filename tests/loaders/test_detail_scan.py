"""The C extension of detail logs (checker/_detail_scan.c) answers as the Python code it stands for: its
line walk gives the same parsed log as the Python walk, on every real log and on logs made of every kind
of line the walk tells apart, and its line-tail test the same answer as the regular expression
``_LINE_TAIL``; where it is not built (or not wanted) the Python code is used."""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import given, settings, strategies as st

from checker.loaders import loadgen_log
from checker.loaders.compiled import compiled
from checker.loaders.loadgen_log import DetailLog, parse_detail_text
from tests.conftest import real_files

scan = compiled("scan")
tail_ok = compiled("tail_ok")
needs_scan = pytest.mark.skipif(scan is None and not os.environ.get("CI"),
                                reason="the C extension checker._detail_scan is not built here")


def _entries(log: DetailLog) -> list:
    """(key, the characters of its entry, its line number) of each entry, in order (the C walk keeps the line of a
    flagged line in the log's text, the Python walk the line alone)."""
    return [(key, text[start:end], number) for key, (text, start, end, number) in map(lambda k: (k, log.entry(k)), log.raw)]


def _fields(log: DetailLog) -> tuple:
    return (_entries(log), log.duplicates, log.errors, log.warnings, log.problems, log.lines_total, log.foreign_lines,
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
    taken = count = 0
    for path in real_files(lambda name: name == "mlperf_log_detail.txt"):
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", errors="replace")
        assert _same(text), path
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
    """MLPC_PURE_PYTHON (read when the module is imported) leaves the C code out: the logs read the same."""
    monkeypatch.setenv("MLPC_PURE_PYTHON", "1")
    names = ("scan", "tail_ok", "entry_lines", "values", "summary")
    assert all(compiled(name) is None for name in names)
    for name in ("_SCAN", "_VALUES", "_SUMMARY"):
        monkeypatch.setattr(loadgen_log, name, None)
    text = ':::MLLOG {"key": "k", "value": 1' + _TAIL % ("false", "false") + "\n"
    for log in (parse_detail_text(text), loadgen_log.parse_detail_bytes(text.encode())):
        assert (list(log.raw), log.get("k"), log.lines_total, log.problems) == (["k"], 1, 1, [])
        assert isinstance(log.entry("k")[0], str)
    assert loadgen_log.parse_summary_text("* a : b\n") == {"a": "b"}


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
    lines = 0
    for path in real_files(lambda name: name == "mlperf_log_detail.txt"):
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", errors="replace")
        log = parse_detail_text(text)
        for key in log.raw:
            line, start, end, _ = log.entry(key)
            at = line.find('"value": ', start, end) + len('"value": ')
            try:
                _, stop = loadgen_log._DECODER.raw_decode(line, at)
            except ValueError:
                continue
            assert tail_ok(line, stop, end) == _regex(line, stop, end), (folder, key)
            lines += 1
    assert lines > 10000


# --------------------------------------------------------------------------- the values of a log at once

values = compiled("values")
needs_values = pytest.mark.skipif(values is None and not os.environ.get("CI"),
                                  reason="the C extension checker._detail_scan is not built here")


def _decoded_alone(text, parse=parse_detail_text) -> tuple:
    """Every key's value as DetailLog.get decodes it alone (the batch in C set aside), and the problems."""
    saved, loadgen_log._VALUES = loadgen_log._VALUES, None
    try:
        log = parse(text, "x")
        return {key: repr(log.get(key)) for key in log.raw}, log.problems
    finally:
        loadgen_log._VALUES = saved


def _decoded_at_once(text, parse=parse_detail_text) -> tuple:
    log = parse(text, "x")
    return {key: repr(log.get(key)) for key in log.raw}, log.problems


_VALUE_TEXTS = ['"Offline"', '""', '"x\\"y"', '"a\\\\b"', '"\\u00e9"', '"tab\there"', '"\u00e9t\u00e9"', '"\u20ac"',
                '"\x7f\x1f"', '"unterminated', '"a', "0", "-0", "7", "-12", "01", "1.", "1.5", "-0.25", "1e5", "1E+5",
                "1e-5", "1e", "1e+", "1.5e3", "2.", "00", "-", "-a", "123456789012345678", "-12345678901234567",
                "1234567890123456789", "18446744073709551615", "18446744073709551616", "99999999999999999999",
                "-9223372036854775808", "-9223372036854775809", "-18446744073709551615", "9" * 70, "1e400", "-1e400", "0.1" + "0" * 80,
                "true", "false", "null", "tru", "nul", "falsey", "True", "NaN", "Infinity", "-Infinity", "[1, 2]",
                "[]", "{}", '{"value": 3}', "[1,\n2]", " 5", "", "3 "]
_TAIL_TEXTS = [_TAIL % ("false", "false"), (_TAIL % ("false", "false")).replace("1.5", "01"),
               (_TAIL % ("false", "false")).replace('"a.cc"', '"a\\q"'), (_TAIL % ("false", "false"))[:-1],
               (_TAIL % ("false", "false")) + " ", ', "value": 9}', "}", (_TAIL % ("false", "false")).replace(", ", ",", 1)]


@st.composite
def _value_lines(draw) -> str:
    key = draw(st.sampled_from(["k", "result_validity", "k\x01", "k\x7f", "k\u00e9", "k\u20ac", "\u00a0k", "k y"]))
    joint = draw(st.sampled_from(['", "value": ', '",  "value": ', '","value": ']))
    return ':::MLLOG {"key": "%s%s%s%s' % (key, joint, draw(st.sampled_from(_VALUE_TEXTS)),
                                            draw(st.sampled_from(_TAIL_TEXTS)))


@needs_values
@settings(max_examples=300)
@given(st.lists(_value_lines(), min_size=1, max_size=8), st.sampled_from(["\n", "\r\n"]))
def test_values_at_once_are_the_values_decoded_alone(lines, newline):
    """Every value (and every invalid-JSON problem, in the order the keys are asked) is the same whether the
    plain values were decoded at once in C or each alone in Python, from a str or from the log's bytes."""
    text = newline.join(lines) + newline
    want = _decoded_alone(text)
    assert _decoded_at_once(text) == want
    data = text.encode("utf-8")
    assert _decoded_at_once(data, loadgen_log.parse_detail_bytes) == want
    assert _decoded_alone(data, loadgen_log.parse_detail_bytes) == want


@needs_values
def test_values_at_once_take_only_plain_values():
    text = "".join(':::MLLOG {"key": "k%d", "value": %s%s\n' % (i, v, _TAIL % ("false", "false"))
                   for i, v in enumerate(['"s"', "12", "-1.5e3", "true", "null", "[1]", '"a\\nb"', "NaN", "1" * 70]))
    log = parse_detail_text(text)
    values(log.raw, log._cache, log._text, log._spans)
    assert log._cache == {"k0": "s", "k1": 12, "k2": -1500.0, "k3": True, "k4": None}  # (70 digits: left to json)
    assert [log.get(f"k{i}") for i in range(9)] == ["s", 12, -1500.0, True, None, [1], "a\nb", log.get("k7"), int("1" * 70)]
    assert log.get("k7") != log.get("k7")  # (nan)


@needs_values
def test_values_at_once_on_every_real_detail_log():
    count = 0
    for path in real_files(lambda name: name == "mlperf_log_detail.txt"):
        with open(path, "rb") as handle:
            data = handle.read()
        want = _decoded_alone(data.decode("utf-8", errors="replace"))
        assert _decoded_at_once(data, loadgen_log.parse_detail_bytes) == want, path
        count += 1
    assert count > 300


@needs_values
def test_values_at_once_of_line_numbers_read_only_their_spans():
    """The C walk's entries are line numbers of the log's text: values() reads them through the spans it is
    given, and skips a number without a span (none given, 0, negative, past the last line, too large)."""
    text = "".join(':::MLLOG {"key": "k%d", "value": %d%s\n' % (i, i, _TAIL % ("false", "false")) for i in range(3))
    log = loadgen_log.parse_detail_bytes(text.encode())
    assert log.raw == {"k0": 1, "k1": 2, "k2": 3} and log._text == text.encode()
    assert [log.entry(k)[1:] for k in log.raw] == [(9, len(text) // 3 - 1, 1), (len(text) // 3 + 9, 2 * len(text) // 3 - 1, 2),
                                                   (2 * len(text) // 3 + 9, len(text) - 1, 3)]
    cache: dict = {}
    values(log.raw, cache)
    assert cache == {}
    odd = {"a": 0, "b": -1, "c": 4, "d": 2 ** 70, "k2": 3}
    values(odd, cache, log._text, log._spans)
    assert cache == {"k2": 2}
    values(dict(log.raw), cache, log._text, log._spans[:-16])  # (spans of two lines only)
    assert cache == {"k0": 0, "k1": 1, "k2": 2}


@st.composite
def _flagged_lines(draw) -> str:
    """A line flagged as an error and/or a warning, of odd keys, values and tails too."""
    key = draw(st.sampled_from(["k", "warning_generic_message", "error_invalid_config", "k\x01", "k\x7f", "k\u00e9",
                                "\u00a0k", "k y"]))
    tail = _TAIL % (draw(st.sampled_from(["true", "false"])), draw(st.sampled_from(["true", "false"])))
    tail = draw(st.sampled_from([tail, tail.replace("1.5", "01"), tail.replace('"a.cc"', '"a\\q"'), tail[:-1], tail + " ",
                                 tail.replace('"a.cc"', '"{\\"is_error\\": false"'), tail.replace(", ", ",", 1),
                                 tail.replace('"a.cc"', '"{\\"is_error\\": true}"'), tail + ', "value": 9}']))
    joint = draw(st.sampled_from(['", "value": ', '",  "value": ']))
    return ':::MLLOG {"key": "%s%s%s%s' % (key, joint, draw(st.sampled_from(_VALUE_TEXTS)), tail)


@needs_scan
@settings(max_examples=300)
@given(st.lists(st.one_of(_flagged_lines(), _lines()), min_size=1, max_size=8), st.sampled_from(["\n", "\r\n"]))
def test_flagged_lines_read_in_c_are_what_the_python_walk_makes(lines, newline):
    """A flagged line of a plain value and LoadGen's tail, read in C, gives the log's errors, warnings, entries,
    duplicates, values and problems the Python walk gives (_slow_line); from a str and from the log's bytes."""
    text = newline.join(lines) + newline
    assert _same(text)
    _same_log(text.encode("utf-8"))


@needs_scan
def test_a_flagged_line_of_a_plain_value_is_read_without_the_slow_walk():
    def line(key, value, error, warning):
        return ':::MLLOG {"key": "%s", "value": %s%s\n' % (key, value, _TAIL % (error, warning))

    text = (line("warning_generic_message", '"Found audit.config"', "false", "true") + line("k", "1", "true", "true")
            + line("warning_generic_message", '"again"', "false", "true") + line("e", "[1]", "true", "false")
            + line("w", '"x\\ny"', "false", "true") + line("k\x01", "2", "true", "false"))
    calls = []
    log = DetailLog(path="x")
    lines, markers, log._spans = scan(text.encode(), log.raw, log.duplicates, lambda *a: calls.append(a), log.errors,
                                      log.warnings, log._cache)
    log._text = text.encode()
    assert [number for _, number in calls] == [4, 5, 6]  # (not a plain value, an escape, a control character)
    assert (lines, markers, log.raw, log.duplicates) == (6, 6, {"warning_generic_message": 1, "k": 2},
                                                         ["warning_generic_message"])
    assert log.errors == [("k", 1, 2)]
    assert log.warnings == [("warning_generic_message", "Found audit.config", 1), ("warning_generic_message", "again", 3)]
    assert log._cache == {"warning_generic_message": "Found audit.config", "k": 1}
    assert log.entry("k") == (text.encode(), len(line("warning_generic_message", '"Found audit.config"', "false", "true")) + 9,
                              len(line("warning_generic_message", '"Found audit.config"', "false", "true"))
                              + len(line("k", "1", "true", "true")) - 1, 2)
    python = _python(text)
    assert (python.errors, python.warnings[:2], python.duplicates) == (log.errors + [("e", [1], 4)], log.warnings,
                                                                         log.duplicates)
    assert [p.line for p in python.problems] == [6]  # (a control character in a string: not JSON)


def test_a_log_is_decoded_at_once_only_once(monkeypatch):
    calls = []
    monkeypatch.setattr(loadgen_log, "_VALUES", lambda raw, cache, *text_and_spans: calls.append(len(raw)))
    log = parse_detail_text(':::MLLOG {"key": "k", "value": [1]%s\n' % (_TAIL % ("false", "false")))
    assert (log.get("k"), log.get("k"), log.get("absent", 3), calls) == ([1], [1], 3, [1])


# --------------------------------------------------------------------------- the walk of a log's bytes


def _same_log(data: bytes) -> None:
    """parse_detail_bytes(data) is the log parse_detail_text gives of its decoded text: the same entries
    (the same characters), duplicates, flags, problems, counts and values."""
    text = data.decode("utf-8", errors="replace")
    want, got = parse_detail_text(text, "x"), loadgen_log.parse_detail_bytes(data, "x")
    for log in (want, got):
        log.entries = {key: (bytes(t[s:e]) if isinstance(t, bytes) else t[s:e].encode("utf-8"), n)
                       for key, (t, s, e, n) in ((key, log.entry(key)) for key in log.raw)}
    assert (got.entries, got.duplicates, got.errors, got.warnings, got.problems, got.lines_total, got.foreign_lines,
            got.undecodable, got._cache) == (want.entries, want.duplicates, want.errors, want.warnings, want.problems,
                                            want.lines_total, want.foreign_lines, want.undecodable, want._cache)
    assert {k: repr(got.get(k)) for k in got.raw} == {k: repr(want.get(k)) for k in want.raw}
    assert got.problems == want.problems


@given(st.lists(_lines(), max_size=12), st.booleans(), st.sampled_from([b"", b"\xff", b"\xc3\xa9", b"\x80abc"]))
def test_the_bytes_walk_gives_the_log_of_the_decoded_text(lines, final_newline, odd):
    text = "\n".join(lines) + ("\n" if final_newline and lines else "")
    _same_log(text.encode("utf-8"))
    _same_log(text.encode("utf-8") + odd)  # (bytes that are not all ASCII: the text walk)


@needs_scan
def test_the_bytes_walk_takes_ascii_logs_only():
    line = ':::MLLOG {"key": "k", "value": 1%s\n' % (_TAIL % ("false", "false"))
    log = DetailLog(path="x")
    lines, markers, log._spans = scan(line.encode(), log.raw, log.duplicates, lambda *a: None)
    log._text = line.encode()
    assert (lines, markers, log.raw) == (1, 1, {"k": 1}) and type(next(iter(log.raw))) is str
    assert log.entry("k") == (line.encode(), 9, len(line) - 1, 1)
    for data in (line.replace("a.cc", "\u00e9.cc").encode("utf-8"), line.encode() + b"\x80"):
        log = DetailLog(path="x")
        assert scan(data, log.raw, log.duplicates, lambda *a: None) is None and not log.raw
    with pytest.raises(TypeError):
        scan(bytearray(line.encode()), {}, [], lambda *a: None)


@needs_scan
def test_every_real_detail_log_walks_the_same_as_bytes():
    count = 0
    for path in real_files(lambda name: name == "mlperf_log_detail.txt"):
        with open(path, "rb") as handle:
            _same_log(handle.read())
        count += 1
    assert count > 300


@needs_scan
@pytest.mark.parametrize("phrase", ['"is_error": true', '"is_warning": true', '"is_error": false', '"is_error":true',
                                    '"is_error": tru', '"is_warning": truee', 'is_error": true', '"is_Error": true',
                                    '"is_error": "true"', '"u": true'])
@pytest.mark.parametrize("offset", [-2, -1, 0, 1, 2, 150])
def test_a_flag_is_seen_exactly_within_the_last_300_characters(phrase, offset):
    """The C walk looks for the flag phrases from one "u" to the next: the same lines go the careful way as in
    the Python walk wherever the phrase sits against the start of the window (the last 300 characters);
    ``offset``: where the phrase starts from the window's start."""
    head = ':::MLLOG {"key": "k", "value": 1, "pad": "%s", "m": {' % ("x" * 100)
    filler = 300 - offset - len(phrase)  # the characters after the phrase: }, "z": "uuu"}
    line = head + phrase + '}, "z": "' + "u" * (filler - 11) + '"}'
    assert len(head) - (len(line) - 300) == offset
    assert _same(line + "\n") and _same(line + "\r\n") and _same(line + " \n")


# --------------------------------------------------------------------------- summary logs

summary = compiled("summary")
needs_summary = pytest.mark.skipif(summary is None and not os.environ.get("CI"),
                                   reason="the C extension checker._detail_scan is not built here")
_SUMMARY_CHARS = st.sampled_from(["a", "K", " ", ":", "*", "* ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c",
                                  "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u00e9", "(ns)", "99.00", "=", "\x00"])


@needs_summary
@settings(max_examples=500)
@given(st.lists(_SUMMARY_CHARS, max_size=40).map("".join))
def test_the_summary_reading_in_c_is_the_line_by_line_reading(text):
    assert summary(text) == loadgen_log._summary_lines(text)
    assert list(summary(text)) == list(loadgen_log._summary_lines(text))  # (the same order, first wins)


@needs_summary
def test_the_summary_reading_in_c_leaves_wide_text_to_python():
    text = "Result is : VALID\n\u20ac : x\n"
    assert summary(text) is None
    assert loadgen_log.parse_summary_text(text) == {"Result is": "VALID", "\u20ac": "x"}
    assert summary("") == {} and summary(" * a : b \r\n* a: c\n:x\n *  :y") == {"a": "b"}


@needs_summary
def test_every_real_summary_log_reads_the_same():
    count = 0
    for path in real_files(lambda name: name == "mlperf_log_summary.txt"):
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", errors="replace")
        assert loadgen_log.parse_summary_text(text) == loadgen_log._summary_lines(text), path
        count += 1
    assert count > 300


@needs_scan
def test_short_ascii_keys_are_one_object_for_every_log():
    """The walks give the same (interned) str for a key met again, and the same characters as ever."""
    long_key = "k" * 65
    lines = "".join(':::MLLOG {"key": "%s", "value": 1%s\n' % (key, _TAIL % ("false", "false"))
                    for key in ("effective_scenario", long_key, "k\u00e9"))
    first, second = (loadgen_log.parse_detail_bytes(lines.encode("utf-8")) for _ in range(2))
    wide = parse_detail_text(lines)
    assert list(first.raw) == list(second.raw) == list(wide.raw) == ["effective_scenario", long_key, "k\u00e9"]
    interned = sys.intern("effective_scenario")
    assert next(iter(first.raw)) is next(iter(second.raw)) is interned
    assert [first.get(k) for k in first.raw] == [1, 1, 1]
    ascii_lines = lines.replace("k\u00e9", "ke")
    one, two = (loadgen_log.parse_detail_bytes(ascii_lines.encode()) for _ in range(2))
    assert [a is b for a, b in zip(one.raw, two.raw)] == [True, False, True]
    if summary is not None:
        assert next(iter(summary("Result is : VALID\n"))) is next(iter(summary(" Result is:x")))


@needs_tail
@pytest.mark.parametrize("run", [1, 7, 8, 9, 15, 16, 17, 30])
@pytest.mark.parametrize("after", ["/", ":", "0", "\u00b0", "\u00b5", "\u00b9", "\u00ba", ".", "e", ","])
def test_the_tail_test_reads_long_digit_runs_as_the_regular_expression(run, after):
    """Digits are read eight at a time: a run of any length, ended by any character (the ASCII neighbours of
    the digits, and the Latin-1 characters whose low seven bits are a digit's)."""
    digits = "123456789" * 4
    base = _TAIL % ("false", "true")
    for old in ("1.5", '"line_no": 1', '"tid": 2'):
        for new in (digits[:run], digits[:run] + after + digits[:run]):
            tail = base.replace(old, old.rsplit(" ", 1)[0] + " " + new if " " in old else new)
            assert tail_ok(tail, 0, len(tail)) == _regex(tail, 0, len(tail)), tail
