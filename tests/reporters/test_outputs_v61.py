"""The outputs of round v6.1 on the real subset (13 endpoint results, 2 LoadGen results): `mlpc report` writes
summary.csv with the 31 v6.1 columns and summary_results.json in the published v6.1 form, which reproduces
v6.1-expected/published_rows.json field by field: bare-number Accuracy, tokens/s for the LLMs and the mean
latency for SingleStream on endpoint rows, inferred = 1 for every endpoint row, the published model names
(VLM, text_to_video, agentic edge, ...), and numbers as the published table's reader and writer make them.

By default the table lists the results mlpc accepts (11); `--table-all-results` lists every result with a
value, and then all 15 published rows are reproduced except what the copy lacks (the Dell measurements.json,
hence its weight_data_types) and the error count of the 4 rows mlpc rejects (published: 0)."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest

from checker.commands.report import bundle, summary_extras
from checker.pipeline import check_tree
from checker.loaders.detect import rules_for
from tests.conftest import real_tree
from tests.endpoint.test_real_v61 import DELL, HPE, QNA

PERF_RUN = "/performance/run_1"
REJECTED = {f"{DELL}/Offline", f"{DELL}/SingleStream", HPE, QNA}  # see tests/endpoint/test_real_v61.py
MISSING_MEASUREMENTS = {f"{DELL}/Offline", f"{DELL}/SingleStream"}  # modifications.json: not in the copy


@pytest.fixture(scope="module")
def v61_outputs():
    root = real_tree("v6.1")
    expected = os.path.join(os.path.dirname(root), "v6.1-expected", "published_rows.json")
    if not os.path.isfile(expected):
        pytest.skip(f"the published v6.1 rows are not at {expected}")
    with open(expected, encoding="utf-8") as handle:
        published = json.load(handle)
    rules, reason = rules_for(root)
    report = check_tree(root, rules, reason)
    extras = summary_extras(report, rules, root, private_ids=False)
    return published, report, rules, bundle(report, rules, extras=extras), \
        bundle(report, rules, extras=extras, table_all_results=True)


def _table(files) -> dict[str, dict]:
    return {row["Location"].removeprefix("./").removesuffix(PERF_RUN): row
            for row in json.loads(files["summary_results.json"]).values()}


def _differences(ours: dict, published: dict) -> set[tuple[str, str]]:
    out = set()
    for rid, row in ours.items():
        assert list(row) == list(published[rid]), rid  # the 31 fields, in the published order
        for field, value in published[rid].items():
            if row[field] != value or type(row[field]) is not type(value):
                out.add((rid, field))
    return out


def test_accepted_rows_equal_the_published_ones(v61_outputs):
    published, report, rules, files, _ = v61_outputs
    assert report.round == "v6.1" and len(rules.summary_columns) == 31
    ours = _table(files)
    assert set(ours) == set(published) - REJECTED and len(ours) == 11
    assert _differences(ours, published) == set()


def test_every_published_row_is_reproduced_with_all_results(v61_outputs):
    published, _, _, _, files = v61_outputs
    ours = _table(files)
    assert set(ours) == set(published)
    assert _differences(ours, published) == (
        {(rid, "errors") for rid in REJECTED} | {(rid, "weight_data_types") for rid in MISSING_MEASUREMENTS})
    assert all(ours[rid]["errors"] > 0 for rid in REJECTED)


def test_endpoint_row_conventions(v61_outputs):
    published, report, _, files, _ = v61_outputs
    ours = _table(files)
    endpoint = {r.id for r in report.results if r.endpoint}
    assert len(endpoint) == 13 and {r.id for r in report.results} - endpoint == {QNA, QNA.replace("qna", "db")}
    for rid in endpoint & set(ours):
        row = ours[rid]
        float(row["Accuracy"])  # a bare number
        assert row["inferred"] == 1
    assert ours[QNA.replace("qna", "db")]["Accuracy"] == "E2E_ACCURACY: 98.1952"
    assert ours[QNA.replace("qna", "db")]["inferred"] == 0
    deepseek = f"closed/NVIDIA/results/VR200-NVL72_GR200-288GB_aarch64x72_TRT/deepseek-r1/Server"
    # the file holds 1175890.2208168241; the published table's CSV reader makes it 1175890.220816824
    assert ours[deepseek]["Result"] == 1175890.220816824 and ours[deepseek]["Units"] == "Tokens/s"
    names = {row["MlperfModel"] for row in ours.values()}
    assert {"VLM", "agentic edge", "end to end vector-database", "deepseek-r1"} <= names


def test_summary_csv_has_the_v61_columns(v61_outputs):
    _, _, rules, files, _ = v61_outputs
    text = files["summary.csv"]
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    assert list(rows[0])[:31] == rules.summary_columns
    assert {row["design_power_watts"] for row in rows} == {"None"} and {row["PrivateID"] for row in rows} == {""}
    atlas = next(row for row in rows if row["Platform"] == "DGX_Spark_GB10")
    assert atlas["Accuracy"] == "0.8723618090452261" and atlas["inferred"] == "1"
    assert atlas["Location"].endswith("/SingleStream/performance/run_1") and atlas["compliance"] == "closed"


def test_private_ids_fill_the_column_and_nothing_is_written(v61_outputs):
    published, report, rules, _, _ = v61_outputs
    root = real_tree("v6.1")
    before = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)
    files = bundle(report, rules, extras=summary_extras(report, rules, root, private_ids=True))
    ids = {row["Platform"]: row["PrivateID"] for row in _table(files).values()}
    assert all(value and value.count("-") == 2 for value in ids.values())
    assert len(set(ids.values())) == len(ids)
    assert sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs) == before


def test_rows_listed_despite_findings_are_named_with_their_codes(v61_outputs):
    """--table-all-results reproduces the rows mlpc rejects, and a note says which and why (HPE: the seeds
    its run recorded; published with errors 0); the default table lists none, so it has no note."""
    _, _, _, files, all_files = v61_outputs
    assert "summary_results_notes.md" not in files
    note = all_files["summary_results_notes.md"]
    listed = {line.split("`")[1]: set(line.split(": ")[-1].split(", "))
              for line in note.splitlines() if line.startswith("- `")}
    assert set(listed) == REJECTED
    assert {"EP007", "EP008"} <= listed[HPE]
    assert "MS003" in listed[f"{DELL}/Offline"] and "AC005" in listed[QNA]
    assert "mlpc explain" in note
    assert set(_table(all_files)) >= REJECTED


def test_explain_of_the_hpe_seed_codes_says_the_row_was_published():
    from typer.testing import CliRunner

    from checker.cli import app
    for code in ("EP007", "EP008"):
        text = CliRunner().invoke(app, ["explain", code]).output
        assert "HPE" in text and "published" in text and "summary_results_notes.md" in text, code
