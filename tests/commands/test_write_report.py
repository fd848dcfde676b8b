"""--output: replaced atomically when it is a regular file, written in place otherwise, and a clear
usage error (never a traceback) when it cannot be written."""

import os
import stat

import pytest
from typer.testing import CliRunner

from checker.cli import app
from checker.commands.report_output import write_report
from checker.diagnostics import MlpcError
from tests.conftest import REPO

EXAMPLE = os.path.join(REPO, "fixtures", "checks", "_base")


def test_a_regular_file_is_replaced_whole_with_the_usual_mode(tmp_path):
    path = tmp_path / "report.json"
    path.write_text("old and longer than the new text")
    inode = path.stat().st_ino
    write_report(str(path), "new")
    assert path.read_text() == "new"
    assert path.stat().st_ino != inode  # a new file renamed into place
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask
    assert sorted(os.listdir(tmp_path)) == ["report.json"]  # no temporary file left


def test_a_link_and_a_device_are_written_in_place(tmp_path):
    target = tmp_path / "target.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_report(str(link), "new")
    assert link.is_symlink() and target.read_text() == "new"
    write_report(os.devnull, "anything")
    assert os.path.exists(os.devnull) and not os.path.isfile(os.devnull)


def test_an_unwritable_place_is_a_clear_error(tmp_path):
    with pytest.raises(MlpcError, match="cannot write"):
        write_report(str(tmp_path / "absent" / "report.json"), "x")


def test_the_cli_reports_an_unwritable_output_as_a_usage_error(tmp_path):
    result = CliRunner().invoke(app, ["check", EXAMPLE, "--round", "v4.1", "--no-cache",
                                      "--output", str(tmp_path / "absent" / "r.json")])
    assert result.exit_code == 2
    assert "cannot write" in result.output and "Traceback" not in result.output
