"""The fast paths added for speed must give exactly what the general paths give.

Each parser keeps a general line-by-line path next to a fast one for well-formed input; these tests
feed both generated input (hypothesis) and the published logs, and compare.
"""

from __future__ import annotations

import glob
import os
import struct
from datetime import datetime

from hypothesis import example, given, settings
from hypothesis import strategies as st

from checker.audit import compliance
from checker.audit import verify_tests as vt
from checker.loaders.audit_spec import load_round_spec
from checker.loaders import loadgen_log
from checker.metrics import power, ptd_log, ptd_read
from tests.conftest import REAL

SHARED = REAL  # the shared real data (tests/conftest.py; MLPC_SHARED moves it)


def _real(name: str) -> list[str]:
    return sorted(glob.glob(os.path.join(SHARED, "**", name), recursive=True))


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


# --- spl.txt --------------------------------------------------------------------------------------

_stamp = st.builds(lambda mo, d, h, mi, s, ms: f"{mo:02d}-{d:02d}-2024 {h:02d}:{mi:02d}:{s:02d}.{ms:03d}",
                   st.integers(1, 13), st.integers(1, 31), st.integers(0, 24), st.integers(0, 60),
                   st.integers(0, 62), st.integers(0, 999))
_watts = st.one_of(st.floats(0, 2000, allow_nan=False).map(lambda w: f"{w:.6f}"), st.sampled_from(["nan", "x", ""]))
_record = st.builds(lambda stamp, w: f"Time,{stamp},Watts,{w},Volts,120.0,Amps,1.0,PF,0.99,Mark,s_testing",
                    _stamp, _watts)
_spl_line = st.one_of(_record, _record, _record, st.sampled_from(["", "# stray", "Time,bad", "\ufffd"]))


def _spl_pair(stamp: str, watts: str = "12.5") -> list[str]:
    """A good record followed by one with the given stamp / watts."""
    return ["Time,07-25-2024 18:26:24.892,Watts,537.000000,Volts,117.8,Mark,s_testing",
            f"Time,{stamp},Watts,{watts},Volts,117.8,Mark,s_testing"]


@settings(max_examples=300, deadline=None)
@given(st.lists(_spl_line, max_size=12), st.sampled_from(["\n", "\r\n"]), st.sampled_from(["", "\n", "\n\n"]))
@example(_spl_pair("07-25-2024 18:26:60.892"), "\n", "\n")  # one field out of range at a time
@example(_spl_pair("02-30-2024 18:26:25.892"), "\n", "\n")
@example(_spl_pair("02-29-2023 18:26:25.892"), "\n", "\n")
@example(_spl_pair("13-01-2024 18:26:25.892"), "\n", "\n")
@example(_spl_pair("07-25-2024 24:26:25.892"), "\n", "\n")
@example(_spl_pair("07-25-2024 18:60:25.892"), "\n", "\n")
@example(_spl_pair("07-25-0000 18:26:25.892"), "\n", "\n")
@example(_spl_pair("07-25-2024 18:26:25,892"), "\n", "\n")
@example(_spl_pair("07-25-2024 18:26:25.892", "nan"), "\r\n", "\n")
@example(_spl_pair("07-25-2024 18:26:25.892", "1_000"), "\n", "")
@example(_spl_pair("07-25-2024 18:26:25.892", " 7 "), "\n", "")
@example(_spl_pair("07-25-2024 18:26:25.892", ""), "\n", "")
@example(_spl_pair("07-25-2024 18:26:25.892") + [""] + _spl_pair("07-25-2024 18:26:26.892"), "\n", "\n")
def test_spl_fast_path_matches_line_by_line(lines, eol, tail):
    text = eol.join(lines) + tail
    fast = power._parse_spl_fast(text) if text else None
    if fast is not None:  # repr: a "nan" reading is equal to itself there
        assert repr(fast) == repr(power._parse_spl_lines(text))
    assert repr(power.parse_spl(text)) == repr(power._parse_spl_lines(text))


def test_spl_fast_path_on_published_logs():
    files = _real("spl.txt")
    taken = 0
    for path in files:
        text = _read(path)
        fast = power._parse_spl_fast(text)
        if fast is not None:
            taken += 1
            assert repr(fast) == repr(power._parse_spl_lines(text)), path
    assert taken == len(files)  # every published spl.txt is well-formed (skips nothing when absent)


_sorted_spl = st.lists(st.integers(0, 5), max_size=12).map(  # stamps that never go back, some repeated
    lambda steps: "".join(f"Time,07-25-2024 18:26:{10 + sum(steps[:i + 1]):02d}.{i * 7 % 1000:03d},Watts,{i}.5,Volts,1\n"
                          for i in range(len(steps))))
_spl_window = st.tuples(st.integers(0, 90), st.integers(0, 90)).map(
    lambda pair: tuple(power.parse_stamp(f"07-25-2024 18:26:{s // 10 + 5:02d}.{s % 10 * 100:03d}") for s in pair))


@settings(max_examples=300, deadline=None)
@given(st.one_of(_sorted_spl, st.lists(_spl_line, max_size=12).map("\n".join)), _spl_window)
def test_spl_window_by_bisection_matches_scan(text, window):
    spl = power.parse_spl(text)
    begin, end = window
    low, high = power.to_us(begin), power.to_us(end)
    assert spl.ordered == all(a <= b for a, b in zip(spl.us, spl.us[1:]))
    assert power.window_watts(spl, begin, end) == [w for u, w in zip(spl.us, spl.watts) if low < u < high]
    points = [low, *sorted(u for u in spl.us if low < u < high), high]
    want = [(a, b) for a, b in zip(points, points[1:]) if b - a > 1_500_000]
    got = power.coverage_gaps(spl, begin, end, 1.5)
    assert [(power.to_us(g.start), power.to_us(g.end)) for g in got] == want
    for low in spl.us:  # windows that start or end exactly on a sample
        for high in spl.us:
            begin, end = power.from_us(low), power.from_us(high)
            assert power.window_watts(spl, begin, end) == [w for u, w in zip(spl.us, spl.watts) if low < u < high]
            points = [low, *sorted(u for u in spl.us if low < u < high), high]
            assert [(power.to_us(g.start), power.to_us(g.end)) for g in power.coverage_gaps(spl, begin, end, 0.0)] \
                == [(a, b) for a, b in zip(points, points[1:]) if b > a]


_decimal = st.one_of(
    st.builds(lambda whole, frac, places: f"{whole}.{frac:0{places}d}"[:None], st.integers(0, 10 ** 9),
              st.integers(0, 10 ** 6 - 1), st.integers(6, 8)),  # the PTD form, some with 16+ digits
    st.builds(lambda whole, places: f"{whole / 7:.{places}f}", st.integers(0, 10 ** 6), st.integers(0, 9)),
    st.sampled_from(["0.000001", "00012.500000", "9.99e37", "-5.000000", "nan", "inf", "1_000.5", " 7.5", "7.",
                     ".5", "1.2.3", "12", "", "x", "9007199254740993.0", "123456789012345.6"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_decimal, min_size=1, max_size=8))
@example(["537.000000", "1.000000", "1234567890.123456"])  # 16 digits: through float
@example(["537.000000", "2.5", "12.000000"])  # another number of decimals than the first field
def test_vectorised_decimals_are_float(fields):
    import numpy as np

    data = ",".join(fields).encode("ascii")
    starts, at = [], 0
    for field in fields:
        starts.append(at)
        at += len(field) + 1
    starts = np.array(starts)
    ends = starts + np.array([len(f) for f in fields])
    try:
        want = [float(f) for f in fields]
    except ValueError:
        assert power.decimals(data, starts, ends) is None
        return
    got = power.decimals(data, starts, ends)
    assert repr(got) == repr(want)  # repr: nan equals itself there, and -0.0 differs from 0.0


@settings(max_examples=300, deadline=None)
@given(st.one_of(_stamp, _stamp.map(lambda s: s[:-1] + "Z"), _stamp.map(lambda s: s.replace("2", "\uff12")),
                 _stamp.map(lambda s: f" {s}\t"), _stamp.map(lambda s: s[:19]), _stamp.map(lambda s: s + "4"),
                 _stamp.map(lambda s: s + "Z"), _stamp.map(lambda s: s + "+00:00")))
def test_power_stamp_fast_path_matches_strptime(text):
    try:
        want = datetime.strptime(text.strip(), power.STAMP)
    except ValueError:
        want = None
    try:
        got = power.parse_stamp(text)
    except power.PowerError:
        got = None
    assert got == want and (got is None or got.tzinfo is None)


# --- accuracy-log entry lines ---------------------------------------------------------------------

_hex = st.text("0123456789abcdefABCDEF", max_size=12)
_int = st.one_of(st.integers(-5, 10**6).map(str), st.sampled_from(["007", "1.0", "true", "null", '"3"']))
_entry = st.builds(
    lambda seq, qsl, data, token_data, count: (
        f'{{ "seq_id" : {seq}, "qsl_idx" : {qsl}, "data" : "{data}"'
        + (f', "token_data" : "{token_data}"' if token_data is not None else "")
        + (f', "token_count" : {count}' if count is not None else "") + " }"),
    _int, _int, _hex, st.none() | _hex, st.none() | _int)


@settings(max_examples=400, deadline=None)
@given(_entry, st.sampled_from(["", ",", "[", "]"]))
def test_entry_regex_matches_json_decoding(entry, edge):
    line = edge + entry if edge == "[" else entry + edge
    text = line[:-1] if line.endswith(",") else line
    text = text[1:].strip() if text.startswith("[") else text
    text = text[:-1].strip() if text.endswith("]") else text
    assert compliance._parse_entry_line(line) == compliance._parse_entry_json(text)


# --- TEST06 token verification ----------------------------------------------------------------------

def _test06_by_full_unpack(samples, scenario, eos, width):
    """The TEST06 figures from fully unpacked token lists (the general path; verify_test06 only reads
    the ends of each output)."""
    def tokens(data):
        try:
            raw = bytes.fromhex(data)
        except ValueError:
            return None
        if len(raw) % width:
            return None
        return [int.from_bytes(raw[i:i + width], "little", signed=True) for i in range(0, len(raw), width)]
    official, eos_bad, first_bad, len_bad = None, [], [], []
    for entry in samples:
        toks = tokens(entry.data)
        if toks is None:
            len_bad.append(entry.qsl_idx)
            eos_bad.append(entry.qsl_idx)
            continue
        if official is None:
            i, n = len(toks) - 1, 0
            while i > 0:
                if toks[i] == eos:
                    n += 1
                if n >= 2:
                    official = len(toks) == 2
                    break
                if toks[i] != eos:
                    break
                i -= 1
        run = 0
        for t in reversed(toks):
            if t != eos:
                break
            run += 1
        if run >= 2 and not (len(toks) == 2 and run == 2):
            eos_bad.append(entry.qsl_idx)
        if entry.token_count != len(toks):
            len_bad.append(entry.qsl_idx)
        if entry.token_data is not None:
            first = tokens(entry.token_data)
            if first is None or any(a != b for a, b in zip(first, toks)) or (not first and toks):
                first_bad.append(entry.qsl_idx)
    return (True if official is None else official), eos_bad, first_bad, len_bad


_token_list = st.lists(st.sampled_from([2, 2, 2, 5, -1, 300]), max_size=6)
_test06_entry = st.builds(
    lambda i, toks, first, count, cut: vt.OutputEntry(
        i, struct.pack(f"<{len(toks)}i", *toks).hex().upper()[:None if cut is None else cut],
        None if first is None else struct.pack(f"<{len(first)}i", *first).hex().upper(),
        len(toks) if count is None else count),
    st.integers(0, 50), _token_list, st.none() | st.lists(st.sampled_from([2, 5, 7]), max_size=2),
    st.none() | st.integers(0, 7), st.none() | st.integers(0, 30))


@settings(max_examples=400, deadline=None)
@given(st.lists(_test06_entry, max_size=5), st.sampled_from(["Offline", "Server"]))
@example([vt.OutputEntry(0, struct.pack("<2i", 2, 2).hex(), None, 2),  # the official scan skips index 0
          vt.OutputEntry(1, struct.pack("<3i", 5, 2, 2).hex(), None, 3)], "Offline")
def test_test06_ends_only_matches_full_unpack(samples, scenario):
    rule = load_round_spec("v4.1").tests["TEST06"].llm_output
    verdict = vt.verify_test06(samples, scenario, 2, rule, element_bytes=4)
    official, eos_bad, first_bad, len_bad = _test06_by_full_unpack(samples, scenario, 2, 4)
    assert verdict.eos_official == official
    assert verdict.eos_violations == tuple(eos_bad[:20])
    assert verdict.first_token_violations == tuple(first_bad[:20])
    assert verdict.length_violations == tuple(len_bad[:20])


# --- ptd_logs.txt ---------------------------------------------------------------------------------

def _scan_all_lines(text: str, *args):
    """The walk with every line as a candidate, one line at a time (the general path: neither the
    vectorised reading of ``_read_fast`` nor the keyword filter of ``candidate_lines``)."""
    real_fast, real_candidates = ptd_read._read_fast, ptd_read.candidate_lines
    lines = text.splitlines()
    ptd_read._read_fast = lambda data: None
    ptd_read.candidate_lines = lambda t: (len(lines), list(enumerate(lines, 1)),
                                          [n for n, line in enumerate(lines, 1) if "\ufffd" in line])
    try:
        return ptd_log.scan_ptd_log(text, *args)
    finally:
        ptd_read._read_fast, ptd_read.candidate_lines = real_fast, real_candidates


_PTD_ARGS = (["Can't evaluate uncertainty of this sample!", "Bad watts reading nan from "], ["USB."],
             r"Uncertainty \d+.\d+%, which is above 1.00% limit for the last sample!")


def test_ptd_candidate_lines_on_published_logs():
    for path in _real("ptd_logs.txt"):
        with open(path, "rb") as handle:
            data = handle.read()
        text = data.decode("utf-8", errors="replace")
        assert ptd_read._read_fast(data) is not None, path  # every published log takes the vectorised reading
        for session, offset, begin, end in (("s", 0.0, None, None), ("s", 3600.0, 0.0, 4e9)):
            args = (session, offset, begin, end, 800, *_PTD_ARGS)
            assert ptd_log.walk_ptd_log(ptd_read.read_ptd_log(data), *args) == _scan_all_lines(text, *args), path
            careful = ptd_read.read_ptd_text(text, fast=False)
            assert ptd_log.walk_ptd_log(careful, *args) == _scan_all_lines(text, *args), path


_ptd_stamp = st.builds(lambda stamp, year: stamp.replace("-2024 ", f"-{year} "), _stamp,
                       st.sampled_from(["2024", "2024", "2023", "0000"]))  # Feb 29 of 2023, year 0: impossible
_ptd_line = st.one_of(
    st.builds(lambda stamp, msg: f"{stamp}: {msg}", _ptd_stamp, st.sampled_from([
        "ERROR: Can't evaluate uncertainty of this sample!", "WARNING: Uncertainty unknown for the last sample!",
        "WARNING: Uncertainty 1.52%, which is above 1.00% limit for the last sample!", "ERROR: USB.",
        "Go with mark 's_ranging'", "Go with mark 's_testing'", "Completed test", "ERROR: odd", "WARNING:",
        "Uncertainty checking for YokogawaWT210 is activated", "Watts,120.5"])),
    st.sampled_from(["garbage", "ERROR: no stamp", "", "  *****", "\x0cform feed", "x\ry"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_ptd_line, max_size=15), st.sampled_from(["\n", "\r\n"]))
def test_ptd_candidate_lines_match_full_walk(lines, eol):
    text = eol.join(lines)
    args = ("s", 0.0, 1704067200.0, 1735689600.0, 800, *_PTD_ARGS)
    assert ptd_log.scan_ptd_log(text, *args) == _scan_all_lines(text, *args)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ptd_line, max_size=15), st.sampled_from(["\n", "\r\n"]))
def test_ptd_stamp_check_never_misses_an_impossible_stamp(lines, eol):
    text = eol.join(lines)
    split = text.split("\n")
    bad = any(ptd_read.stamp_epoch(line[:23]) is ptd_read.BAD for line in split)
    if bad:
        assert not ptd_read.stamps_all_valid(split)


def _walked(line: str, stamp) -> bool:
    """The line is one the walk reacts to: any keyword line without a stamp; a stamped one when it
    has an event, is a mark or `Completed test` line, or the uncertainty activation."""
    if stamp is None:
        return ptd_read.interesting(line)
    _, mark, active, events = ptd_read.describe(line[23:], line[23:300])
    return bool(events) or mark is not None or active


@settings(max_examples=300, deadline=None)
@given(st.lists(_ptd_line, max_size=15), st.sampled_from(["\n", "\r\n"]))
@example(["07-25-2024 18:26:62.000: x"], "\n")  # one impossible field at a time
@example(["02-29-2023 18:26:25.000: x"], "\n")
@example(["07-25-0000 18:26:25.000: x"], "\n")
@example(["07-25-2024 18:26:25x123: ERROR: x", "07-25-2024 18:26:25.12", "", "07-25-2024 18:26:25.123"], "\n")
@example(["07-25-2024 18:26:25.123WARNING: x", "07-25-2024 18:26:25.123", "01-01-2024 00:00:00.000 Uncertainty"],
         "\r\n")
def test_ptd_vectorised_stamps_match_per_line(lines, eol):
    text = eol.join(lines)
    split = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
    split = [line[:-1] if line.endswith("\r") else line for line in split]
    log = ptd_read._read_fast(text.encode("utf-8"))
    want = [ptd_read.stamp_epoch(line[:23]) for line in split]
    if any(w is ptd_read.BAD for w in want) or any(len(line) > 19 and line[19] != "." and w is not None for line, w in zip(split, want)):
        assert log is None  # an impossible stamp, or one the text of a line could not be rebuilt from
        return
    if not text or not text.isascii() or any(c in text for c in "\x0b\x0c\x1c\x1d\x1e") or "\r" in text.replace("\r\n", ""):
        assert log is None
        return
    assert log is not None and log.lines_total == len(split)
    got = {item.line: (item.text, item.stamp) for item in log.items}
    for group in log.groups:
        for i, (number, t) in enumerate(zip(group.numbers.tolist(), log.epochs(group))):
            got[number] = (log.text(group, i), t)
    assert set(got) == {n for n, line in enumerate(split, 1) if _walked(line, want[n - 1])}
    for number, (line, t) in got.items():
        assert (line, t) == (split[number - 1][:300], want[number - 1])


_ptd_fast_line = st.one_of(  # lines the vectorised index takes: valid stamps, no odd line breaks
    st.builds(lambda stamp, msg: f"{stamp}: {msg}", _stamp.filter(lambda s: ptd_read.stamp_epoch(s) is not ptd_read.BAD),
              st.sampled_from([
                  "ERROR: Can't evaluate uncertainty of this sample!", "WARNING: Uncertainty unknown for the last sample!",
                  "WARNING: Uncertainty 1.52%, which is above 1.00% limit for the last sample!", "ERROR: USB.",
                  "ERROR: Bad watts reading 9e37 from Yokogawa", "WARNING: a ERROR: b", "ERROR: x  ",
                  "Go with mark 's_ranging'", "Go with mark 's_testing'", "Completed test", "Completed test ",
                  "Uncertainty checking for YokogawaWT210 is activated", "Response: Uncertainty,0.5", "Watts,120.5"])),
    st.sampled_from(["garbage", "ERROR: no stamp", "", "  *****", "Completed test"]))
_window_edge = st.sampled_from([None, 1704067200.0, 1719792000.0, 1721931985.5, 1735689600.0])


@settings(max_examples=400, deadline=None)
@given(st.lists(_ptd_fast_line, max_size=20), st.sampled_from(["\n", "\r\n"]), st.sampled_from(["", "\n"]),
       st.sampled_from([0.0, 3600.0, -14400.0]), _window_edge, _window_edge)
@example(["abc", "0123456789012345678: WARNING: x", "01-01-2024 00:00:00.000: ERROR: y ERROR: z"], "\n", "", 0.0, None, None)
@example(["07-25-2024 18:26:25.000: Watts ERROR: x", "07-25-2024 18:26:26.000: ERROR: y"], "\r\n", "\n", 0.0,
         1704067200.0, 1735689600.0)
def test_ptd_vectorised_walk_matches_full_walk(lines, eol, tail, offset, begin, end):
    text = eol.join(lines) + tail
    if begin is None or end is None:
        begin = end = None
    args = ("s", offset, begin, end, 800, *_PTD_ARGS)
    assert ptd_log.scan_ptd_log(text, *args) == _scan_all_lines(text, *args)
    if text:
        assert ptd_read._read_fast(text.encode("ascii")) is not None  # the vectorised path was the one compared



@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["ERROR: a", "ERROR: b", "WARNING: x" * 50, "ab", "", "WARNING: Uncertainty",
                                 "ERROR: a" + " " * 300, "WARNING: Uncertainty 1.52%"]), max_size=12),
       st.booleans())
def test_same_text_groups_are_exact(texts, collide):
    """Lines are grouped by exactly equal text, also when the hash collides (forced here)."""
    import numpy as np

    data = "\n".join(texts).encode("ascii")
    begin = np.cumsum([0] + [len(t) + 1 for t in texts[:-1]]).astype(np.int64) if texts else np.zeros(0, np.int64)
    length = np.array([len(t) for t in texts], dtype=np.int64)
    real_unique = np.unique
    if collide:  # every key the same: the word comparison must split the groups
        def same_keys(key, **kwargs):
            return real_unique(np.zeros_like(key), **kwargs)
        np_unique, np.unique = np.unique, same_keys
    try:
        groups = ptd_read._same_text_groups(data, power.word_view(data, 48), begin, length)
    finally:
        np.unique = real_unique
    got = sorted(tuple(g.tolist()) for g in groups if len(g))
    want: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        want.setdefault(text, []).append(i)
    assert got == sorted(tuple(v) for v in want.values())


# --- mlperf_log_detail.txt ------------------------------------------------------------------------

def _detail_by_split(text: str):
    """The detail-log reading with every line split out of the text (the general path that
    ``parse_detail_text`` walks with str.find): (key -> (line number, value), errors, warnings,
    duplicates, problems, number of lines)."""
    log = loadgen_log.DetailLog(path="<memory>")
    prefix = loadgen_log.MARKER + " " + '{"key": "'
    markers = number = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.startswith(prefix):
            stripped = line.strip()
            if loadgen_log.MARKER in line and stripped.startswith(loadgen_log.MARKER):
                markers += 1
                loadgen_log._slow_line(log, stripped[len(loadgen_log.MARKER):].strip(), number)
            continue
        markers += 1
        start = len(loadgen_log.MARKER) + 1
        end = line.find('"', len(prefix))
        key = line[len(prefix):end] if end > 0 else ""
        if not line.endswith("}"):
            line = line.rstrip()
        tail = line[-300:]
        if (not key or "\\" in key or not line.endswith("}")
                or '"is_error": true' in tail or '"is_warning": true' in tail):
            loadgen_log._slow_line(log, line[start:], number)
        elif key in log.raw:
            log.duplicates.append(key)
        else:
            log.raw[key] = (line, start, len(line), number)
    total = number - (1 if text.endswith("\n") else 0) if text else 0
    if markers == 0:
        log.problems.append(loadgen_log.LogProblem(0, "no"))
    return log, total


def _detail_facts(log, total):
    values = {key: (log.entry(key)[-1], repr(log.get(key))) for key in log.raw}
    return values, log.errors, log.warnings, log.duplicates, [p.line for p in log.problems], total


_mllog = st.builds(
    lambda key, value, error, warning, pad: (
        f':::MLLOG {{"key": "{key}", "value": {value}, "time_ms": 1.5, "metadata": '
        f'{{"is_error": {error}, "is_warning": {warning}, "file": "x.cc"}}}}{pad}'),
    st.sampled_from(["effective_scenario", "result_validity", "a\\\\b", "", "qps"]),
    st.sampled_from(['"Offline"', "12.5", "true", '"x\\"y"', "[1, 2]", "{}", "{"]),
    st.sampled_from(["false", "true"]), st.sampled_from(["false", "true"]),
    st.sampled_from(["", " ", "\r", " \t", "\x0c", "\u3000", "}"]))
_detail_line = st.one_of(_mllog, _mllog, st.sampled_from([
    "", "garbage", "  :::MLLOG {\"key\": \"odd\", \"value\": 1}", ":::MLLOG not json", "x :::MLLOG y"]))


@settings(max_examples=400, deadline=None)
@given(st.lists(_detail_line, max_size=8), st.sampled_from(["", "\n", "\n\n"]))
def test_detail_log_walk_matches_split(lines, tail):
    text = "\n".join(lines) + tail
    fast = loadgen_log.parse_detail_text(text)
    assert _detail_facts(fast, fast.lines_total) == _detail_facts(*_detail_by_split(text))


def test_detail_log_walk_on_published_logs():
    files = _real("mlperf_log_detail.txt")
    for path in files:
        text = _read(path)
        fast = loadgen_log.parse_detail_text(text)
        assert _detail_facts(fast, fast.lines_total) == _detail_facts(*_detail_by_split(text)), path


def _value_by_json(log, key):
    """A detail-log value as json.loads of its whole line gives it (the general path of DetailLog.get):
    (value, whether the line was reported as invalid JSON)."""
    import json

    text, start, end, _ = log.entry(key)
    try:
        decoded = json.loads(text[start:end])
    except (ValueError, RecursionError):
        return None, True
    return (decoded.get("value") if isinstance(decoded, dict) else None), False


_TAIL_OK = (', "time_ms": 1.5, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": '
            '{"is_error": false, "is_warning": false, "file": "a.cc", "line_no": 7, "pid": 1, "tid": 2}}')
_value_text = st.sampled_from(['"Offline"', "12.5", "-0", "1e400", "NaN", "true", "null", '"x\\"y"', '"\\u00e9\\ud800"',
                               "[1, 2]", '{"a": 1, "a": 2}', "{}", "{", "12abc", " 5", "[1,\n2]", '"a\tb"', "[" * 3000,
                               '"unterminated', "01", "1.", '{"value": 3}'])
_tail_text = st.sampled_from([
    _TAIL_OK, _TAIL_OK.replace("1.5", "-2e-3"), _TAIL_OK.replace("1.5", "1.e3"), _TAIL_OK.replace("1.5", "01"),
    _TAIL_OK.replace('"a.cc"', '"a\\".cc"'), _TAIL_OK.replace('"a.cc"', '"a\\q.cc"'), _TAIL_OK.replace('"a.cc"', '"a\x01"'),
    _TAIL_OK.replace("false, ", "true, ", 1), _TAIL_OK.replace(', "tid": 2', ""), _TAIL_OK.replace(", ", ",  ", 1),
    _TAIL_OK + " ", _TAIL_OK + "x", _TAIL_OK[:-1], _TAIL_OK.replace('"time_ms"', '"value"'), "}", ', "value": 9}',
    _TAIL_OK.replace("7", "1e2"), _TAIL_OK.replace('"pid": 1', '"pid": -1')])
_key_text = st.sampled_from(["result_validity", "k\x01", "k\u2028", "\u00e9t\u00e9", "k y"])


@settings(max_examples=400, deadline=None)
@given(_key_text, _value_text, _tail_text, st.sampled_from(['", "value": ', '",  "value": ', '", "value":', '","value": ']))
@example("result_validity", '"VALID"', _TAIL_OK, '", "value": ')
def test_detail_value_alone_equals_the_whole_line_decoded(key, value, tail, joint):
    """DetailLog.get decodes only the value when the rest of the line is LoadGen's tail: the same value,
    and the same invalid-JSON report, as decoding the whole line."""
    text = f':::MLLOG {{"key": "{key}{joint}{value}{tail}\n'
    log = loadgen_log.parse_detail_text(text)
    if key not in log.raw or key in log._cache:
        return  # a line the parser decoded at once (flagged, or odd): not this path
    want, bad = _value_by_json(log, key)
    got = log.get(key)
    assert repr(got) == repr(want)
    assert bool(log.problems) == bad


def test_detail_values_on_published_logs_equal_the_whole_lines_decoded():
    for path in _real("mlperf_log_detail.txt"):
        log = loadgen_log.parse_detail_text(_read(path))
        for key in log.raw:
            if key not in log._cache:
                want, bad = _value_by_json(log, key)
                assert repr(log.get(key)) == repr(want) and bool(log.problems) == bad, (path, key)


def test_trailing_space_is_what_rstrip_removes():
    spaces = {chr(c) for c in range(0x110000) if chr(c).isspace()} - {"\n"}
    assert set(loadgen_log._TRAILING_SPACE) == spaces


# accuracy.txt: a line without the literal that follows a pattern's leading ".*" is not run through the regex
_ACC_PATTERNS = [".*'rouge1':\\s+'?([\\d.]+)'?.*", ".*ab?c([0-9]+)", ".*x*y([a-z])", ".*'k':\\s([\\d.]+).*",
                 ".*ab+(c)", ".*ab{0,2}c(x)", ".*?ab(x)", ".*(?:a|b)c(\\d)", "a.*b(c)",
                 "^ab(c)", "\\:?x(y)", "a\\:b(c)", "^ab\\:\\s*([\\d\\.]+).*", "a\\.?b(.)", "^x{0}y(.)"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcxy'k:rouge1 0123456789.\t", max_size=40))
def test_accuracy_literal_prefilter_matches_like_the_regex(line):
    import re

    from checker.metrics.accuracy_metrics import _match

    for pattern in _ACC_PATTERNS:
        plain = re.compile(pattern).match(line)
        fast = _match(pattern, line)
        assert (plain.group(1) if plain else None) == (fast.group(1) if fast else None), (pattern, line)


def test_accuracy_literal_prefilter_on_the_round_patterns():
    import re

    from checker.loaders.rules import available_rounds, load_rules
    from checker.metrics.accuracy_metrics import _compiled, _match

    lines = ["{'rouge1': 45.4424, 'rouge2': 23.2859, 'gsm8k': 73.34, 'tokens_per_sample': 145.1}",
             "WARNING:main:metric/lifetime_ne/rating: 0.8675504587396445", " 'vbench_score': 69.98",
             "mAP=53.110%", "accuracy=76.074%, good=779, total=1024", "{\"f1\": 0.787752047599809}",
             "x" * 5000 + "'exact_match': 83.001", "'rouge1' : 1", "Accuracy: mean = 0.86170, details = x",
             "BLEU: 23.4", "BLEU:23", " BLEU: 1", "Word Error Rate: 2.1%, accuracy=97.9%", "AUC=80.3%",
             "Accuracy: 88.1"]
    for name in available_rounds():
        for pattern in load_rules(name).accuracy_patterns.values():
            assert _compiled(pattern)[1] in re.sub(r"\\(\W)", r"\1", pattern)  # (escapes as read)
            for line in lines:
                plain = re.compile(pattern).match(line)
                fast = _match(pattern, line)
                assert (plain.group(1) if plain else None) == (fast.group(1) if fast else None)


def test_accuracy_line_filter_reads_what_every_line_gives(monkeypatch):
    """read_accuracy with the line filter equals read_accuracy trying every line, on every real accuracy.txt
    (all rounds in the shared data) and on lines built to sit near the filter's edges."""
    from dataclasses import asdict

    from checker.loaders.rules import load_rules
    from checker.metrics import accuracy_metrics as am
    from tests.conftest import REAL

    cases = []
    for path in glob.glob(os.path.join(REAL, "v*", "*", "*", "results", "*", "*", "*", "accuracy", "accuracy.txt")):
        round_name = path[len(REAL) + 1:].split(os.sep)[0]
        if round_name.endswith("-expected"):
            continue
        with open(path, encoding="utf-8", errors="replace") as handle:
            cases.append((round_name, path.split(os.sep)[-4], handle.read()))
    edge = "{'rouge1': 1.0}\r\nhash=abc\r\n'rouge2':\x0b 2.5\n x hash=zz\n'tokens_per_sample': 99\u2028hash=ff\n"
    cases += [(name, "", edge) for name in ("v5.1", "v6.0")]
    if os.path.isdir(REAL):  # without the shared data, the edge lines alone
        assert len(cases) > 50
    for round_name, folder, text in cases:
        rules = load_rules(round_name if round_name in ("v4.1", "v5.0", "v5.1", "v6.0", "v6.1") else "v6.0")
        model_name = rules.model_aliases.get(folder, folder)
        models = [rules.models[model_name]] if model_name in rules.models else list(rules.models.values())
        for model in models:
            targets = [(t.metric, t.target) for t in model.accuracy]
            limits = [(u.metric, u.limit) for u in model.upper_limits]
            fast = asdict(am.read_accuracy(text, rules.accuracy_patterns, targets, limits))
            with monkeypatch.context() as patched:
                patched.setattr(am, "_line_filter", lambda patterns: None)
                patched.setattr(am, "_filterable", lambda patterns: False)
                plain = asdict(am.read_accuracy(text, rules.accuracy_patterns, targets, limits))
            assert fast == plain
