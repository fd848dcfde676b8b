"""Round detection reads the version and seeds of a sampled log from its head (``parse_detail_head``):
the values must be those of the whole log, and a log whose head lacks a key is read whole."""

from __future__ import annotations

import json
import os

from checker.loaders.detect import VOTE_KEYS, detect_round
from checker.loaders.loadgen_log import HEAD_BYTES, parse_detail_head, parse_detail_log
from tests.conftest import real_tree


def _line(key: str, value) -> str:
    return (':::MLLOG {"key": "%s", "value": %s, "time_ms": 1.0, "namespace": "mlperf::logging", '
            '"event_type": "POINT_IN_TIME", "metadata": {"is_error": false, "is_warning": false, '
            '"file": "a.cc", "line_no": 1, "pid": 1, "tid": 1}}\n' % (key, json.dumps(value)))


def _log(path, seeds_after_bytes: int, seed: int = 3133965575612453542) -> str:
    """A detail log with ``seeds_after_bytes`` of sample-set line before its seeds."""
    text = _line("loadgen_version", "6.0.10 @ 1a2b3c")
    text += _line("loaded_qsl_set", list(range(seeds_after_bytes // 7)))
    text += _line("effective_qsl_rng_seed", seed) + _line("effective_sample_index_rng_seed", 665484352860916858)
    text += _line("effective_schedule_rng_seed", 3622009729038561421)
    text += _line("effective_qsl_rng_seed", 1)  # a later duplicate does not win
    text += _line("loaded_qsl_set", list(range(HEAD_BYTES // 4)))  # the head never reaches the end
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_head_gives_the_values_of_the_whole_log(tmp_path):
    path = _log(tmp_path / "mlperf_log_detail.txt", 100)
    head, whole = parse_detail_head(path, VOTE_KEYS), parse_detail_log(path)
    assert head.lines_total < whole.lines_total  # it was read from the head
    assert [head.get(k) for k in VOTE_KEYS] == [whole.get(k) for k in VOTE_KEYS]
    assert head.get("effective_qsl_rng_seed") == 3133965575612453542


def test_a_log_whose_head_lacks_a_key_is_read_whole(tmp_path):
    path = _log(tmp_path / "mlperf_log_detail.txt", 2 * HEAD_BYTES, seed=7)
    log = parse_detail_head(path, VOTE_KEYS)
    assert log.lines_total == parse_detail_log(path).lines_total
    assert log.get("effective_qsl_rng_seed") == 7


def test_every_real_performance_log_gives_the_same_votes_from_its_head():
    for name in ("v4.1", "v5.1", "v6.0"):
        root = real_tree(name)
        count = 0
        for folder, _, files in os.walk(root):
            if "mlperf_log_detail.txt" in files and folder.endswith(os.path.join("performance", "run_1")):
                path = os.path.join(folder, "mlperf_log_detail.txt")
                assert [parse_detail_head(path, VOTE_KEYS).get(k) for k in VOTE_KEYS] == \
                    [parse_detail_log(path).get(k) for k in VOTE_KEYS], path
                count += 1
        assert count, f"no performance log under {root}"
        assert detect_round(root)[0] == name
