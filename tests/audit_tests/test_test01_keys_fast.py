"""TEST01 output keys, reference keys and verdicts (their C-level fast paths) against the plain per-pair
reading they replaced, kept here, on generated blocks and on the real logs of the shared trees."""

from __future__ import annotations

import glob
import os
import random

import pytest

from checker.audit import verify_tests as vt
from checker.loaders.compliance_folder import AccuracyLogReader
from tests.conftest import REAL



def plain_output_keys(rows, width):
    limit = max(vt.KEY_INLINE_DIGITS, 2 * width)
    return [(row[0], row[1].upper()) if len(row[1]) <= limit and row[1].__class__ is bytes
            else (row[0], vt.output_key(row[1], width)) for row in rows]


def plain_reference(blocks, wanted):
    first, entries, mismatches = {}, 0, 0
    for block in blocks:
        for qsl, key in block:
            entries += 1
            if qsl not in first:
                first[qsl] = key
            elif first[qsl] != key:
                mismatches += 1
    keys = first if wanted is None else {qsl: first[qsl] for qsl in wanted if qsl in first}
    return vt.ReferenceKeys(entries, entries - len(first), mismatches, keys)


def plain_verdict(reference, performance, element_bytes=1, min_matched=1):
    acc = reference.keys
    n_perf = matched = first_mismatch = full_mismatch = missing = 0
    examples = []
    for qsl, key in performance:
        n_perf += 1
        if qsl not in acc:
            missing += 1
            continue
        matched += 1
        ref = acc[qsl]
        if ref == key:
            continue
        full_mismatch += 1
        if len(examples) < 20:
            examples.append(qsl)
        if not key or not ref or vt._first_of_key(key, element_bytes) != vt._first_of_key(ref, element_bytes):
            first_mismatch += 1
    return (n_perf, matched, first_mismatch, full_mismatch, missing, tuple(examples))


def figures(v: vt.Test01OutputVerdict) -> tuple:
    return (v.num_perf_log_entries, v.num_perf_log_qsl_idx_match, v.num_perf_log_data_mismatch,
            v.num_perf_log_full_mismatch, v.num_missing_qsl_idxs, v.mismatched_qsl_idxs)


def random_block(rng: random.Random, start: int, n: int, qsls: int) -> list:
    rows = []
    for i in range(n):
        qsl = rng.randrange(qsls) if rng.random() < 0.5 else start + i
        digits = "".join(rng.choice("0aA1fF") for _ in range(2 * rng.choice((0, 1, 2, 4, 32, 40))))
        data = digits.encode()
        if rng.random() < 0.1:
            data = memoryview(b"<" + data + b">")[1:-1]
        elif rng.random() < 0.05:
            data = bytearray(data)  # (not bytes: the slow path)
        rows.append((qsl, data, None, None, None))
    return rows


@pytest.mark.parametrize("seed", range(60))
def test_fast_paths_give_the_plain_keys_and_verdicts(seed):
    rng = random.Random(seed)
    width = rng.choice((1, 4, 40))
    qsls = rng.choice((5, 50, 10_000))
    blocks = [random_block(rng, 1000 * b, rng.choice((0, 1, 3, 20)), qsls) for b in range(rng.choice((1, 2, 4)))]
    if rng.random() < 0.3:  # each sample once: the usual log
        blocks = [[(1000 * b + i, *row[1:]) for i, row in enumerate(block)] for b, block in enumerate(blocks)]
    keyed = []
    for block in blocks:
        keys = vt.output_keys(block, width)
        assert keys == plain_output_keys(block, width)
        keyed.append(keys)
    builder = vt.ReferenceKeysBuilder()
    for keys in keyed:
        builder.add(iter(keys) if rng.random() < 0.3 else keys)
    perf = [(row[0] if rng.random() < 0.8 else row[0] + 7, key if rng.random() < 0.7 else b"AA")
            for keys in keyed for row, key in zip(keys, (k for _, k in keys))]
    for wanted in (None, {qsl for qsl, _ in perf}, set()):
        reference = builder.result(wanted)
        assert reference == plain_reference(keyed, wanted)
        got = vt.verify_test01_keys(reference, perf, element_bytes=width)
        assert figures(got) == plain_verdict(reference, perf, width)
        assert figures(vt.verify_test01_keys(reference, iter(perf), element_bytes=width)) == figures(got)


def test_keys_of_a_text_output_are_compared_as_text():
    reference = vt.reference_keys([(1, ("text", "AB", b"x")), (2, b"AA")])
    perf = [(1, ("text", "AB", b"x")), (2, ("text", "AA", b"y")), (3, b"AA")]
    assert figures(vt.verify_test01_keys(reference, perf)) == plain_verdict(reference, perf)


def _logs() -> list[str]:
    found = sorted(glob.glob(os.path.join(REAL, "**", "accuracy", "mlperf_log_accuracy.json"), recursive=True))
    return found[::max(1, len(found) // 24)]  # (two dozen of them, results' and TEST01's)


@pytest.mark.parametrize("path", _logs() or [pytest.param(None, marks=pytest.mark.skip("real submission data not found (set MLPC_SHARED to the shared/ folder)"))])
def test_fast_paths_on_real_logs(path):
    blocks = [block for block in AccuracyLogReader(path).batches()]
    keyed = [vt.output_keys(block, 1) for block in blocks]
    assert keyed == [plain_output_keys(block, 1) for block in blocks]
    builder = vt.ReferenceKeysBuilder()
    for keys in keyed:
        builder.add(keys)
    perf = [pair for keys in keyed for pair in keys][::3] + [(10 ** 9, b"00")]
    reference = builder.result({qsl for qsl, _ in perf})
    assert reference == plain_reference(keyed, {qsl for qsl, _ in perf})
    assert figures(vt.verify_test01_keys(reference, perf)) == plain_verdict(reference, perf)
