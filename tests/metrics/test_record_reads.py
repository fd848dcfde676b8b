"""The record checks read a detail log's keys at once (``DetailLog.get_many``) and match a summary's labels once per
label set (``log_digest._program``): the same values, problems and disagreements as reading key by key."""

import glob
import math
import os

import pytest

from checker.loaders import loadgen_log
from checker.loaders.loadgen_log import parse_detail_bytes, parse_detail_log, parse_detail_text, parse_summary_log
from checker.metrics import log_digest, run_record
from checker.metrics.log_digest import _same, disagreements
from checker.metrics.run_record import _CHAINS, _g, _num, Contradiction
from tests.conftest import REAL

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "fixtures")


def _pairs():
    paths = glob.glob(os.path.join(FIXTURES, "**", "mlperf_log_summary.txt"), recursive=True)
    paths += glob.glob(os.path.join(REAL, "*", "**", "mlperf_log_summary.txt"), recursive=True)
    for path in sorted(paths)[::7]:  # (a spread of LoadGen releases and scenarios, not every file)
        detail = os.path.join(os.path.dirname(path), "mlperf_log_detail.txt")
        if os.path.isfile(detail):
            yield path, detail


class Plain:
    """A log read key by key only (no get_many)."""

    def __init__(self, log):
        self.log = log

    def get(self, key, default=None):
        return self.log.get(key, default)

    def __contains__(self, key):
        return key in self.log


def _reference_disagreements(summary, detail):
    """The label-by-label reading the program replaces."""
    out = []
    multi = str(detail.get("effective_scenario") or "").replace(" ", "") == "MultiStream"
    for label, text in summary.items():
        plan = log_digest._plan(label)
        if plan is None:
            continue
        key, per_query = plan
        if multi and per_query is not None:
            first = detail.get(per_query)
            values = [v for v in (first, detail.get(key)) if v is not None]
            shown = per_query if first is not None else key
            if not values or any(_same(text, v) for v in values):
                continue
        elif key == "early_stopping_latency_ms" and not multi:
            continue
        else:
            value = detail.get(key)
            if value is None or _same(text, value):
                continue
            values, shown = [value], key
        out.append(log_digest.Disagreement(label, shown, text, values[0]))
    return out


def _edits(summary):
    yield summary
    for label in list(summary)[::3]:
        for text in ("1", "Yes", "nan", "-inf", summary[label] + "0", " " + summary[label]):
            yield {**summary, label: text}


def _fresh(path):
    with open(path, "rb") as handle:
        return parse_detail_bytes(handle.read(), path)


@pytest.mark.parametrize("compiled", [True, False])
def test_get_many_reads_what_get_reads(compiled, monkeypatch):
    if not compiled:
        monkeypatch.setattr(loadgen_log, "_VALUES", None)
    count = 0
    for _, path in _pairs():
        one = _fresh(path)
        keys = list(one.raw)[::2] + ["no_such_key", "effective_scenario"]
        for before in ([], keys[:1], ["loaded_qsl_set"]):  # (the first read by get, or by get_many)
            other = _fresh(path)
            assert [other.get(key) for key in before] == [one.get(key) for key in before]
            assert other.get_many(keys) == [one.get(key) for key in keys]
            assert other.get_many(keys[::-1]) == [one.get(key) for key in keys[::-1]]
            assert other.get_many(list(one.raw)) == [one.get(key) for key in one.raw]
            assert other.problems == one.problems
        count += 1
    assert count


def test_get_many_reports_broken_values_as_get_does():
    text = "\n".join([
        ':::MLLOG {"key": "a", "value": 1, "time_ms": 1, "namespace": "", "event_type": "POINT_IN_TIME", '
        '"metadata": {"is_error": false, "is_warning": false, "file": "f", "line_no": 1, "pid": 1, "tid": 1}}',
        ':::MLLOG {"key": "b", "value": [1, 2, "time_ms": 1, "namespace": "", "event_type": "POINT_IN_TIME", '
        '"metadata": {"is_error": false, "is_warning": false, "file": "f", "line_no": 1, "pid": 1, "tid": 1}}',
        ':::MLLOG {"key": "c", "value": "x\\u00e9", "time_ms": 1, "namespace": "", "event_type": "POINT_IN_TIME", '
        '"metadata": {"is_error": false, "is_warning": false, "file": "f", "line_no": 1, "pid": 1, "tid": 1}}',
    ])
    one, other = parse_detail_text(text), parse_detail_text(text)
    keys = ["c", "b", "zz", "a", "b"]
    assert other.get_many(keys) == [one.get(key) for key in keys] == ["x\u00e9", None, None, 1, None]
    assert other.problems == one.problems and one.problems


def test_disagreements_match_the_label_by_label_reading():
    count = 0
    for summary_path, detail_path in _pairs():
        summary, detail = parse_summary_log(summary_path), parse_detail_log(detail_path)
        for edited in _edits(summary):
            expected = _reference_disagreements(edited, Plain(detail))
            assert disagreements(edited, detail) == expected, (summary_path, edited)
            assert disagreements(edited, Plain(detail)) == expected
            count += 1
    assert count > 100


def test_disagreements_of_multistream_and_odd_values():
    for scenario in ("MultiStream", "Offline"):
        detail = {"effective_scenario": scenario, "result_min_latency_ns": 100, "result_min_query_latency_ns": 900,
                  "result_samples_per_second": float("nan"), "result_max_latency_ns": math.inf,
                  "early_stopping_latency_ms": 5, "result_validity": "VALID", "result_min_duration_met": True}
        log = Plain(detail)
        for summary in ({"Min latency (ns)": "900", "Samples per second": "nan", "Max latency (ns)": "inf",
                         "Early stopping 99th percentile estimate": "5", "Result is": "VALID",
                         "Min duration satisfied": "True"},
                        {"Min latency (ns)": "100", "Samples per second": "1", "Max latency (ns)": "-inf",
                         "Early stopping 99.0th percentile estimate": "6", "Result is": "INVALID",
                         "Min duration satisfied": "No", "Mean latency (ns)": "1"}):
            assert disagreements(summary, log) == _reference_disagreements(summary, log)



_ODD_VALUES = [0, 7, -3, 10 ** 25, 1.5, -0.0, 2.0, 1e300, 1e-7, float("nan"), math.inf, -math.inf, True, False, "VALID",
               "Multi Stream", "yes", "", None, [1, 2], {"a": 1}]


@pytest.mark.parametrize("scenario", ["MultiStream", "Offline", "SingleStream"])
def test_a_text_written_as_str_of_its_value_is_compared_as_before(scenario):
    """The fields whose text is str() of the value are left out before the comparisons: the same disagreements as
    comparing every field, for values of every kind (non-finite floats, whose str() is no number to them,
    included) and texts near them."""
    labels = ["Samples per second", "Min latency (ns)", "Result is", "Min duration satisfied", "min_query_count",
              "Early stopping 99th percentile estimate", "Mean latency (ns)"]
    keys = [log_digest._plan(label) for label in labels]
    count = 0
    for value in _ODD_VALUES:
        texts = {str(value), repr(value), str(value).upper(), f" {value}", "Yes", "No", "nan", "1", "-inf"}
        for text in texts:
            for other in (value, 900, None):
                detail = {"effective_scenario": scenario}
                for key, per_query in keys:
                    detail[key] = value
                    if per_query is not None:
                        detail[per_query] = other
                log = Plain(detail)
                for summary in ({label: text for label in labels}, {labels[0]: text, labels[1]: str(other)},
                                {labels[2]: "VALID", labels[3]: text, labels[6]: "nan" if text != "nan" else "1"}):
                    assert disagreements(summary, log) == _reference_disagreements(summary, log), (value, text, summary)
                    count += 1
    assert count > 1000

def _reference_order(log):
    out = []
    for label, keys, mean_key in _CHAINS:
        chain = [(key, _num(log, key)) for key in keys if _num(log, key) is not None]
        for (k1, v1), (k2, v2) in zip(chain, chain[1:]):
            if v2 < v1:
                out.append(Contradiction(k2, f"{label}s out of order: {k2} {_g(v2)} is below {k1} {_g(v1)}",
                                         f">= {_g(v1)} ({k1})", _g(v2)))
        mean = _num(log, mean_key)
        if mean is None or len(chain) < 2 or chain[0][0] != keys[0] or chain[-1][0] != keys[-1]:
            continue
        low, high = chain[0][1], chain[-1][1]
        if not low <= mean <= high:
            out.append(Contradiction(mean_key, f"mean {label} {_g(mean)} lies outside {_g(low)}-{_g(high)}",
                                     f"{_g(low)}-{_g(high)}", _g(mean)))
    return out


@pytest.mark.parametrize("edit", [{}, {"result_min_latency_ns": 10 ** 15}, {"result_mean_latency_ns": -1},
                                  {"result_max_latency_ns": True}, {"result_90.00_percentile_latency_ns": "1"},
                                  {"result_min_query_latency_ns": 5, "result_max_query_latency_ns": 4},
                                  {"result_first_token_mean_latency_ns": 1.5},
                                  {"result_50.00_percentile_latency_ns": float("nan")},
                                  {"result_max_latency_ns": float("inf"), "result_mean_latency_ns": float("inf")},
                                  {"result_99.90_percentile_latency_ns": None, "result_mean_latency_ns": 0},
                                  {"result_min_latency_ns": None}, {"result_mean_latency_ns": 10 ** 14},
                                  {f"result_first_token_{p}_percentile_latency_ns": 7 for p in run_record.PERCENTILES}])
def test_order_matches_the_key_by_key_reading(edit):
    count = 0
    for _, path in _pairs():
        log = parse_detail_log(path)
        edited = {**{key: log.get(key) for key in log.raw}, **edit}
        assert run_record._order(log) == _reference_order(Plain(log))
        assert run_record._order(Plain(edited)) == _reference_order(Plain(edited))
        count += 1
    assert count


@pytest.mark.skipif(loadgen_log._LOOKUP is None or log_digest._AGREE is None,
                    reason="the C extension checker._detail_scan is not built here")
def test_lookup_and_agree_in_c():
    lookup, agree = loadgen_log._LOOKUP, log_digest._AGREE
    cache = {"a": 1, "b": None, "c": [2]}
    assert lookup(cache, ("a", "b", "c", "z"), set()) == [1, None, [2], None]
    assert lookup(cache, ["a", "z"], {"y"}) == [1, None] and lookup(cache, ("a", "y"), {"y"}) is None
    with pytest.raises(TypeError):
        lookup(cache, (["unhashable"],), set())
    values = [None, 7, -12, 2 ** 63, 2 ** 64, True, False, "VALID", "x", 1.5, (None, None), (5, 900), (None, 3),
              (4, None), [1], 0, -2 ** 63, 2 ** 64 - 1, -2 ** 63 - 1, 1, True]
    texts = ("9", "7", "-12", str(2 ** 63), str(2 ** 64), "Yes", "No", "VALID", "X", "1.5", "1", "900", "3", "5",
             "[1]", "-0", str(-2 ** 63), str(2 ** 64 - 1), str(-2 ** 63 - 1), "True", "1")
    # plainly: None; str() of an int; Yes/No of a bool; an equal str; a pair of None or with either one plainly so
    # (ints past 64 bits, floats and the rest: in Python)
    assert agree(texts, values) == [4, 8, 9, 13, 14, 15, 18, 19, 20]
    with pytest.raises(ValueError):
        agree(("a",), [])
