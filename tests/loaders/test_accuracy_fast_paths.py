"""The fast paths of the accuracy readers against their plain readings: the long-line blocks read in C
(checker._accuracy_scan.long_lines against accuracy_entries._take_long), the truncated-shape and marker
tests of an ASCII log on its bytes, the JSON shortcut of the careful line reading, the lazy digest of
HashingReader, and the accuracy.txt lines found by str.find (accuracy_metrics._candidate_lines)."""

from __future__ import annotations

import glob
import hashlib
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.loaders import accuracy_entries as ae
from checker.loaders import accuracy_log as al
from checker.loaders.hashing_reader import HashingReader
from checker.metrics import accuracy_metrics as am
from tests.conftest import REAL


def _rows(path: str, long_lines) -> tuple[list, tuple]:
    saved = ae._LONG_BLOCK
    ae._LONG_BLOCK = long_lines
    try:
        reader = ae.AccuracyEntries(path)
        rows = [row for batch in reader.batches() for row in batch]
    finally:
        ae._LONG_BLOCK = saved
    plain = [(qsl, bytes(data), token, count, raw) for qsl, data, token, count, raw in rows]
    return plain, (reader.truncated, reader.malformed, reader.entries, reader.error)


@pytest.mark.skipif(ae._LONG_BLOCK is None, reason="checker._accuracy_scan is not built")
def test_long_lines_in_c_read_what_python_reads_on_real_logs():
    """Every accuracy log of the shared real rounds (the LLM logs are the long-line ones)."""
    paths = sorted(glob.glob(os.path.join(REAL, "v*", "*", "*", "*", "**", "mlperf_log_accuracy.json"), recursive=True))
    if not os.path.isdir(REAL):
        pytest.skip("no shared data")
    long_logs = 0
    for path in paths:
        with open(path, "rb") as handle:
            data = handle.read(ae.BLOCK_BYTES)
        long_logs += len(data) > ae.LONG_LINE_BYTES * (data.count(b"\n") + 1)
        assert _rows(path, ae._LONG_BLOCK) == _rows(path, None), path
    assert long_logs > 0


def _entry(qsl, data, token=None, count=None, end=","):
    return (f'{{ "seq_id" : {qsl}, "qsl_idx" : {qsl}, "data" : "{data}"'
            + (f', "token_data" : "{token}"' if token is not None else "")
            + (f', "token_count" : {count}' if count is not None else "") + " }" + end)


_LONG = "0123456789abcdefABCDEF" * 40


@pytest.mark.skipif(ae._LONG_BLOCK is None, reason="checker._accuracy_scan is not built")
@pytest.mark.parametrize("lines", [
    [_entry(1, _LONG), _entry(2, _LONG[:-1]), _entry(3, _LONG + "0g"), _entry(4, _LONG, "", -0), "...",
     _entry(5, _LONG, "ab", 12, end=""), _entry(6, "", None, None), _entry(7, _LONG, "xy"), "]"],
    ["[", _entry(1, _LONG * 3)[:2500], "...", _entry(2, _LONG)[200:], _entry(3, _LONG, count=99999999999999999999999), "]"],
    [_entry(9, _LONG), _entry(1, _LONG, end=",,"), _entry(1, _LONG, end=" "), _entry(1, _LONG) + "\r", '{"seq_id": 1, "qsl_idx": 1, "data": "%s"}' % _LONG],
])
def test_long_lines_in_c_at_the_grammar_edges(tmp_path, lines):
    path = tmp_path / "mlperf_log_accuracy.json"
    path.write_text("\n".join(lines) + "\n")
    fast, plain = _rows(str(path), ae._LONG_BLOCK), _rows(str(path), None)
    assert fast == plain
    assert any(row[4] is not None for row in fast[0])  # the blocks were long ones


@settings(max_examples=300, deadline=None)
@given(st.text(" \t\r\n\x0b\x0c\x1c\x1f{}[]\"a1:,", max_size=12))
def test_the_json_shortcut_says_what_the_decoder_says(text):
    """A text the shortcut turns down (no object between JSON's white space) is one the decoder turns down."""
    def decoded():
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            return None, "not a JSON object"
        return (None, "not a JSON object") if not isinstance(obj, dict) else "object"

    got = ae._parse_entry_json(text)
    if got == (None, "not a JSON object"):
        assert decoded() == got
    else:
        assert decoded() == "object"


def _truncated(body_char: str = "a", crlf: bool = False) -> bytes:
    head = ("[" + body_char * (al.VIEWABLE_CHARS - 1))
    tail = (body_char * (al.VIEWABLE_CHARS - 1) + "]")
    text = head + al.TRUNCATION_MARKER + tail
    return (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")


@pytest.mark.parametrize("raw", [
    _truncated(), _truncated(crlf=True), _truncated("\u00e9"), b"\x1c" + _truncated()[1:], _truncated()[:-1] + b"\x1f",
    b" " + _truncated()[1:], _truncated()[:-1] + b"\x0b", _truncated()[:-1] + b"\n", _truncated()[1:] + b"x",
    _truncated().replace(b"...", b"..,"), b"\xff" + _truncated()[1:], _truncated()[:-1] + b"\r",
])
def test_truncated_shape_on_bytes_is_the_shape_on_text(raw):
    def plain(allow_crlf):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return False
        candidates = [text] + ([text.replace("\r\n", "\n")] if allow_crlf and "\r\n" in text else [])
        return any(len(t) == al.TRUNCATED_SIZE
                   and t[al.VIEWABLE_CHARS:al.VIEWABLE_CHARS + len(al.TRUNCATION_MARKER)] == al.TRUNCATION_MARKER
                   and t.lstrip().startswith("[") and t.rstrip().endswith("]") for t in candidates)

    for allow_crlf in (True, False):
        assert al.truncated_shape_of(raw, allow_crlf) == plain(allow_crlf)


def test_a_head_nobody_digests_is_not_hashed(tmp_path):
    path = tmp_path / "log"
    path.write_bytes(b"x" * 5000)
    reader = HashingReader(open(path, "rb"))
    assert reader.peek(8000) == b"x" * 5000 and reader.read() == b"x" * 5000 and reader.read() == b""
    assert reader._hashed == 0  # read from memory, end of file: nothing hashed yet
    assert reader.hexdigest() == hashlib.sha256(b"x" * 5000).hexdigest()
    reader.close()


_PATTERNS = {"A": r".*'rouge1':\s+([\d.]+).*", "B": r".*'mbxp':\s([\d.]+).*"}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(["{'rouge1': 12.5, 'mbxp': 3}", "'mbxp': 7 'rouge1': 1", "hash=ab12", "hash=",
                                 "x hash=zz", "", "noise", "'rouge1':  x", "'mbxp': 9.5", "'rouge1': 99.1"]),
                max_size=12), st.booleans())
def test_accuracy_lines_found_by_find_read_what_every_line_gives(monkeypatch, lines, final):
    text = "\n".join(lines) + ("\n" if final else "")
    targets, limits = [("A", 10.0), ("B", 5.0)], [("B", 8.0)]
    fast = am.read_accuracy(text, _PATTERNS, targets, limits)
    with monkeypatch.context() as patched:
        patched.setattr(am, "_line_filter", lambda patterns: None)
        patched.setattr(am, "_filterable", lambda patterns: False)
        plain = am.read_accuracy(text, _PATTERNS, targets, limits)
    assert fast == plain
