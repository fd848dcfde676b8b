"""The C extension of power logs (checker/_power_scan.c) answers as the numpy readings it stands for: on every
real spl.txt and ptd_logs.txt and on logs made of every kind of line and byte the readings tell apart, it takes
exactly the files numpy takes and gives the same records (spl.txt, also the same as the line-by-line reading)
and the same PTD lines; both with its 16-byte (SSE2) scans and with its 8-byte ones. Where it is not built (or
not wanted) the numpy readings are used."""

from __future__ import annotations

import os

import pytest
from hypothesis import example, given, settings, strategies as st

from checker.loaders.compiled import compiled
from checker.metrics import power, ptd_log, ptd_read
from tests.conftest import REAL, real_files

spl_records = compiled("spl_records", "_power_scan")
ptd_lines = compiled("ptd_lines", "_power_scan")
use_vectors = compiled("use_vectors", "_power_scan")
needs_ext = pytest.mark.skipif(spl_records is None and not os.environ.get("CI"),
                               reason="the C extension checker._power_scan is not built here")


def test_the_extension_is_built_on_ci():
    """CI installs the project with a compiler: the extension must be there, or the fast paths are untested."""
    if os.environ.get("CI") and (spl_records is None or ptd_lines is None):
        pytest.fail("checker._power_scan was not built (is a C compiler and Python.h installed?)")


def _both_scans():
    """The extension's 16-byte scans where the machine has them, then its 8-byte ones (left on after)."""
    try:
        for on in (True, False):
            yield use_vectors(on)
    finally:
        use_vectors(True)


# --- spl.txt --------------------------------------------------------------------------------------

def _spl_same(data: bytes | str) -> bool:
    """The C reading takes the file exactly when numpy does, with the same records, which are those of the
    line-by-line reading; with both scans. True when taken."""
    assert power._SPL_RECORDS is spl_records is not None
    want = power._parse_spl_numpy(data)
    text = data if isinstance(data, str) else data.decode("utf-8", errors="replace")
    if want is not None:  # repr: a "nan" reading is equal to itself there
        assert repr(want) == repr(power._parse_spl_lines(text))
    for _ in _both_scans():
        assert repr(power._parse_spl_fast(data)) == repr(want), data
        assert repr(power.parse_spl(data)) == repr(power._parse_spl_lines(text))
    return want is not None


def _real(name: str) -> list[str]:
    found = real_files(lambda file_name: file_name == name)
    assert found, f"no {name} under {REAL}"
    return found


def _every_real_file_reads_the_same(name: str, same) -> None:
    """``same`` holds, and the file is taken, for every real ``name`` file as published, with "\n" and with
    "\r\n" line ends, and without its last line end."""
    for path in _real(name):
        with open(path, "rb") as handle:
            data = handle.read()
        assert same(data), path  # and every published one is taken
        lf = data.replace(b"\r\n", b"\n")
        assert same(lf) and same(lf.replace(b"\n", b"\r\n")) and same(lf.rstrip(b"\n")), path


@needs_ext
def test_every_real_spl_reads_the_same():
    _every_real_file_reads_the_same("spl.txt", _spl_same)


_STAMPS = st.sampled_from(["07-25-2024 18:26:24.892", "07-25-2024 18:26:25.001", "07-25-2024 18:27:00.000",
                           "07-25-2024 18:26:24.500", "12-31-1969 23:59:59.999", "01-01-0001 00:00:00.000",
                           "07-25-2024 18:26:59.999", "07-25-2024 18:26:60.000", "07-25-2024 18:26:61.000",
                           "02-29-2024 18:26:24.892", "02-29-2023 18:26:24.892", "13-01-2024 18:26:24.892",
                           "07-25-2024 24:00:00.000", "07-25-2024 18:60:00.000", "07-25-0000 18:26:24.892",
                           "07-25-2024 18:26:24,892", "07-25-2024 18:26:24.89x", "7-25-2024 18:26:24.892",
                           "07/25/2024 18:26:24.892", "07-25-2024T18:26:24.892", "07-25-2024 18:26:24.8920"])
_WATTS = st.one_of(
    st.builds(lambda whole, frac, places: f"{whole}.{frac:0{places}d}", st.integers(0, 10 ** 10),
              st.integers(0, 999999), st.integers(6, 6)),  # the PTD form, some with 16+ digits
    st.floats(0, 1e6, allow_nan=False).map(repr),
    st.sampled_from(["537.000000", "0.000001", "00012.500000", "7", "7.", ".5", ".", "", "-5.000000", "+5.0",
                     "-0.0", "1e3", "1E-3", "nan", "inf", "-inf", "1_000.5", "_1", " 7.5", "7.5 ", "\t7.5", "1.2.3",
                     "x", "123456789012345", "1234567890123456", "12345678901234.5", "0.123456789012345",
                     "0.1234567890123456", "9007199254740993.0", "999999999999999.9", "\x0b7.5", "\x0c7.5",
                     "\x1f7.5", "7.5\x00", "7\u00e9", "\u0667.5"]))
_TAILS = st.sampled_from([",Volts,117.800000,Amps,4.580000,PF,0.994000,Mark,2024-07-25_14-06-24_testing", "",
                          ",", ",Volts", ",Mark,s\x0b", ",Mark,s\x1c", ",Mark,s\x1d", ",Mark,s\x1e", ",Mark,s\x0c",
                          ",Mark,s\x00", ",Mark,s\x1f\t", ",Mark,\u00e9", ",Mark,s\r", ",Mark,s\rx",
                          ",Mark," + "y" * 40])


@st.composite
def _spl_line(draw) -> str:
    kind = draw(st.sampled_from(["record"] * 8 + ["stray", "blank", "short", "no-field", "head", "time"]))
    if kind != "record":
        return {"stray": "# copied from the meter PC", "blank": "", "short": "Time,07-25-2024 18:26:24.892,",
                "no-field": "Time,07-25-2024 18:26:24.892,Watts", "head": "Time,",
                "time": "Timex07-25-2024 18:26:24.892,Watts,5.0"}[kind]
    field = draw(st.sampled_from(["Watts", "", "W,", "Watts\u00e9"]))
    return f"Time,{draw(_STAMPS)},{field},{draw(_WATTS)}{draw(_TAILS)}"


@needs_ext
@settings(max_examples=600, deadline=None)
@given(st.lists(_spl_line(), max_size=8), st.sampled_from(["\n", "\r\n", "\r"]),
       st.sampled_from(["", "\n", "\r\n", "\n\n", "\r", "\n\r\n\r"]), st.booleans())
@example(["Time,07-25-2024 18:26:24.892,Watts,537.000000,Volts,1", "Time,07-25-2024 18:26:25.892,Watts,\x0b538.0"],
         "\n", "\n", True)  # a line break str.splitlines knows, in a field float() strips: read line by line
@example(["Time,07-25-2024 18:26:24.892,Watts,537.000000,Mark,s\x0cx"], "\n", "", True)
def test_both_readings_agree_on_any_spl(lines, eol, tail, as_bytes):
    text = eol.join(lines) + tail
    _spl_same(text.encode("utf-8") if as_bytes else text)


def _good_spl(count: int = 6) -> bytes:
    return "".join(f"Time,07-25-2024 18:26:{i:02d}.{i * 37 % 1000:03d},Watts,{500 + i}.250000,Volts,117.800000,"
                   f"Mark,2024-07-25_14-06-24_testing\n" for i in range(count)).encode("ascii")


@needs_ext
@pytest.mark.parametrize("byte", [b"\x00", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f", b"\t", b"\r",
                                  b"\x7f", b"\x80", b"\xc3\xa9", b"\xff", b"\n", b","])
def test_a_byte_anywhere_in_an_spl_is_read_alike(byte):
    """Every offset, so that each byte falls at each place of a 16-byte and an 8-byte block."""
    good = _good_spl()
    assert _spl_same(good)
    for at in range(len(good) + 1):
        _spl_same(good[:at] + byte + good[at:])


def _watts_fields() -> list[str]:
    """Numbers of 1 to 18 digits with the dot at every place (around the 15 digits read as an exact integer),
    and the other forms float() takes or refuses."""
    digits = "9007199254740993" + "87"
    fields = [digits[:n][:dot] + "." + digits[:n][dot:] for n in range(1, 19) for dot in range(n + 1)]
    fields += [digits[:n] for n in range(1, 19)] + ["0" * 20 + "1.5", "1." + "0" * 20, "0.000000000000001"]
    return fields + ["7.", ".5", ".", "", "-5.000000", "+5.0", "-0.0", "1e3", "nan", "-inf", "1_000.5", " 7.5",
                     "7.5\t", "1.2.3", "x", "7\x00", "\x1f7.5"]


@needs_ext
def test_every_form_of_watts_reads_as_float():
    """Each field alone in a file the readings take (a file of random lines seldom is one)."""
    for field in _watts_fields():
        data = (f"Time,07-25-2024 18:26:24.892,Watts,1.5\nTime,07-25-2024 18:26:25.892,Watts,{field},Volts,1\n"
                f"Time,07-25-2024 18:26:26.892,Watts,{field}\n").encode("ascii")
        try:
            float(field)
        except ValueError:
            assert not _spl_same(data), field
            continue
        assert _spl_same(data), field


@needs_ext
def test_the_spl_reading_takes_any_bytes_without_failing():
    for data in (b"", b"\n", b"\r\n\r\n", b"Time,", b"\xff" * 40, bytes(range(256)) * 3, _good_spl()[:33],
                 _good_spl().replace(b"\n", b"\r")):
        for _ in _both_scans():
            assert spl_records(data, power.minute_epoch) is None
    assert spl_records(bytearray(_good_spl(2)), power.minute_epoch)[2] is True
    with pytest.raises(ZeroDivisionError):  # what minute_epoch raises goes through
        spl_records(_good_spl(2), lambda text: 1 / 0)


# --- ptd_logs.txt ---------------------------------------------------------------------------------

def _log(log: ptd_read.PtdLog | None):
    """A PtdLog as plain values: its groups in the order of their first line, each line's stamp and text."""
    if log is None:
        return None
    groups = sorted((g.numbers.tolist(), g.kind, g.message, g.rest, [log.minutes[m] for m in g.minute.tolist()],
                     g.milli.tolist(), log.epochs(g), [log.text(g, i) for i in range(len(g.numbers))])
                    for g in log.groups)
    return log.lines_total, log.undecodable, log.items, groups


_PTD_ARGS = (["Can't evaluate uncertainty of this sample!", "Bad watts reading nan from "], ["USB."],
             r"Uncertainty \d+.\d+%, which is above 1.00% limit for the last sample!")


def _ptd_same(data: bytes) -> bool:
    """The C reading takes the log exactly when numpy does, with the same log, and the walk over it is the
    same as over the careful line-by-line reading; with both scans. True when taken."""
    assert ptd_read._PTD_LINES is ptd_lines is not None
    want = ptd_read._read_numpy(data)
    for _ in _both_scans():
        got = ptd_read._read_fast(data)
        assert _log(got) == _log(want), data
    if got is not None:
        careful = ptd_read.read_ptd_text(data.decode("utf-8", errors="replace"), fast=False)
        for session, offset, begin, end in (("s", 0.0, None, None), ("s", 3600.0, 0.0, 4e9),
                                            ("s", 0.0, 1721930000.0, 1721932000.0)):
            args = (session, offset, begin, end, 800, *_PTD_ARGS)
            assert ptd_log.walk_ptd_log(got, *args) == ptd_log.walk_ptd_log(careful, *args)
            assert ptd_log.walk_ptd_log(want, *args) == ptd_log.walk_ptd_log(careful, *args)  # numpy's walk
    return want is not None


@needs_ext
def test_every_real_ptd_log_reads_the_same():
    _every_real_file_reads_the_same("ptd_logs.txt", _ptd_same)


_PTD_STAMPS = st.one_of(_STAMPS, st.sampled_from(["07-25-2024 18:26:24.892", "07-25-2024 18:26:25.100",
                                                  "07-25-2024 18:27:01.000", "07-25-2024 18:26:61.000"]))
_MESSAGES = st.sampled_from([
    "ERROR: Can't evaluate uncertainty of this sample!",
    "WARNING: Uncertainty unknown for the last measurement sample!",
    "WARNING: Uncertainty 1.52%, which is above 1.00% limit for the last sample!", "ERROR: USB.",
    "ERROR: Bad watts reading nan from Yokogawa", "WARNING: a ERROR: b", "ERROR: x  ", "WARNING:", "ERROR:",
    "Go with mark '2024-07-25_14-06-24_ranging'", "Go with mark 's_testing'", "Completed test", "Completed test ",
    "Completed tes", "Uncertainty checking for YokogawaWT210 is activated", "Response to client sent: Uncertainty,0.5",
    "Response to client sent: Time,07-25-2024 18:26:24.892,Watts,537.000000,Volts,117.800000,Amps,4.580000",
    "Watts,120.5", "WARNIN", "ERROR", "Go with mar", "Uncertaint", "EWARNING:", "WWARNING:", "ERRORERROR:",
    "Accepted connection from 127.0.0.1:58334", "A Q S C E G U W", "ERROR: \u00e9", "WARNING: x\x0by",
    "ERROR: x\x00", "ERROR: tab\there", "ERROR: y\rz"])


@st.composite
def _ptd_line(draw) -> str:
    kind = draw(st.sampled_from(["stamped"] * 6 + ["unstamped", "text", "short", "stamp-only", "odd-stamp"]))
    pad = " " * draw(st.integers(0, 20))  # keywords at every place of a 16-byte block
    if kind == "stamped":
        return f"{draw(_PTD_STAMPS)}:{pad} {draw(_MESSAGES)}"
    if kind == "unstamped":
        return f"{pad}{draw(_MESSAGES)}"
    return {"text": draw(st.sampled_from(["", "  *****", "Selected power meter 'Yokogawa WT210'", "garbage"])),
            "short": "07-25-2024 18:26:24.89", "stamp-only": draw(_PTD_STAMPS),
            "odd-stamp": "07-25-2024 18:26:24x892: ERROR: x"}[kind]


@needs_ext
@settings(max_examples=600, deadline=None)
@given(st.lists(_ptd_line(), max_size=14), st.sampled_from(["\n", "\r\n", "\r"]), st.sampled_from(["", "\n", "\r\n"]))
@example(["01-01-2024 00:00:00.000: x ERROR: a", "01-01-2024 00:00:00.000: x ERROR: a",
          "01-01-2024 00:00:01.000: WARNING: b", "01-01-2024 00:00:00.000: x ERROR: a"], "\r\n", "")
def test_both_readings_agree_on_any_ptd_log(lines, eol, tail):
    _ptd_same((eol.join(lines) + tail).encode("utf-8"))


def _good_ptd() -> bytes:
    lines = ["Selected power meter 'Yokogawa WT210' from yokowt210.cpp", "",
             "07-25-2024 18:06:36.472: Uncertainty checking for YokogawaWT210 is activated",
             "07-25-2024 18:06:47.529: Go with mark '2024-07-25_14-06-24_ranging'"]
    for i in range(4):
        lines += [f"07-25-2024 18:06:{48 + i}.{i * 7:03d}: WARNING: Uncertainty unknown for the last sample!",
                  f"07-25-2024 18:06:{48 + i}.{i * 7:03d}: ERROR: Can't evaluate uncertainty of this sample!",
                  f"07-25-2024 18:06:{48 + i}.{i * 9:03d}: Response to client sent: Time,07-25-2024,Watts,537.0"]
    lines += ["07-25-2024 18:07:11.530: Completed test", "ERROR: no stamp"]
    return "\r\n".join(lines).encode("ascii") + b"\r\n"


@needs_ext
@pytest.mark.parametrize("byte", [b"\x00", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f", b"\t", b"\r",
                                  b"\x7f", b"\x80", b"\xc3\xa9", b"\n", b"W"])
def test_a_byte_anywhere_in_a_ptd_log_is_read_alike(byte):
    good = _good_ptd()
    assert _ptd_same(good)
    for at in range(len(good) + 1):
        _ptd_same(good[:at] + byte + good[at:])


@needs_ext
@pytest.mark.parametrize("keyword", ptd_read.KEYWORDS)
def test_a_keyword_is_found_at_every_place_of_a_line(keyword):
    """At each offset of a long line, cut short by the line end at each of its bytes, and across a line end."""
    for stamp in ("07-25-2024 18:26:24.892", ""):
        for at in range(40):
            line = f"{stamp}{'x' * at}{keyword}"
            for cut in range(len(line) - len(keyword) - 1, len(line) + 1):
                data = f"{line[:cut]}\n{line[cut:]}\nend".encode("ascii")
                assert _ptd_same(data)
                if not stamp:  # an unstamped keyword line is an item of its own
                    found = {item.line for item in ptd_read._read_fast(data).items}
                    assert (1 in found) == (cut == len(line)), (line, cut)


@needs_ext
def test_the_ptd_reading_takes_any_bytes_without_failing():
    for data in (b"", b"\r", b"x\r", b"\xff" * 40, bytes(range(256)) * 3, b"07-25-2024 18:26:24.892"):
        for _ in _both_scans():
            found = ptd_lines(data)
            assert found is None or found[0] == data.count(b"\n") + (not data.endswith(b"\n"))
    lines, minutes, unstamped, groups = ptd_lines(bytearray(_good_ptd()))
    assert (lines, minutes) == (18, ["07-25-2024 18:06", "07-25-2024 18:07"])
    assert unstamped == [(18, b"ERROR: no stamp")]
    assert [text for text, *_ in groups][:2] == [b": Uncertainty checking for YokogawaWT210 is activated",
                                                 b": Go with mark '2024-07-25_14-06-24_ranging'"]


# --- without the extension --------------------------------------------------------------------------

def test_the_numpy_readings_are_used_when_asked(monkeypatch):
    """MLPC_PURE_PYTHON (read when the modules are imported) leaves the C readings out, and the numpy
    readings give what the line-by-line ones give."""
    monkeypatch.setenv("MLPC_PURE_PYTHON", "1")
    assert compiled("spl_records", "_power_scan") is None and compiled("ptd_lines", "_power_scan") is None
    monkeypatch.setattr(power, "_SPL_RECORDS", None)
    monkeypatch.setattr(ptd_read, "_PTD_LINES", None)
    spl = power.parse_spl(_good_spl(3))
    assert (spl.lines, spl.watts, spl.ordered) == ((1, 2, 3), (500.25, 501.25, 502.25), True)
    log = ptd_read.read_ptd_log(_good_ptd())
    assert log.lines_total == 18 and len(log.groups) == 2 and [len(g.numbers) for g in log.groups] == [4, 4]
    assert [item.line for item in log.items] == [3, 4, 17, 18]


@needs_ext
def test_a_groups_window_is_numpys_to_the_bit():
    """The C epochs and window split of a group give the doubles numpy adds, at and around the bounds."""
    import numpy as np

    from checker._power_scan import epochs, window

    bases = (1721930760.0, 1721930820.0, 1721930880.0)
    runs = np.array([0, 0, 1, 1, 2, 2, 2], dtype=np.int32)
    millis = np.array([0, 999, 1000, 59999, 7, 30001, 61999], dtype=np.int32)
    want = (np.array(bases)[runs] + millis // 1000) + (millis % 1000) / 1000
    for offset in (0.0, 3600.0, -25200.5, 0.1):
        assert epochs(runs.tobytes(), millis.tobytes(), bases, offset) == (want + offset).tolist()
        stamps = (want + offset).tolist()
        for lo, hi in ((stamps[1], stamps[5]), (stamps[0] - 1, stamps[-1] + 1), (float("nan"), float("nan"))):
            inside, outside = window(runs.tobytes(), millis.tobytes(), bases, offset, lo, hi, True, True)
            assert [t for _, t in inside] == [t for t in stamps if lo < t < hi]
            assert sorted(i for i, _ in inside + outside) == list(range(len(stamps)))
            assert window(runs.tobytes(), millis.tobytes(), bases, offset, lo, hi, False, False) == \
                (len(inside), len(outside))


@needs_ext
def test_a_groups_window_refuses_columns_that_do_not_fit():
    from checker._power_scan import window

    for runs, millis, bases in ((b"\0\0\0\0", b"", (1.0,)), (b"\1\0\0\0", b"\0\0\0\0", (1.0,)),
                                (b"\0\0\0", b"\0\0\0", (1.0,)), (b"\0\0\0\0", b"\xff\xff\xff\xff", (1.0,))):
        with pytest.raises(ValueError):
            window(runs, millis, bases, 0.0, 0.0, 1.0, True, True)
    with pytest.raises(TypeError):
        window(b"\0\0\0\0", b"\0\0\0\0", ("x",), 0.0, 0.0, 1.0, True, True)
