"""AC010 (hash of an untruncated log) and AC011 (log shape), and the 5-significant-figure accuracy text."""

from __future__ import annotations

import hashlib
import json
import os
import re

import pytest

from checker.loaders.accuracy_log import truncate_accuracy_log
from tests.recompute.helpers import RES, acc_log, base_tree, check, findings

ACC = f"{RES}/Offline/accuracy"


def _write(root, log: bytes, hash_of: bytes | None = None, hash_text: str | None = None):
    (root / ACC / "mlperf_log_accuracy.json").write_bytes(log)
    try:  # a complete log: the accuracy run covered one sample per entry (LoadGen logs each once; AC015)
        entries = len(json.loads(log))
    except ValueError:
        entries = None
    if entries is not None:
        detail = root / ACC / "mlperf_log_detail.txt"
        detail.write_text(re.sub(r'("key": "qsl_reported_total_count", "value": )\d+', rf"\g<1>{entries}",
                                 detail.read_text()))
    txt = root / ACC / "accuracy.txt"
    head = txt.read_text().split("hash=")[0]
    if hash_text is None:
        hash_text = hashlib.sha256(log if hash_of is None else hash_of).hexdigest()
    txt.write_text(head + f"hash={hash_text}\n")


def _codes(report):
    return {f.code for f in report.findings}


def test_small_log_with_its_own_hash_passes(tmp_path):
    root = base_tree(tmp_path)
    _write(root, acc_log(3))
    assert _codes(check(root)) == set()


def test_small_log_with_another_hash_is_ac010(tmp_path):
    root = base_tree(tmp_path)
    _write(root, acc_log(3), hash_of=acc_log(4))
    report = check(root)
    assert _codes(report) == {"AC010"}
    item = findings(report, "AC010")[0]
    assert item.expected == "hash=" + hashlib.sha256(acc_log(3)).hexdigest()
    assert item.location.path.endswith("accuracy/accuracy.txt") and item.location.line == 2


def test_hash_compared_case_insensitively(tmp_path):
    root = base_tree(tmp_path)
    _write(root, acc_log(3), hash_text=hashlib.sha256(acc_log(3)).hexdigest().upper())
    assert "AC010" not in _codes(check(root))


def test_any_hash_line_may_match(tmp_path):
    """A re-truncated accuracy.txt carries an old and a new hash line; one of them must match."""
    root = base_tree(tmp_path)
    _write(root, acc_log(3))
    txt = root / ACC / "accuracy.txt"
    txt.write_text(txt.read_text().replace("hash=", "hash=" + "0" * 64 + "\nhash=", 1))
    assert "AC010" not in _codes(check(root))


def test_missing_hash_is_ac004_only(tmp_path):
    root = base_tree(tmp_path)
    txt = root / ACC / "accuracy.txt"
    txt.write_text(txt.read_text().split("hash=")[0])
    assert _codes(check(root)) == {"AC004"}


def test_large_untruncated_log_is_hashed_in_full(tmp_path):
    log = acc_log(4000)
    assert len(log) > 100_000
    root = base_tree(tmp_path)
    _write(root, log)
    assert _codes(check(root)) == {"AC005"}  # not truncated, but the hash is the right one
    _write(root, log, hash_of=b"other")
    assert _codes(check(root)) == {"AC005", "AC010"}


def _truncated(tmp_path, log: bytes) -> bytes:
    src, dst = tmp_path / "full.json", tmp_path / "cut.json"
    src.write_bytes(log)
    truncate_accuracy_log(src, dst)
    return dst.read_bytes()


def test_official_truncated_form_is_not_hashed_and_has_a_valid_shape(tmp_path):
    log = acc_log(600)
    cut = _truncated(tmp_path, log)
    assert len(cut) == 8199
    root = base_tree(tmp_path)
    _write(root, cut, hash_of=log)
    assert _codes(check(root)) == set()
    _write(root, cut, hash_of=b"anything: the original is gone")
    assert _codes(check(root)) == set()


def test_crlf_truncated_form_of_8208_bytes_is_accepted(tmp_path):
    """The real v5.1 Intel logs: the official form written with CRLF line ends (8208 bytes)."""
    log = acc_log(600)
    cut = _truncated(tmp_path, log).replace(b"\n", b"\r\n")
    assert len(cut) == 8199 + cut.count(b"\r\n")
    root = base_tree(tmp_path)
    _write(root, cut, hash_of=log)
    assert _codes(check(root)) == set()


@pytest.mark.parametrize("content, why", [
    (b"", "expected '['"),
    (b'[\n{"seq_id": 0, "qsl_idx": 0, "da', "invalid JSON"),
    (b"\x00\xff\xfe" * 100, "not UTF-8"),
    (b'{"seq_id": 0}', "expected '['"),
    (b'[\n{"seq_id": 0, "qsl_idx": 0}\n]\n', "lacks key"),
])
def test_small_logs_that_are_not_a_complete_list_are_ac011(tmp_path, content, why):
    root = base_tree(tmp_path)
    _write(root, content)
    report = check(root)
    assert _codes(report) == {"AC011", "AC015"}  # AC015: accuracy.txt reports a score next to it
    assert why in findings(report, "AC011")[0].actual


def test_log_cut_by_hand_between_4096_and_10240_bytes(tmp_path):
    cut = acc_log(300)[:9000]
    root = base_tree(tmp_path)
    _write(root, cut)
    assert _codes(check(root)) == {"AC011", "AC015"}  # AC015: accuracy.txt reports a score next to it


def test_complete_list_between_4096_and_10240_bytes_passes(tmp_path):
    log = acc_log(150)
    assert 4096 < len(log) < 10240
    root = base_tree(tmp_path)
    _write(root, log)
    assert _codes(check(root)) == set()


def test_marker_with_wrong_sizes_is_ac011_and_not_hashed(tmp_path):
    log = acc_log(600)
    cut = _truncated(tmp_path, log)
    odd = cut[:4096 + 7] + cut[-3000:]  # marker after 4096 characters, tail too short
    root = base_tree(tmp_path)
    _write(root, odd, hash_of=log)
    report = check(root)
    assert _codes(report) == {"AC011", "AC015"}  # AC015: accuracy.txt reports a score next to it
    assert "truncation separator" in findings(report, "AC011")[0].actual


def test_open_division_gets_the_same_warnings(tmp_path):
    root = base_tree(tmp_path)
    _write(root, b"", hash_of=b"x")
    os.rename(root / "closed", root / "open")
    sys_json = root / "open/Acme/systems/edge_sys.json"
    sys_json.write_text(sys_json.read_text().replace('"closed"', '"open"'))
    codes = _codes(check(root))
    assert {"AC010", "AC011"} <= codes


def test_accuracy_values_in_messages_use_five_significant_figures(tmp_path):
    root = base_tree(tmp_path)
    txt = root / ACC / "accuracy.txt"
    txt.write_text(txt.read_text().replace("'rouge1': 43.1", "'rouge1': 40.012345"))
    item = findings(check(root), "AC001")[0]
    assert "ROUGE1 40.012 (written 40.012345) below target" in item.message
    assert item.actual == "40.012345"  # the evidence stays as written; comparisons use the float


def test_unreadable_log_does_not_crash(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    root = base_tree(tmp_path)
    log = root / ACC / "mlperf_log_accuracy.json"
    log.chmod(0)
    try:
        assert "AC011" in _codes(check(root))
    finally:
        log.chmod(0o644)


def test_large_counts_are_shown_as_written():
    from checker.checks.accuracy import _shown

    assert _shown("4097091") == "4097091"
    assert _shown("98.9995") == "99.000 (written 98.9995)"
    assert _shown("75.5") == "75.500 (written 75.5)"
    assert _shown("76.076") == "76.076"
    assert _shown("n/a") == "n/a"


@pytest.mark.parametrize("entries,covered,caught", [(150, 150, False), (149, 150, True), (151, 150, True), (1, 150, True)])
def test_complete_log_holds_one_entry_per_covered_sample(tmp_path, entries, covered, caught):
    """A log closed early as a valid JSON list (entries removed instead of the official truncation), or one
    with entries added, contradicts the score of accuracy.txt (AC015); the count must be exact."""
    root = base_tree(tmp_path)
    _write(root, acc_log(entries))
    detail = root / ACC / "mlperf_log_detail.txt"
    detail.write_text(re.sub(r'("key": "qsl_reported_total_count", "value": )\d+', rf"\g<1>{covered}",
                             detail.read_text()))
    found = findings(check(root), "AC015")
    assert bool(found) is caught
    if caught:
        assert found[0].actual == f"{entries} entries" and found[0].expected.startswith(f"{covered} entries")
