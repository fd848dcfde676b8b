"""TEST06 verdicts from accuracy-log rows (``verify_test06_rows``, what the load stage runs) against the plain
reading of the same samples as entries, one token at a time (the implementation it replaced, kept here)."""

from __future__ import annotations

import glob
import os
import random
import struct

import pytest

from checker.audit import verify_tests as vt
from checker.loaders.audit_spec import load_round_spec
from checker.loaders.compliance_folder import AccuracyLogReader, _entries
from tests.conftest import REAL

RULE = load_round_spec("v4.1").tests["TEST06"].llm_output


def _plain_token_bytes(data: str, width: int) -> bytes | None:
    try:
        raw = bytes.fromhex(data)
    except ValueError:
        return None
    if len(raw) * 2 != len(data) or len(raw) % width:
        return None
    return raw


def _plain_trailing(raw: bytes, width: int, token: int, stop: int = 0) -> int:
    run = 0
    for i in range(len(raw) // width - 1, stop - 1, -1):
        if int.from_bytes(raw[i * width:(i + 1) * width], "little", signed=True) != token:
            break
        run += 1
    return run


def _plain_width(entries: list, default: int) -> int:
    for entry in entries:
        if entry.token_count and entry.data:
            nbytes = len(entry.data) // 2
            if nbytes % entry.token_count == 0 and nbytes // entry.token_count in (4, 8):
                return nbytes // entry.token_count
    return default


def plain_test06(samples: list, scenario: str, eos: int, rule, element_bytes=None) -> vt.Test06Verdict:
    """The verdict token by token, over entries (the reading before rows)."""
    width = element_bytes or _plain_width(samples, rule.default_dtype_bytes)
    eos_official = None
    eos_bad, first_bad, len_bad = [], [], []
    first_missing = 0
    for entry in samples:
        raw = entry.raw if entry.raw is not None and len(entry.raw) % width == 0 else _plain_token_bytes(entry.data, width)
        if raw is None:
            len_bad.append(entry.qsl_idx)
            eos_bad.append(entry.qsl_idx)
            continue
        count = len(raw) // width
        if eos_official is None:
            if _plain_trailing(raw, width, eos, stop=1) >= 2:
                eos_official = count == 2
        run = _plain_trailing(raw, width, eos)
        if run >= 2 and not (count == 2 and run == 2):
            eos_bad.append(entry.qsl_idx)
        if entry.token_count is None or entry.token_count != count:
            len_bad.append(entry.qsl_idx)
        if entry.token_data is None:
            first_missing += 1
        else:
            first = _plain_token_bytes(entry.token_data, width)
            head = min(len(first), len(raw)) if first is not None else 0
            if first is None or first[:head] != raw[:head] or (not first and raw):
                first_bad.append(entry.qsl_idx)
    eos_ok = True if eos_official is None else eos_official
    if scenario == "Offline":
        first_official = "Skipped"
        first_strict = "False" if first_bad else ("Skipped" if first_missing == len(samples) else "True")
    else:
        first_official = first_strict = "False" if (first_bad or first_missing) else "True"
    length_ok = not len_bad
    official = first_official in ("True", "Skipped") and eos_ok and length_ok
    strict = bool(samples) and first_strict in ("True", "Skipped") and not eos_bad and length_ok
    if scenario != "Offline" and first_strict == "Skipped":
        strict = False
    return (strict, official, len(samples), width, first_official, first_strict, eos_ok, not eos_bad, length_ok,
            tuple(eos_bad[:20]), tuple(first_bad[:20]), tuple(len_bad[:20]), len(eos_bad), len(first_bad),
            len(len_bad))


def figures(v: vt.Test06Verdict) -> tuple:
    return (v.passed, v.official_passed, v.num_samples, v.element_bytes, v.first_token_official, v.first_token_strict,
            v.eos_official, v.eos_strict, v.length_ok, v.eos_violations, v.first_token_violations,
            v.length_violations, v.num_eos_violations, v.num_first_token_violations, v.num_length_violations)


def pack(values, width: int) -> bytes:
    return struct.pack(f"<{len(values)}{'i' if width == 4 else 'q'}", *values)


def random_rows(rng: random.Random, eos: int, width: int, n: int, clean: bool = False) -> list:
    """Rows as the reader gives them (data bytes, or a memoryview with its decoding), with every kind of
    sample the verdict tells apart (``clean``: no partial token, no odd digit)."""
    rows = []
    eos_id = eos if width == 8 or -2 ** 31 <= eos < 2 ** 31 else 5  # (an id no token of the width is: never seen)
    for qsl in range(n):
        length = rng.choice((0, 1, 2, 2, 3, 5, 12))
        values = [rng.choice((eos_id, eos_id, 7, -1, 2 ** 31 - 1, 0)) for _ in range(length)]
        raw = pack(values, width)
        kind = rng.random()
        if kind < 0.1 and not clean:
            raw += b"\x01" * rng.choice((1, 3))  # a partial token
        digits = raw.hex()
        digits = digits.upper() if rng.random() < 0.5 else digits
        data = digits.encode("ascii")
        token = rng.random()
        if token < 0.2:
            token_data = None
        elif token < 0.3 and not clean:
            token_data = pack([rng.choice((eos_id, 7))], width).hex().encode() + b"0"  # an odd digit
        elif token < 0.4:
            token_data = pack([9], width).hex().encode()
        elif token < 0.5:
            token_data = (raw + pack([1, 2], width)).hex().encode()  # longer than the output
        else:
            token_data = raw[:width * rng.choice((1, 2))].hex().encode() or None
        count = rng.choice((len(values), len(values), len(values) + 1, None, 0))
        if rng.random() < 0.3:
            block = b"xx" + data + b"yy"
            rows.append((qsl, memoryview(block)[2:2 + len(data)], token_data, count, bytes.fromhex(digits)))
        else:
            rows.append((qsl, data, token_data, count, None))
    return rows


@pytest.mark.parametrize("seed", range(40))
def test_rows_give_the_plain_verdict_on_generated_samples(seed):
    rng = random.Random(seed)
    width = rng.choice((4, 8))
    eos = rng.choice((2, 0, -1, 128001, 2 ** 40))  # 2 ** 40: no 4-byte token is that id
    rows = random_rows(rng, eos, width, rng.choice((0, 1, 3, 30)))
    for scenario in ("Offline", "Server"):
        for element_bytes in (None, width):
            got = vt.verify_test06_rows(rows, scenario, eos, RULE, element_bytes)
            assert figures(got) == plain_test06(_entries(rows), scenario, eos, RULE, element_bytes)
            assert got == vt.verify_test06(_entries(rows), scenario, eos, RULE, element_bytes)


@pytest.mark.parametrize("seed", range(40))
def test_the_column_reading_gives_the_row_reading(seed):
    """The fast path (a field at a time across the rows) finds what the loop over the rows finds, and takes the
    usual logs (every output whole tokens, decoded or not by the reader)."""
    rng = random.Random(seed)
    width = rng.choice((4, 8))
    eos = rng.choice((2, 0, -1, 128001, 2 ** 40))
    for clean in (True, False):
        rows = random_rows(rng, eos, width, rng.choice((1, 3, 30)), clean)
        if clean and rng.random() < 0.5:  # a short-line block: the reader did not decode the outputs
            rows = [(q, bytes(d), t, c, None) for q, d, t, c, _ in rows]
        eos2 = vt._token_of(eos, width) * 2 if vt._token_of(eos, width) is not None else None
        columns = vt._test06_columns(rows, width, eos2)
        if clean and len({r is None for *_, r in rows}) == 1:  # (decoded by the reader for all rows or none)
            assert columns is not None
        if columns is not None:
            assert columns == vt._test06_rows(rows, width, eos2)
    assert vt._test06_columns([], width, None) is None


def test_entries_with_text_fields_give_the_plain_verdict():
    """The entry form of the API (the live runner): hex as text, white space, an empty first token."""
    eos = 2
    good = pack([5, 6, 2], 8).hex()
    samples = [vt.OutputEntry(0, good, good[:16], 3), vt.OutputEntry(1, good[:16] + " " + good[16:], None, 3),
               vt.OutputEntry(2, good, "", 3), vt.OutputEntry(3, pack([5, 2, 2], 8).hex(), "zz", 3),
               vt.OutputEntry(4, pack([2, 2], 8).hex(), None, 2), vt.OutputEntry(5, good, good[:16], 3, b"\x01" * 3),
               vt.OutputEntry(6, good, good[:16], 3, bytes.fromhex(good)), vt.OutputEntry(7, "é" * 16, None, 1)]
    for scenario in ("Offline", "Server"):
        for cut in range(len(samples) + 1):
            got = vt.verify_test06(samples[cut:] + samples[:cut], scenario, eos, RULE)
            assert figures(got) == plain_test06(samples[cut:] + samples[:cut], scenario, eos, RULE)


def test_the_official_eos_scan_is_decided_by_the_first_sample_that_tells():
    two = pack([2, 2], 8).hex().encode()  # two tokens, both EOS: accepted, and tells nothing officially
    three = pack([5, 2, 2], 8).hex().encode()
    rows = [(0, two, None, 2, None), (1, three, None, 3, None)]
    v = vt.verify_test06_rows(rows, "Offline", 2, RULE)
    assert figures(v) == plain_test06(_entries(rows), "Offline", 2, RULE)
    assert not v.eos_official and v.eos_violations == (1,)


def _logs() -> list[str]:
    return sorted(glob.glob(os.path.join(REAL, "**", "TEST06", "accuracy", "mlperf_log_accuracy.json"), recursive=True))


@pytest.mark.parametrize("path", _logs() or [pytest.param(None, marks=pytest.mark.skip("real submission data not found (set MLPC_SHARED to the shared/ folder)"))])
def test_rows_give_the_plain_verdict_on_real_logs(path):
    reader = AccuracyLogReader(path)
    rows = [row for block in reader.batches() for row in block]
    for scenario in ("Offline", "Server"):
        for eos in (2, 128001, 0):
            got = vt.verify_test06_rows(rows, scenario, eos, RULE)
            assert figures(got) == plain_test06(_entries(rows), scenario, eos, RULE)


def test_an_empty_first_token_disagrees_with_an_output():
    good = pack([5, 6, 2], 8).hex()
    samples = [vt.OutputEntry(0, good, "", 3), vt.OutputEntry(1, good, good[:16], 3), vt.OutputEntry(2, "", "", 0)]
    for scenario in ("Offline", "Server"):
        got = vt.verify_test06(samples, scenario, 2, RULE)
        assert figures(got) == plain_test06(samples, scenario, 2, RULE)
        assert got.first_token_violations == (0,)
