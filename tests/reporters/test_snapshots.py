"""Snapshot tests (syrupy) of every output format on fixtures/example_submission and, when present,
the real v4.1 tree. One plain file per snapshot under __snapshots__/test_snapshots/, so a change
shows as a readable diff. After a deliberate change of a check or a reporter, review the diff and
refresh with `python -m pytest tests/reporters/test_snapshots.py --snapshot-update`.

Outputs must be deterministic: the absolute root and the wall time (shown only by the text report)
are fixed by `stable()`; nothing else may depend on the machine or the clock.
"""

from __future__ import annotations

import json
import re

import pytest
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from checker.reporters import csv_summary, html, json_report, junit, markdown, sarif, text
from tests.reporters.conftest import stable

FORMATS = ("text", "json", "csv", "markdown", "sarif", "junit", "html")
SUFFIX = {"text": "txt", "json": "json", "csv": "csv", "markdown": "md", "sarif": "sarif.json", "junit": "xml",
          "html": "html"}


def _extension(suffix: str):
    class Snapshot(SingleFileSnapshotExtension):
        _write_mode = WriteMode.TEXT
        file_extension = suffix  # syrupy >= 5
        _file_extension = suffix  # syrupy 4

    return Snapshot


def html_structure(page: str) -> str:
    """The page with its data island pretty-printed separately (the island is one long line)."""
    match = re.search(r'(<script type="application/json" id="mlpc-data">)(.*?)(</script>)', page, re.S)
    data = json.loads(match.group(2))
    skeleton = page[:match.start(2)] + "...data island below..." + page[match.end(2):]
    return skeleton + "\n<!-- data island -->\n" + json.dumps(data, indent=1, sort_keys=True) + "\n"


def render(report, fmt: str, rules) -> str:
    report = stable(report)
    if fmt == "text":
        return text.render(report, show_info=True)
    if fmt == "json":
        return json_report.render(report)
    if fmt == "csv":
        return csv_summary.render(report, rules.summary_columns)
    if fmt == "markdown":
        return markdown.render(report, show_info=True)
    if fmt == "sarif":  # only the codes that fired: adding a check elsewhere must not change this file
        return sarif.render(report, rules.severities, all_rules=False)
    if fmt == "junit":
        return junit.render(report)
    return html_structure(html.render(report))


@pytest.mark.parametrize("fmt", FORMATS)
def test_example_submission(fmt, example_report, rules41, snapshot):
    output = render(example_report, fmt, rules41)
    assert "/work/" not in output and "fixtures/example_submission" not in output
    assert output == snapshot(extension_class=_extension(SUFFIX[fmt]))


def without_assets(page: str) -> str:
    """The page without its CSS and script (the example snapshot keeps them once)."""
    page = re.sub(r"<style>.*?</style>", "<style>...</style>", page, flags=re.S)
    return re.sub(r"<script>.*?</script>", "<script>...</script>", page, flags=re.S)


@pytest.mark.parametrize("fmt", FORMATS)
def test_real_v41(fmt, real41, rules41, snapshot):
    output = render(real41, fmt, rules41)
    if fmt == "html":
        output = without_assets(output)
    assert "real_submissions" not in output
    assert output == snapshot(extension_class=_extension(SUFFIX[fmt]))


def test_outputs_are_deterministic(example_report, rules41):
    for fmt in FORMATS:
        assert render(example_report, fmt, rules41) == render(example_report, fmt, rules41)


def test_real_v41_round_verdict(real41, snapshot):
    """The one-screen verdict that a whole round gets in the text format (forced here on 46 results)."""
    output = text.render(stable(real41), details=False)
    assert output == snapshot(extension_class=_extension("txt"))
