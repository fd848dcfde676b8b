"""The C readers' word-at-a-time and 16-byte fast paths against the plain readings they stand for, on
generated edge inputs: the hex data of long accuracy-log lines (checker._accuracy_scan.long_lines, with and
without its 32-digit decoding, against accuracy_entries._take_long), every byte value at every place of
a data field, odd lengths, truncated lines and line ends."""

from __future__ import annotations

import binascii
import random

import pytest

from checker.loaders import accuracy_entries as ae
from checker.loaders.compiled import compiled

long_lines = compiled("long_lines", "_accuracy_scan")
accuracy_vectors = compiled("use_vectors", "_accuracy_scan")
accuracy_avx2 = compiled("use_avx2", "_accuracy_scan")
needs_accuracy = pytest.mark.skipif(long_lines is None, reason="checker._accuracy_scan is not built")


def _both_decodings():
    """long_lines with its 64-digit (AVX2) and 32-digit (SSE2) decodings where the machine has them, then with
    the 32-digit one alone, then with the two-digit loop alone."""
    try:
        for avx2, vectors in ((True, True), (False, True), (False, False)):
            yield accuracy_avx2(avx2), accuracy_vectors(vectors)
    finally:
        accuracy_avx2(True)
        accuracy_vectors(True)


def _take(buf: bytes, end: int, long_block) -> tuple:
    """What AccuracyEntries._take makes of buf[:end] with ``long_block`` (None: the Python reading)."""
    saved = ae._LONG_BLOCK
    ae._LONG_BLOCK = long_block
    try:
        reader = ae.AccuracyEntries("unused")
        state = ae._State()
        rows = reader._take(buf, end, state)
    finally:
        ae._LONG_BLOCK = saved
    plain = [(qsl, bytes(data), token, count, raw) for qsl, data, token, count, raw in rows]
    return plain, state, reader.truncated, reader.malformed, reader.entries


def _same_take(buf: bytes, end: int | None = None) -> list:
    end = len(buf) if end is None else end
    plain = _take(buf, end, None)
    for _ in _both_decodings():
        assert _take(buf, end, long_lines) == plain
    return plain[0]


def _entry(qsl, data: bytes, tail: bytes = b" },") -> bytes:
    return b'{ "seq_id" : %d, "qsl_idx" : %d, "data" : "' % (qsl, qsl) + data + b'"' + tail


HEX = b"0123456789abcdefABCDEF"


@needs_accuracy
def test_every_byte_at_every_place_of_a_long_data_field():
    """A data field of 1072 digits (16 blocks of 64, one of 32, then a tail of 16 the loop decodes) with one
    byte changed to each value 0-255 at places in the first blocks, the last ones and the tail: a row exactly
    where every digit is hex (else the careful reading's event)."""
    rng = random.Random(7)
    base = bytes(rng.choice(HEX) for _ in range(1072))
    for place in (0, 1, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 1000, 1023, 1024, 1025, 1038, 1039, 1040, 1055,
                  1056, 1070, 1071):
        lines = []
        for value in range(256):
            if value == 0x0A:  # (a line break cuts the line: below)
                continue
            data = base[:place] + bytes([value]) + base[place + 1:]
            lines.append(_entry(value, data))
        buf = b"\n".join(lines) + b"\n"
        rows = _same_take(buf, len(buf) - 1)
        hex_values = {v for v in range(256) if bytes([v]) in HEX}
        assert sorted(row[0] for row in rows if row[4] is not None) == sorted(hex_values - {0x22})


@needs_accuracy
@pytest.mark.parametrize("length", [0, 1, 2, 30, 31, 32, 33, 34, 62, 63, 64, 65, 66, 96, 126, 127, 128, 129, 130, 160, 192, 1000, 1001, 4096])
def test_data_fields_of_every_length(length):
    rng = random.Random(length)
    data = bytes(rng.choice(HEX) for _ in range(length))
    lines = [_entry(1, data), _entry(2, data, b', "token_data" : "ab", "token_count" : 3 }'),
             _entry(3, data, b" }"), _entry(4, data, b" },\r"), _entry(5, data + b"G"), _entry(6, data[:-1] + b"\x80"),
             _entry(7, b"0" * 6000)]
    buf = b"\n".join(lines)
    rows = _same_take(buf)
    got = {row[0]: row[4] for row in rows if row[4] is not None}
    if length % 2 == 0:
        assert got[1] == got[2] == got[3] == binascii.unhexlify(data)
    else:
        assert 1 not in got and 2 not in got


@needs_accuracy
def test_random_long_blocks_with_odd_ends():
    """Random long-line blocks: entry lines with hex data and stray bytes, cut at random places (a truncated
    last line), "\\r\\n" line ends, non-ASCII bytes, blank lines and lines of the careful reading."""
    rng = random.Random(2024)
    for _ in range(200):
        lines = []
        for number in range(rng.randint(1, 8)):
            size = rng.choice([0, 2, 31, 32, 64, 200, 777, 2048])
            data = bytearray(rng.choice(HEX) for _ in range(size))
            for _ in range(rng.choice([0, 0, 0, 1, 2])):
                if data:
                    data[rng.randrange(len(data))] = rng.randrange(256)
            line = _entry(number, bytes(data).replace(b"\n", b"0"),
                          rng.choice([b" },", b" }", b" },\r", b", \"token_count\" : -5 }", b" }x", b""]))
            if rng.random() < 0.1:
                line = line[:rng.randrange(len(line) + 1)]
            lines.append(rng.choice([line, line, line, line, b"", b"[", b"...", b"\xff\xfe" * 300]))
        buf = b"\n".join(lines) + rng.choice([b"", b"\n"])
        _same_take(buf, rng.randint(0, len(buf)))


# --- the tail of a detail-log line (checker._detail_scan.tail_at keeps the last middle and end parts) -----

tail_ok = compiled("tail_ok")
needs_detail = pytest.mark.skipif(tail_ok is None, reason="checker._detail_scan is not built")

_MIDDLES = [', "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": {"is_error": false, '
            '"is_warning": false, "file": "%s"' % name for name in ("loadgen.cc", "results.cc", "a\\u00e9.cc", "")]
_MIDDLE_MISSES = [m.replace(*edit) for m in _MIDDLES[:2] for edit in
                  (("false", "fals"), ('"file": "', '"file": '), ('loadgen', 'load"gen'), ("mlperf", "ml\x01perf"),
                   ("POINT", "POINT\\x"), (", ", ","))] + [_MIDDLES[0][:-1], _MIDDLES[0][:40], ""]
_ENDS = [', "pid": 1234, "tid": 140234523452345}}', ', "pid": 1234, "tid": 7}}', ', "pid": 0, "tid": -0}}']
_END_MISSES = [e.replace(*edit) for e in _ENDS[:2] for edit in
               (("}}", "}"), ("}}", "}} "), ("}}", "}}}"), ('"pid": 1', '"pid": 01'), ("tid", "tld"), ("1234", ""))]


def _tail(rng: random.Random) -> str:
    middle = rng.choice(_MIDDLES) if rng.random() < 0.8 else rng.choice(_MIDDLE_MISSES)
    end = rng.choice(_ENDS) if rng.random() < 0.8 else rng.choice(_END_MISSES)
    time_ms = rng.choice(["0", "12.5", "1e3", "0.25E-2", "01", "-", "7."])
    line_no = rng.choice(["12", "0", "-3", "01", "", "9" * 20])
    return f', "time_ms": {time_ms}{middle}, "line_no": {line_no}{end}'


@needs_detail
def test_tails_in_any_order_answer_as_the_regular_expression():
    """Tails drawn from a few middle and end parts (the ones kept) and near misses of them, in random order,
    some cut short, some with bytes after the range: the answer is the regular expression's every time."""
    from checker.loaders import loadgen_log

    rng = random.Random(11)
    for _ in range(5000):
        tail = _tail(rng)
        if rng.random() < 0.1:
            tail = tail[:rng.randrange(len(tail) + 1)]
        before, after = "x" * rng.randint(0, 2), rng.choice(["", "", "}", " ", "\u20ac"])
        text = before + tail + after
        for stop, end in ((len(before), len(before) + len(tail)), (len(before), len(text))):
            assert tail_ok(text, stop, end) == (loadgen_log._LINE_TAIL.fullmatch(text, stop, end) is not None), \
                (text, stop, end)


@needs_detail
def test_a_kept_part_is_taken_only_where_it_is_whole():
    """After a valid tail, the same tail with its middle or end cut short, or longer, is not taken."""
    valid = ', "time_ms": 1.5' + _MIDDLES[0] + ', "line_no": 12' + _ENDS[0]
    assert tail_ok(valid, 0, len(valid))
    for cut in range(1, len(valid)):
        assert not tail_ok(valid, 0, len(valid) - cut)
        assert tail_ok(valid, 0, len(valid))  # (and kept again)
    assert not tail_ok(valid + "}", 0, len(valid) + 1)
    from checker.loaders import loadgen_log

    for edit in (("loadgen.cc", "loadgen.cc "), ('loadgen.cc"', "loadgen.cc"), ("loadgen.cc", 'loadgen.cc\\"'),
                 ("1234", "1234}}"), ('"line_no": 12', '"line_no": 12.5')):
        assert tail_ok(valid, 0, len(valid))
        other = valid.replace(*edit)
        assert tail_ok(other, 0, len(other)) == (loadgen_log._LINE_TAIL.fullmatch(other) is not None), other


# --- stamps of power logs (checker._power_scan tests only the last word of a stamp whose minute is the last one's)

def _stamp_edits(good: bytes, starts: bytes) -> list[bytes]:
    """``good`` with one byte of the seconds part of a stamp (offsets 15-22) of each stamped line but the first
    replaced by a digit, a separator or a byte the form refuses: the minute stays the last one's."""
    out = []
    lines = good.split(b"\n")
    stamped = [i for i, line in enumerate(lines) if line.startswith(starts)][1:]
    for i in stamped:
        at = len(starts) - 2  # (the stamp starts here: starts is its prefix up to the month's first digits)
        for offset in range(15, 23):
            for byte in b"09:./ -a\x00\xff":
                edited = list(lines)
                line = bytearray(lines[i])
                line[at + offset] = byte
                edited[i] = bytes(line)
                out.append(b"\n".join(edited))
    return out


def test_a_stamp_of_the_same_minute_is_tested_whole():
    power_scan = pytest.importorskip("tests.metrics.test_power_scan")
    if power_scan.spl_records is None:
        pytest.skip("checker._power_scan is not built")
    spl = power_scan._good_spl()
    taken = [power_scan._spl_same(data) for data in _stamp_edits(spl, b"Time,07")]
    assert any(taken) and not all(taken)
    ptd = power_scan._good_ptd().replace(b"\r\n", b"\n")
    taken = [power_scan._ptd_same(data) for data in _stamp_edits(ptd, b"07")]
    assert any(taken) and not all(taken)


# --- the ASCII test of a detail log's bytes (checker._detail_scan: AVX2 where the CPU has it, then SSE2) ------

scan = compiled("scan")
detail_avx2 = compiled("use_avx2")


def _both_widths(use):
    """The extension's AVX2 reading where the CPU has it, then without it (left on after)."""
    try:
        for on in (True, False):
            yield use(on)
    finally:
        use(True)


def _detail_bytes(lines: int = 12) -> bytes:
    tail = (', "time_ms": 1.5, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME", "metadata": '
            '{"is_error": false, "is_warning": false, "file": "loadgen.cc", "line_no": 12, "pid": 1, "tid": 2}}')
    return "".join(f':::MLLOG {{"key": "k{i}", "value": "{"v" * (i * 17)}"{tail}\n' for i in range(lines)).encode()


@pytest.mark.skipif(scan is None, reason="checker._detail_scan is not built")
def test_a_byte_above_0x7f_anywhere_makes_the_bytes_walk_decline():
    data = _detail_bytes()
    want_raw: dict = {}
    want = scan(data, want_raw, [], lambda payload, number: None)
    assert want is not None
    for _ in _both_widths(detail_avx2):
        raw: dict = {}
        assert scan(data, raw, [], lambda payload, number: None) == want and raw == want_raw
        for at in list(range(0, 300)) + list(range(len(data) - 300, len(data))):
            for byte in (0x80, 0xC3, 0xFF):
                edited = data[:at] + bytes([byte]) + data[at + 1:]
                assert scan(edited, {}, [], lambda payload, number: None) is None, (at, byte)


@pytest.mark.parametrize("byte", [b"\x00", b"\x0b", b"\x0c", b"\x1c", b"\x1e", b"\x1f", b"\r", b"\x7f", b"\x80", b"\n"])
def test_a_byte_anywhere_in_a_power_log_is_read_alike_with_and_without_avx2(byte):
    """The form test of checker._power_scan with its 32-byte (AVX2) scan and without it (the existing tests run
    the 16-byte and 8-byte ones, with AVX2 where the CPU has it)."""
    power_scan = pytest.importorskip("tests.metrics.test_power_scan")
    if power_scan.spl_records is None:
        pytest.skip("checker._power_scan is not built")
    power_avx2 = compiled("use_avx2", "_power_scan")
    spl, ptd = power_scan._good_spl(), power_scan._good_ptd()
    for _ in _both_widths(power_avx2):
        for at in range(len(spl) + 1):
            power_scan._spl_same(spl[:at] + byte + spl[at:])
        for at in range(len(ptd) + 1):
            power_scan._ptd_same(ptd[:at] + byte + ptd[at:])


# --- a detail line's key (quote or backslash found 16 bytes at a time) and summary line breaks ---------------

@pytest.mark.skipif(scan is None, reason="checker._detail_scan is not built")
def test_a_quote_or_backslash_at_every_place_of_a_key_reads_as_the_python_walk():
    """Keys of 0-40 characters with a backslash, an escaped quote or a stray byte at each place (on both sides
    of a 16-byte block), on their own and in longer lines: the C walk gives the Python walk's log."""
    from tests.loaders.test_detail_scan import _TAIL, _same

    tail = _TAIL % ("false", "false")
    lines = []
    for length in (0, 1, 7, 14, 15, 16, 17, 31, 32, 33, 40):
        key = "".join("abcdefghijklmnopqrstuvwxyz0123456789_ABCD"[i] for i in range(length))
        lines.append(':::MLLOG {"key": "%s", "value": 1%s' % (key, tail))
        for at in range(length + 1):
            for insert in ("\\\\", '\\"', "\\", '"', "\x01"):
                edited = key[:at] + insert + key[at:]
                lines.append(':::MLLOG {"key": "%s", "value": "v"%s' % (edited, tail))
        lines.append(':::MLLOG {"key": "%s' % key)  # (no closing quote: the line ends first)
    for start in range(0, len(lines), 40):
        assert _same("\n".join(lines[start:start + 40]) + "\n")


@pytest.mark.skipif(compiled("summary") is None, reason="checker._detail_scan is not built")
def test_summary_line_breaks_at_every_place_of_a_16_byte_block():
    from checker.loaders import loadgen_log

    summary = compiled("summary")
    body = "".join(f"* key number {i} : value {'x' * (i % 23)}\n" for i in range(12))
    for at in range(0, len(body), 3):
        for brk in ("\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\t", "\x1f", "\xa0", "\xe9"):
            text = body[:at] + brk + body[at:]
            assert summary(text) == loadgen_log._summary_lines(text)
            assert list(summary(text)) == list(loadgen_log._summary_lines(text))


# --- a folder whose listing takes several getdents64 calls (checker._walk_scan on Linux) ---------------------

def test_a_folder_larger_than_one_listing_buffer_walks_as_scandir(tmp_path):
    """3,000 files of long names (about 280 KB of entries: several reads of the 32 KB buffer) and sub-folders
    among them: the C walk gives the scandir walk's folders, names, sizes and order."""
    walk_tests = pytest.importorskip("tests.loaders.test_walk_scan")
    if walk_tests.walk is None:
        pytest.skip("checker._walk_scan is not built")
    files = {f"closed/S/big/{'n' * 60}{i:05d}.txt": b"x" * (i % 7) for i in range(3000)}
    files.update({f"closed/S/big/sub{i:03d}/f": b"y" for i in range(0, 300, 7)})
    walk_tests._make(tmp_path, files, folders=["closed/S/big/empty"])
    assert walk_tests._same(str(tmp_path), "closed/S")
    fast, _ = walk_tests._both(str(tmp_path), "closed/S")
    assert len(fast["known"]["closed/S/big"][0]) == 3000
