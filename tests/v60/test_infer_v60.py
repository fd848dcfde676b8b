"""`mlpc infer` on the folded v6.0 layout: the inferred folders are copies of the whole scenario folder
(measurements.json, user.conf and TEST0x/ included), and `mlpc check` accepts them."""

import os
import shutil

from typer.testing import CliRunner

from checker.cli import app
from tests.v60.helpers import check, copy_submitter


def test_infer_writes_v60_inferred_results_that_check(tmp_path):
    src = copy_submitter(tmp_path, "closed/Lenovo")
    model = os.path.join(src, "closed", "Lenovo", "results", "SE100", "resnet50")
    for name in ("multistream", "offline"):  # the published inferred folders, made again from SingleStream
        shutil.rmtree(os.path.join(model, name))
    out = str(tmp_path / "out")
    result = CliRunner().invoke(app, ["infer", src, "--out", out, "--quiet"])
    assert result.exit_code == 0, result.output
    made = os.path.join(out, "closed", "Lenovo", "results", "SE100", "resnet50")
    assert sorted(n.lower() for n in os.listdir(made)) == ["multistream", "offline", "singlestream"]
    for name in os.listdir(made):
        assert os.path.isfile(os.path.join(made, name, "measurements.json"))
        assert os.path.isdir(os.path.join(made, name, "TEST01"))
    assert not os.path.exists(os.path.join(out, "closed", "Lenovo", "measurements"))
    report = check(out)
    se100 = {r.scenario: r for r in report.results if "/SE100/" in r.id}
    assert {s: (r.valid, r.inferred) for s, r in se100.items()} == {
        "SingleStream": (True, False), "MultiStream": (True, True), "Offline": (True, True)}
