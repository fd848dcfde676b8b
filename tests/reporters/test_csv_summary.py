"""summary.csv: row-for-row parity with the official checker's file on the real trees, plus the
documented fixes (invalid rows with status, real compliance/errors, proper escaping)."""

from __future__ import annotations

import csv
import io
import os

from checker.reporters import csv_summary
from tests.conftest import REAL

V41_COLUMNS = 27


def _parse(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def _expected(name: str) -> tuple[list[str], list[dict[str, str]], str]:
    path = os.path.join(REAL, f"{name}-expected", "summary.csv")
    with open(path, newline="", encoding="utf-8") as handle:
        text = handle.read()
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    return list(rows[0].keys()), rows, text


def _key(columns):
    return lambda row: tuple(row[c] for c in columns)


def _parity(report, rules, name):
    columns, expected, raw = _expected(name)
    assert columns == rules.summary_columns
    ours = _parse(csv_summary.render(report, rules.summary_columns))
    valid = [row for row in ours if row["status"] == "valid"]
    assert sorted(map(_key(columns), valid)) == sorted(map(_key(columns), expected))
    # the official layout is byte-identical line for line (the official order is the walk order)
    official = csv_summary.render(report, rules.summary_columns, official=True).splitlines()
    assert official[0] == raw.splitlines()[0]
    assert sorted(official[1:]) == sorted(raw.splitlines()[1:])
    return ours


def test_v41_rows_equal_official(real41, rules41):
    ours = _parity(real41, rules41, "v4.1")
    assert len(rules41.summary_columns) == V41_COLUMNS
    invalid = [row for row in ours if row["status"] == "invalid"]
    # fix: the 4 rejected results are listed, with their error count and codes
    assert len(invalid) == sum(1 for r in real41.results if not r.valid) == 4
    assert all(int(row["errors"]) >= 1 and row["codes"] for row in invalid)
    power = [row for row in ours if row["Units"] in ("Watts", "millijoules")]
    assert len(power) == 5 and all(row["has_power"] == "True" for row in power)


def test_v51_rows_equal_official(real51):
    report, rules = real51
    ours = _parity(report, rules, "v5.1")
    assert rules.summary_columns[-1] == "weight_data_types" and len(rules.summary_columns) == V41_COLUMNS + 1
    assert sum(1 for row in ours if row["status"] == "invalid") == 2
    # v5.0+ accuracy format: every metric, double-space separated
    assert any(row["Accuracy"].startswith("ROUGE1: ") and "  ROUGE2: " in row["Accuracy"] for row in ours)
    closed = [row for row in ours if row["Division"] == "closed" and row["status"] == "valid"]
    assert closed and all(row["compliance_status"] == "passed" and row["compliance_tests"] for row in closed)


def test_escaping_and_extra_columns(synthetic):
    columns = ["Organization", "SystemName", "Result", "Accuracy", "framework", "notes", "compliance", "errors",
               "inferred", "has_power", "Units", "weight_data_types", "Location"]
    text = csv_summary.render(synthetic, columns)
    rows = _parse(text)
    assert list(rows[0]) == columns + list(csv_summary.EXTRA_COLUMNS)
    by = {(row["Location"], row["Units"]): row for row in rows}
    hostile = by[("closed/Acme/results/edge1/retinanet/Offline", "Samples/s")]
    assert hostile["SystemName"] == 'Box "A", rev 2\nnew line'
    assert hostile["framework"] == "TRT, CUDA" and hostile["notes"] == ""
    assert hostile["weight_data_types"] == "['int8', 'fp16']" and hostile["inferred"] == "1"
    bad = by[("closed/OtherCo/results/box/bert-99/Offline", "")]
    assert bad["status"] == "invalid" and bad["Result"] == "" and bad["errors"] == "2"
    assert bad["compliance"] == "0" and bad["compliance_status"] == "failed"
    assert bad["compliance_tests"] == "TEST01:failed TEST05:passed" and bad["codes"] == "CP005 PF001"
    power = by[("closed/Acme/results/edge1/resnet50/SingleStream", "millijoules")]
    assert power["Result"] == "12.5" and power["has_power"] == "True"
    assert by[("closed/Acme/results/edge1/resnet50/SingleStream", "Latency (ms)")]["Result"] == "0.25"
    assert by[("open/OtherCo/results/box/bert-99/Offline", "Samples/s")]["compliance_status"] == "n/a"
    assert by[("closed/Acme/results/edge1/resnet50/Offline", "Samples/s")]["notes"] == "hw. sw"
    assert by[("closed/Acme/results/edge1/resnet50/Offline", "Samples/s")]["waived"] == "1"
    # always-quoted columns keep the official quoting, escaped properly
    assert '"Box ""A"", rev 2\nnew line"' in text and ',"int8",' in text


def test_official_layout_drops_invalid_rows_and_extras(synthetic):
    columns = ["Organization", "Result", "Units", "Location"]
    rows = _parse(csv_summary.render(synthetic, columns, official=True))
    assert list(rows[0]) == columns
    assert {row["Location"] for row in rows} == {r.id for r in synthetic.results if r.valid}


def test_accuracy_format_follows_the_round_columns(synthetic):
    one = _parse(csv_summary.render(synthetic, ["Location", "Accuracy"]))
    assert one[0]["Accuracy"] == "76.1"
    many = _parse(csv_summary.render(synthetic, ["Location", "Accuracy", "weight_data_types"]))
    assert many[0]["Accuracy"] == "acc: 76.1"
