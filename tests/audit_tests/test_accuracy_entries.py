"""The block reader of accuracy-log entries and the TEST01 key comparison against simple references.

The reader turns LoadGen's entry lines into rows with one regular expression per block and sends
every other line through the careful per-line reading; the references below read the log one line
at a time and compare outputs as decoded bytes, the way the verification did before. Both must give
the same rows, the same malformed lines, the same truncation flag and the same TEST01 figures, for
any mix of lines and any block size."""

from __future__ import annotations

import binascii
import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from checker.audit import compliance
from checker.audit import verify_tests as vt
from checker.loaders import accuracy_entries as ae


def _reference_read(path: str, max_line: int) -> tuple[list, bool, list, int]:
    """(rows, truncated, malformed, entries) read one line at a time (readline of at most max_line bytes)."""
    rows, pending = [], []
    truncated = last_bad = after_marker = False
    with open(path, "rb") as handle:
        number = 0
        while raw := handle.readline(max_line):
            number += 1
            line = raw.decode("utf-8", errors="replace").strip()
            if not line or line in ("[", "]", "[]"):
                continue
            if line == "...":
                truncated = True
                if last_bad:
                    pending.pop()
                after_marker, last_bad = True, False
                continue
            row, problem = ae._parse_entry_line(line)
            first_of_tail, after_marker = after_marker, False
            if problem is not None:
                last_bad = not first_of_tail
                if not first_of_tail:
                    pending.append((number, problem))
                continue
            last_bad = False
            rows.append(row[:4])
    return rows, truncated, pending, len(rows)


def _entry(seq, qsl, data, token_data=None, count=None, end=","):
    return (f'{{ "seq_id" : {seq}, "qsl_idx" : {qsl}, "data" : "{data}"'
            + (f', "token_data" : "{token_data}"' if token_data is not None else "")
            + (f', "token_count" : {count}' if count is not None else "") + " }" + end)


_hex = st.text("0123456789abcdefABCDEF", max_size=80)
_even_hex = st.binary(max_size=40).map(bytes.hex)
_line = st.one_of(
    st.builds(_entry, st.integers(0, 99), st.integers(0, 30), _even_hex, st.none() | _even_hex,
              st.none() | st.integers(-2, 40), st.sampled_from([",", ""])),  # as LoadGen writes them
    st.just("..."),
    st.builds(_entry, st.integers(0, 99), st.integers(0, 30), _hex, st.none() | _hex,
              st.none() | st.integers(-2, 40), st.sampled_from([",", "", ",,", " ", "]"])),
    st.builds(lambda q, d: f'{{"seq_id": 1, "qsl_idx": {q}, "data": "{d}"}},', st.integers(-1, 30), _hex),
    st.sampled_from(["[", "]", "[]", "", "...", " ... ", "\r", "garbage", '{ "seq_id" : 1, "qsl_idx" : 2, "data" : "A',
                     '"data" : "00" },', '{ "seq_id" : 01, "qsl_idx" : 2, "data" : "00" },', "\u0663", "\xff\xfe", "\udcff\udcfe",
                     '{ "seq_id" : 1, "qsl_idx" : \u0663, "data" : "00" },', '[{ "seq_id" : 1, "qsl_idx" : 2, "data" : "0A" }']),
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_line, max_size=40), st.sampled_from(["\n", "\r\n"]), st.booleans(),
       st.sampled_from([(1 << 22, 1 << 28), (7, 1 << 28), (64, 64), (16, 40), (3, 3)]), st.sampled_from([0, 1 << 30]))
def test_block_reader_reads_what_the_line_reader_reads(tmp_path_factory, lines, newline, final, sizes, long_line):
    """Short-line blocks (one regular expression) and long-line blocks (line by line) alike."""
    path = tmp_path_factory.mktemp("log") / "mlperf_log_accuracy.json"
    path.write_bytes((newline.join(lines) + (newline if final else "")).encode("utf-8", "surrogateescape"))
    block, max_line = sizes
    expected = _reference_read(str(path), max_line)
    for entry_lines, long_lines in _READERS:  # the blocks read in C (where built) and in Python
        rows, reader = _read_with(path, block, max_line, long_line, entry_lines, long_lines)
        assert (rows, reader.truncated, reader.malformed, reader.entries) == expected
        assert reader.error is None


#: (short-line reader, long-line reader): in C where built, and in Python (None)
_READERS = sorted({(ae._ENTRY_LINES, ae._LONG_BLOCK), (None, ae._LONG_BLOCK), (ae._ENTRY_LINES, None), (None, None)},
                  key=lambda pair: (pair[0] is None, pair[1] is None))

_TRICKY = [
    [_entry(0, 0, "00"), "...", "garbage", _entry(1, 1, "01")],  # the tail's first line after entries
    [_entry(0, 0, "00"), "bad", "...", "bad", "bad", _entry(1, 1, "0A"), "..."],
    ['{ "seq_id" : 01, "qsl_idx" : 2, "data" : "00" },', '{ "seq_id" : 1, "qsl_idx" : 02, "data" : "00" },',
     _entry(1, 0, "00", count="-0"), _entry(1, 0, "00", count="-01"), _entry(1, 0, "00", count="00"),
     _entry(10, 10, "00", "", 5), _entry(10, 10, "00", "0g"), _entry(10, 10, "0G"), _entry(3, 3, "ABC", "AB"),
     _entry(3, 3, "AB", end=",,"), _entry(3, 3, "AB", end=" "), _entry(3, 3, "AB") + "\r", _entry(12345678901234567890, 98765432109876543210, "FF")],
    ["[", "]", "", "[]", " ... ", "..."],
]


def test_tricky_lines_read_the_same_in_c_and_by_the_regular_expression(tmp_path):
    """Lines at the grammar's edges (leading zeros, signs, empty and bad hex, odd digits, a carriage return,
    huge numbers) and the state the careful reading carries from line to line (an entry just before the
    truncation mark, bad lines after it)."""
    for index, lines in enumerate(_TRICKY):
        path = tmp_path / f"{index}.json"
        path.write_text("\n".join(lines) + "\n")
        expected = _reference_read(str(path), 1 << 28)
        for entry_lines, long_lines in _READERS:
            for long_line in (1 << 30, 0):  # every block short, every block long
                rows, reader = _read_with(path, 1 << 22, 1 << 28, long_line, entry_lines, long_lines)
                assert (rows, reader.truncated, reader.malformed, reader.entries) == expected, (index, entry_lines)


def _read_with(path, block: int, max_line: int, long_line: int = ae.LONG_LINE_BYTES,
               entry_lines=ae._ENTRY_LINES, long_lines=ae._LONG_BLOCK) -> tuple[list, ae.AccuracyEntries]:
    """The rows (without the decoded data, checked here) and the reader, with the given reading sizes and
    block readers (``entry_lines``, short lines: the C one, or None for the regular expression;
    ``long_lines``: the C one, or None for the Python loop)."""
    saved = ae.BLOCK_BYTES, ae.MAX_LINE_BYTES, ae.LONG_LINE_BYTES, ae._ENTRY_LINES, ae._LONG_BLOCK
    ae.BLOCK_BYTES, ae.MAX_LINE_BYTES, ae.LONG_LINE_BYTES, ae._ENTRY_LINES, ae._LONG_BLOCK = (
        block, max_line, long_line, entry_lines, long_lines)
    try:
        reader = ae.AccuracyEntries(str(path))
        batches = list(reader.batches())
    finally:
        ae.BLOCK_BYTES, ae.MAX_LINE_BYTES, ae.LONG_LINE_BYTES, ae._ENTRY_LINES, ae._LONG_BLOCK = saved
    rows = [row for batch in batches for row in batch]
    assert all(row[4] is None or row[4] == binascii.unhexlify(row[1]) for row in rows)
    # a row's form says how its block was read: long lines give a view of the data and the data decoded
    assert all((row[1].__class__ is memoryview) == (row[4] is not None) for row in rows)
    return [row[:4] for row in rows], reader


def test_an_entry_between_the_mark_and_a_bad_line_makes_that_line_malformed(tmp_path):
    path = tmp_path / "mlperf_log_accuracy.json"
    path.write_text("\n".join(["[", _entry(0, 0, "00"), "...", "cut entry", _entry(1, 1, "01"), "bad", _entry(2, 2, "02"),
                               "bad too", "...", "]"]) + "\n")
    for long_line in (0, 1 << 30):  # read line by line, or with one regular expression
        rows, reader = _read_with(path, 1 << 22, 1 << 28, long_line)
        assert [row[0] for row in rows] == [0, 1, 2]
        assert reader.truncated and reader.malformed == [(6, "not a JSON object")]  # line 4 starts the tail, line 8 ends the head


def test_a_line_of_exactly_the_longest_length_is_read_in_two(tmp_path):
    path = tmp_path / "mlperf_log_accuracy.json"
    path.write_text("[\n0123456789\nbad\n]\n")  # readline(10) returns the digits, then the newline alone
    rows, reader = _read_with(path, 4, 10)
    assert rows == [] and reader.malformed == [(2, "not a JSON object"), (4, "not a JSON object")]


def test_published_truncated_log(tmp_path):
    head = "[\n" + "".join(_entry(i, i, "%08X" % i) + "\n" for i in range(3)) + '{ "seq_id" : 9, "qs'
    tail = 'l_idx" : 7, "data" : "00" },\n' + _entry(10, 8, "0A0B", end="") + "\n]\n"
    path = tmp_path / "mlperf_log_accuracy.json"
    path.write_text(head + "\n\n...\n\n" + tail)
    reader = compliance.AccuracyLogReader(str(path))
    entries = list(reader)
    assert [e.qsl_idx for e in entries] == [0, 1, 2, 8]
    assert entries[-1].raw == b"\x0a\x0b" and entries[-1].data == "0A0B"
    assert reader.truncated and reader.malformed == [] and reader.entries == 4


def test_odd_data_and_bad_lines_are_malformed_with_their_line(tmp_path):
    path = tmp_path / "mlperf_log_accuracy.json"
    path.write_text("[\n" + _entry(0, 0, "ABC") + "\n" + _entry(1, 1, "AB") + "\nnot json\n]\n")
    reader = compliance.AccuracyLogReader(str(path))
    assert [e.qsl_idx for e in reader] == [1]
    assert reader.malformed == [(2, "data missing or not an even-length hex string"), (4, "not a JSON object")]


def test_unreadable_log_is_an_error(tmp_path):
    reader = compliance.AccuracyLogReader(str(tmp_path / "missing.json"))
    assert list(reader) == [] and reader.error.startswith("cannot open")


# --- TEST01: output keys against decoded bytes ---------------------------------------------------------


def _reference_test01(acc_entries, perf_entries, width):
    """(figures, examples) comparing decoded bytes (text upper-cased when not hex)."""
    def payload(e):
        try:
            return bytes.fromhex(e.data)
        except ValueError:
            return e.data.upper()

    def first(p):
        return p[:width] if isinstance(p, bytes) else p[:2 * width]

    def digest(p):
        return hashlib.sha256(p if isinstance(p, bytes) else b"\xff" + p.encode()).digest()

    acc, dup, acc_mismatch = {}, 0, 0
    for e in acc_entries:
        p = payload(e)
        if e.qsl_idx in acc:
            dup += 1
            acc_mismatch += acc[e.qsl_idx][1] != digest(p)
            continue
        acc[e.qsl_idx] = (first(p), digest(p), not p)
    matched = missing = first_mm = full_mm = 0
    examples = []
    for e in perf_entries:
        ref = acc.get(e.qsl_idx)
        if ref is None:
            missing += 1
            continue
        matched += 1
        p = payload(e)
        ok = (not p and ref[2]) if (not p or ref[2]) else first(p) == ref[0]
        first_mm += not ok
        if digest(p) != ref[1]:
            full_mm += 1
            examples.append(e.qsl_idx)
    return (len(acc_entries), dup, acc_mismatch, len(perf_entries), matched, first_mm, full_mm, missing), examples[:20]


_data = st.one_of(st.sampled_from(["", "00", "0a", "0A", "0A0B", "0a0b", "ff" * 40, "FF" * 40, "ff" * 39 + "fe",
                                   "fe" + "ff" * 39, "zz", "ZZ", "zz00"]), st.text("0123456789abcdefABCDEF", max_size=8))
_entries = st.lists(st.builds(vt.OutputEntry, st.integers(0, 6), _data), max_size=25)


@settings(max_examples=400, deadline=None)
@given(_entries, _entries, st.sampled_from([1, 2, 4]))
def test_test01_keys_compare_like_decoded_bytes(acc, perf, width):
    v = vt.verify_test01_outputs(acc, perf, element_bytes=width)
    figures = (v.num_acc_log_entries, v.num_acc_log_duplicate_keys, v.num_acc_log_data_mismatch, v.num_perf_log_entries,
               v.num_perf_log_qsl_idx_match, v.num_perf_log_data_mismatch, v.num_perf_log_full_mismatch,
               v.num_missing_qsl_idxs)
    assert (figures, list(v.mismatched_qsl_idxs)) == _reference_test01(acc, perf, width)


def test_test01_from_a_log_equals_test01_from_entries(tmp_path):
    acc_path, perf_path = tmp_path / "acc.json", tmp_path / "perf.json"
    acc_path.write_text("[\n" + "\n".join(_entry(i, i, "%02X" % i + "00" * 40) for i in range(6)) + "\n]\n")
    perf_path.write_text("[\n" + "\n".join([_entry(0, 0, "00" * 41), _entry(1, 1, "01" + "00" * 39 + "01"),
                                             _entry(2, 2, "ff" + "00" * 40), _entry(3, 9, "00")]) + "\n]\n")
    acc, perf = compliance.AccuracyLogReader(str(acc_path)), compliance.AccuracyLogReader(str(perf_path))
    for long_line in (ae.LONG_LINE_BYTES, 0):  # short lines as bytes, long lines as views of the block
        saved, ae.LONG_LINE_BYTES = ae.LONG_LINE_BYTES, long_line
        try:
            from_keys = vt.verify_test01_keys(acc.keys(1), perf.keys(1))
            from_entries = vt.verify_test01_outputs(list(acc), list(perf))
        finally:
            ae.LONG_LINE_BYTES = saved
        assert from_keys == from_entries
        assert (from_keys.num_perf_log_qsl_idx_match, from_keys.num_perf_log_data_mismatch,
                from_keys.num_perf_log_full_mismatch, from_keys.mismatched_qsl_idxs) == (3, 1, 2, (1, 2))
