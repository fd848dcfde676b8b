"""`mlpc audit run` records in verdict.json the output folder and the time it prints."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from checker.cli import app

from .helpers import needs_loadgen

pytestmark = needs_loadgen


def test_verdict_json_has_the_printed_out_and_seconds(tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["audit", "run", "TEST04", "--sut", "fixtures.suts.honest:make_sut",
                                      "--model", "resnet50", "--scenario", "Offline", "--round", "v6.1",
                                      "--min-duration-ms", "100", "--out", str(out)])
    assert result.exit_code in (0, 1), result.output  # a timing test may fail on a busy machine; not the point
    printed = re.search(r"\(([0-9.]+) s\)\s+-> (\S+)", result.stdout)
    assert printed, result.stdout
    with open(out / "verdict.json", encoding="utf-8") as handle:
        verdict = json.load(handle)
    assert verdict["out"] == printed.group(2) == str(out.resolve())
    assert isinstance(verdict["seconds"], float) and verdict["seconds"] > 0
    assert f"{verdict['seconds']:.2f}" == printed.group(1)
