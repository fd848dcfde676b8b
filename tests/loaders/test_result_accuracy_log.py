"""A result's accuracy log is opened once in the load stage: its facts, the compliance tests that compare with
it and its digest come from one read."""

from __future__ import annotations

import builtins
import hashlib
import os
import shutil
import sys

from checker.loaders.accuracy_log import truncate_accuracy_log
from checker.loaders.audit_spec import load_round_spec
from checker.loaders.compliance_folder import load_compliance
from checker.loaders.fs import Sandbox
from checker.loaders.result_accuracy_log import ResultAccuracyLog
from tests.conftest import REPO

sys.path.insert(0, os.path.join(REPO, "fixtures"))
import make_compliance_fixtures as gen  # noqa: E402

LIMIT = 10240


def _log(entries: int) -> str:
    return gen.accuracy_log([(i % 97, bytes([i % 256]) * 16) for i in range(entries)])


def _opens(monkeypatch) -> list[str]:
    seen: list[str] = []
    original = builtins.open

    def counting(file, *args, **kwargs):
        seen.append(os.path.basename(os.fsdecode(file)) if not isinstance(file, int) else "")
        return original(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting)
    return seen


def _facts(root, name: str, limit: int = LIMIT) -> dict:
    with ResultAccuracyLog(Sandbox(str(root)), name, limit) as log:
        return log.facts()


def test_an_untruncated_log_is_hashed_and_counted_in_one_open(tmp_path, monkeypatch):
    text = _log(40)
    (tmp_path / "log.json").write_text(text)
    seen = _opens(monkeypatch)
    facts = _facts(tmp_path, "log.json", limit=1 << 20)
    assert seen == ["log.json"]
    assert facts == {"log_truncation_marker": False, "log_truncated_shape": False, "log_entries": 40,
                     "log_full_sha256": hashlib.sha256(text.encode()).hexdigest()}


def test_a_large_log_is_hashed_whole_and_not_parsed(tmp_path):
    text = _log(5000)
    (tmp_path / "log.json").write_text(text)
    facts = _facts(tmp_path, "log.json")
    assert facts["log_full_sha256"] == hashlib.sha256(text.encode()).hexdigest() and "log_entries" not in facts


def test_a_truncated_log_is_neither_hashed_nor_parsed(tmp_path):
    (tmp_path / "full.json").write_text(_log(2000))
    truncate_accuracy_log(tmp_path / "full.json", tmp_path / "log.json")
    assert _facts(tmp_path, "log.json") == {"log_truncation_marker": True, "log_truncated_shape": True}


def test_a_malformed_small_log_says_why_without_opening_it_again(tmp_path, monkeypatch):
    (tmp_path / "log.json").write_text('[{"seq_id": 0, "qsl_idx": 0, "data": "00"} {')
    seen = _opens(monkeypatch)
    facts = _facts(tmp_path, "log.json")
    assert seen == ["log.json"]
    assert facts["log_list_error"] == "expected ',' or ']' between entries, found '{' (near character 43)"


def test_an_unreadable_log_is_said_so(tmp_path):
    (tmp_path / "log.json").mkdir()
    box = Sandbox(str(tmp_path))
    box.is_file = lambda rel: True  # a log that is listed but cannot be opened
    box.size = lambda rel: 10
    with ResultAccuracyLog(box, "log.json", LIMIT) as log:
        assert log.facts()["log_read_error"].startswith("cannot read file: ")


def _dlrm_with_test01(tmp_path) -> tuple[str, str]:
    """The honest TEST08 fixture (a dlrm-v3 result) with a TEST01 folder next to it: two tests that compare
    their own logs with the result's."""
    res = gen.build("CP028", str(tmp_path / "tree"), honest=True)
    shutil.copytree(os.path.join(res, "TEST08"), os.path.join(res, "TEST01"))
    return str(tmp_path / "tree"), os.path.relpath(res, tmp_path / "tree")


def _record(root: str, rel: str, through_log: bool):
    box = Sandbox(root)
    spec = load_round_spec("v6.0")
    model, scenario = rel.split("/")[-2:]
    if not through_log:
        return load_compliance(box, rel, rel, spec, model, scenario)
    with ResultAccuracyLog(box, f"{rel}/accuracy/mlperf_log_accuracy.json", LIMIT) as log:
        record = load_compliance(box, rel, rel, spec, model, scenario, result_log=log.start)
        facts = log.facts()
    assert facts["log_full_sha256"]
    return record


def test_test01_and_test08_read_the_result_log_in_one_pass(tmp_path, monkeypatch):
    root, rel = _dlrm_with_test01(tmp_path)
    alone = {}
    for test in ("TEST01", "TEST08"):  # each test alone, the result's log opened by the compliance reader
        other = tmp_path / "aside"
        shutil.move(os.path.join(root, rel, "TEST08" if test == "TEST01" else "TEST01"), other)
        alone[test] = _record(root, rel, through_log=False).folders[test].logs
        shutil.move(other, os.path.join(root, rel, "TEST08" if test == "TEST01" else "TEST01"))
    assert alone["TEST08"]["accuracy"].value is not None and alone["TEST01"]["reference"].value.entries
    seen = _opens(monkeypatch)
    record = _record(root, rel, through_log=True)
    assert seen.count("mlperf_log_accuracy.json") == 3  # the result's, TEST01's, TEST08's: once each
    assert {test: record.folders[test].logs for test in alone} == alone
    assert record.result_log
