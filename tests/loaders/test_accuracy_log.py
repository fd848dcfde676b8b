"""Accuracy log: streaming hash, official truncation, streaming parser."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.loaders.accuracy_log import (
    TRUNCATED_SIZE,
    AccuracyLogError,
    is_truncated_shape,
    parse_accuracy_json_entries,
    sha256_file,
    truncate_accuracy_log,
)
from tests.conftest import REAL

SHARED = Path(REAL)  # the shared real data (tests/conftest.py; MLPC_SHARED moves it)


def _log_text(n: int, payload: str = "AB" * 40) -> str:
    rows = [f'{{ "seq_id" : {i}, "qsl_idx" : {i * 7}, "data" : "{payload}" }}' for i in range(n)]
    return "[\n" + ",\n".join(rows) + "\n]\n"


def _write(tmp_path: Path, text: str | bytes, name: str = "mlperf_log_accuracy.json") -> Path:
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return p


# ------------------------------------------------------------------------ hash


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, (1 << 20) - 1, (1 << 20) + 1, 3 * (1 << 20) + 17])
def test_sha256_matches_hashlib(tmp_path: Path, size: int) -> None:
    data = os.urandom(size)
    p = _write(tmp_path, data, "blob")
    assert sha256_file(p) == hashlib.sha256(data).hexdigest()
    assert sha256_file(p, chunk_size=4093) == hashlib.sha256(data).hexdigest()  # odd chunk size


# ------------------------------------------------------------------ truncation


def test_truncate_ascii_log(tmp_path: Path) -> None:
    text = _log_text(500)
    src = _write(tmp_path, text)
    before = src.read_bytes()
    dst = tmp_path / "out.json"
    digest = truncate_accuracy_log(src, dst)
    assert digest == hashlib.sha256(before).hexdigest()
    assert src.read_bytes() == before  # source untouched
    out = dst.read_bytes()
    assert out == before[:4096] + b"\n\n...\n\n" + before[-4096:]
    assert len(out) == TRUNCATED_SIZE == 8199
    assert is_truncated_shape(dst)
    assert not is_truncated_shape(src)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mlperf_log_accuracy.json", "out.json"]  # no temp left


def test_small_log_copied_unchanged(tmp_path: Path) -> None:
    text = _log_text(3)
    assert len(text) < 4096
    src = _write(tmp_path, text)
    dst = tmp_path / "out.json"
    assert truncate_accuracy_log(src, dst) == hashlib.sha256(text.encode()).hexdigest()
    assert dst.read_text() == text


def test_truncate_overwrites_dst_atomically_and_refuses_src(tmp_path: Path) -> None:
    src = _write(tmp_path, _log_text(300))
    dst = _write(tmp_path, "old", "out.json")
    truncate_accuracy_log(src, dst)
    assert dst.stat().st_size == 8199
    with pytest.raises(ValueError, match="in place"):
        truncate_accuracy_log(src, src)


def test_truncate_crlf_source_counts_characters(tmp_path: Path) -> None:
    # text-mode semantics: head is 4096 characters after \r\n -> \n
    text = _log_text(300)
    src = _write(tmp_path, text.replace("\n", "\r\n"))
    dst = tmp_path / "out.json"
    truncate_accuracy_log(src, dst)
    out = dst.read_text()
    assert "\r" not in out
    assert out[:4096] == text[:4096]
    assert out[4096:4103] == "\n\n...\n\n"


def test_truncate_non_ascii(tmp_path: Path) -> None:
    text = _log_text(200, payload="é" * 30)
    src = _write(tmp_path, text)
    dst = tmp_path / "out.json"
    truncate_accuracy_log(src, dst)
    out = dst.read_text(encoding="utf-8")
    assert out.startswith(text[:4096] + "\n\n...\n\n")
    assert text.endswith(out[4103:])


def test_shape_variants(tmp_path: Path) -> None:
    good = "[" + "x" * 4095 + "\n\n...\n\n" + "y" * 4095 + "]"
    assert is_truncated_shape(_write(tmp_path, good, "a"))
    crlf = good.replace("\n", "\r\n")
    assert is_truncated_shape(_write(tmp_path, crlf, "b"))
    assert not is_truncated_shape(_write(tmp_path, crlf, "c"), allow_crlf=False)
    assert not is_truncated_shape(_write(tmp_path, good[:-1] + "}", "d"))
    assert not is_truncated_shape(_write(tmp_path, good + " ", "e"))
    assert not is_truncated_shape(_write(tmp_path, good.replace("...", ".,."), "f"))
    assert not is_truncated_shape(tmp_path / "missing")
    assert not is_truncated_shape(_write(tmp_path, b"\xff" * 8199, "g"))


def test_real_published_logs_have_the_truncated_shape() -> None:
    logs = sorted(SHARED.rglob("accuracy/mlperf_log_accuracy.json")) if SHARED.is_dir() else []
    if not logs:
        pytest.skip(f"real submissions not found under {SHARED}")
    big = [p for p in logs if p.stat().st_size > 10 * 1024]
    small = [p for p in logs if p.stat().st_size <= 10 * 1024 and p.stat().st_size >= 4096]
    assert small and all(is_truncated_shape(p) for p in small)
    # the Windows-truncated v5.1 Intel logs (8208 bytes, \r\n) are only the CRLF variant
    assert any(not is_truncated_shape(p, allow_crlf=False) for p in small)
    for p in big:  # untruncated TEST06 logs parse completely
        entries = list(parse_accuracy_json_entries(p))
        assert entries and all(e.data for e in entries)


# --------------------------------------------------------------------- parser


def test_parse_entries(tmp_path: Path) -> None:
    p = _write(tmp_path, _log_text(50))
    entries = list(parse_accuracy_json_entries(p))
    assert [e.seq_id for e in entries] == list(range(50))
    assert entries[3].qsl_idx == 21 and entries[3].data == "AB" * 40
    assert _write(tmp_path, "[\n]\n", "empty").exists()
    assert list(parse_accuracy_json_entries(tmp_path / "empty")) == []


def test_parse_extra_keys_and_big_entries(tmp_path: Path) -> None:
    big = "F" * (3 << 20)  # crosses several read chunks
    rows = [{"seq_id": 0, "qsl_idx": 1, "data": big, "token_count": 5}, {"seq_id": 1, "qsl_idx": 2, "data": ""}]
    p = _write(tmp_path, json.dumps(rows))
    e0, e1 = parse_accuracy_json_entries(p)
    assert e0.data == big and dict(e0.extra) == {"token_count": 5}
    assert e1.seq_id == 1


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "expected '['"),
        ("{}", "expected '['"),
        ('[{"seq_id": 0, "qsl_idx": 0, "data": "AB"}', "end of file"),
        ('[{"seq_id": 0, "qsl_idx": 0, "data": "AB"', "invalid JSON"),
        ('[{"seq_id": 0, "qsl_idx": 0, "data": "AB"} {"seq_id": 1}]', "expected ','"),
        ('[{"seq_id": 0, "qsl_idx": 0}]', "lacks key"),
        ('[{"seq_id": "0", "qsl_idx": 0, "data": "AB"}]', "seq_id must be an integer"),
        ('[{"seq_id": 0, "qsl_idx": 0, "data": 5}]', "data must be a string"),
        ("[1]", "expected an object"),
        ('[{"seq_id": 0, "qsl_idx": 0, "data": "AB"}] trailing', "after the closing"),
        ('[{"seq_id": 0, "qsl_idx": 0, "data": "AB"},]', "invalid JSON"),
    ],
)
def test_parse_errors(tmp_path: Path, text: str, fragment: str) -> None:
    p = _write(tmp_path, text)
    with pytest.raises(AccuracyLogError, match=re.escape(fragment)) as info:
        list(parse_accuracy_json_entries(p))
    assert str(p) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_parse_truncated_log_says_so(tmp_path: Path) -> None:
    src = _write(tmp_path, _log_text(400))
    dst = tmp_path / "t.json"
    truncate_accuracy_log(src, dst)
    with pytest.raises(AccuracyLogError, match="truncated shape") as info:
        list(parse_accuracy_json_entries(dst))
    assert info.value.position is not None and 4000 <= info.value.position <= 4200


def test_parse_invalid_utf8(tmp_path: Path) -> None:
    p = _write(tmp_path, b'[{"seq_id": 0, "qsl_idx": 0, "data": "\xff"}]')
    with pytest.raises(AccuracyLogError, match="UTF-8"):
        list(parse_accuracy_json_entries(p))


def test_parse_entry_size_bound(tmp_path: Path) -> None:
    p = _write(tmp_path, '[{"seq_id": 0, "qsl_idx": 0, "data": "' + "A" * 5000)
    with pytest.raises(AccuracyLogError, match="longer than"):
        list(parse_accuracy_json_entries(p, max_entry_chars=1000))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.integers(0, 10**9), st.integers(0, 10**6), st.text(alphabet="0123456789ABCDEF", max_size=300)),
        max_size=30,
    ),
    st.sampled_from(["", " ", "\n", "\r\n  "]),
)
def test_parse_roundtrip_property(tmp_path: Path, rows, ws: str) -> None:
    objs = [{"seq_id": a, "qsl_idx": b, "data": c} for a, b, c in rows]
    text = ws + "[" + ws + ("," + ws).join(json.dumps(o) for o in objs) + ws + "]" + ws
    p = _write(tmp_path, text, "prop.json")
    got = [(e.seq_id, e.qsl_idx, e.data) for e in parse_accuracy_json_entries(p)]
    assert got == rows
