"""Each stage of a check reads what it needs once: the load stage opens each file of the tree at most
once (an accuracy log too: one read gives its hash, its entries and the compliance tests' reference
outputs), the summary stage opens none, and the check stage opens only what is listed below (with why).
Measured by recording every open of a file inside the tree, with the stage it happened in, during a
serial check without the cache."""

from __future__ import annotations

import builtins
import io
import os
import traceback
from collections import Counter

import pytest

from checker.loaders.rules import load_rules
from checker.pipeline import check_tree
from tests.conftest import BASE_TREE, real_tree

CHECKER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "checker")

# What is still read outside the load stage (to be moved into it): an inferred result's folder is
# compared byte by byte with its source scenario's, every file of both (checks/performance.py through
# loaders/tree_writer.compare_folders, v6.0 layout). The compliance folders are read by the load stage
# (loaders/compliance_folder.py) and verified from that record.
CHECK_STAGE_READERS = {("check", "loaders/tree_writer.py")}
STAGES = (("summary.py", "summarise", "summary"), ("engine.py", "_run_step", "check"),
          ("loaders/tree.py", "load_submitter", "load"), ("loaders/tree.py", "load_top", "load"))


def _stage_and_reader(stack) -> tuple[str, str]:
    """The stage an open happened in (the outermost stage function on the stack) and the checker module
    that read the file (the innermost checker frame)."""
    frames = [(os.path.relpath(f.filename, CHECKER), f.name) for f in stack if f.filename.startswith(CHECKER)]
    stage = next((name for module, func in frames for m, f, name in STAGES if module == m and func == f), "other")
    return stage, frames[-1][0] if frames else "?"


def _record_opens(monkeypatch, root: str) -> list[tuple[str, str, str]]:
    """(path relative to the tree, stage, reader) for every open of a file below ``root``."""
    real_root = os.path.realpath(root)
    seen: list[tuple[str, str, str]] = []

    def note(path) -> None:
        if isinstance(path, int):
            return
        real = os.path.realpath(os.fsdecode(path))
        if real.startswith(real_root + os.sep) and os.path.isfile(real):
            stage, reader = _stage_and_reader(traceback.extract_stack()[:-2])
            seen.append((os.path.relpath(real, real_root), stage, reader))

    def wrap(original):
        def opened(file, *args, **kwargs):
            note(file)
            return original(file, *args, **kwargs)
        return opened

    monkeypatch.setattr(builtins, "open", wrap(builtins.open))
    monkeypatch.setattr(io, "open", wrap(io.open))
    monkeypatch.setattr(os, "open", wrap(os.open))
    return seen


def _check_reads(monkeypatch, root: str, round_name: str) -> list[tuple[str, str, str]]:
    rules = load_rules(round_name)
    seen = _record_opens(monkeypatch, root)
    report = check_tree(root, rules, jobs=1)
    monkeypatch.undo()
    assert report.results, "nothing was checked"
    return seen


def _assert_read_once(seen) -> None:
    load = Counter(path for path, stage, _ in seen if stage == "load")
    assert load, "the load stage opened nothing: the recorder is broken"
    assert [p for p, n in load.items() if n > 1] == [], "files the load stage opened more than once"
    assert [p for p, stage, _ in seen if stage == "summary"] == [], "the summary stage opened files"
    elsewhere = [(path, stage, reader) for path, stage, reader in seen if stage != "load"]
    assert {(stage, reader) for _, stage, reader in elsewhere} <= CHECK_STAGE_READERS, \
        "files opened outside the load stage by something else than the readers listed above"


def test_the_fixture_tree_is_read_once_per_stage(monkeypatch):
    _assert_read_once(_check_reads(monkeypatch, BASE_TREE, "v4.1"))


@pytest.mark.parametrize("name,round_name", [("v4.1", "v4.1"), ("v6.0", "v6.0")])
def test_a_real_round_is_read_once_per_stage(monkeypatch, name, round_name):
    _assert_read_once(_check_reads(monkeypatch, real_tree(name), round_name))


def test_a_second_read_in_the_load_stage_is_caught(monkeypatch, tmp_path):
    """The recorder sees a loader that opens a file twice (so the tests above can fail)."""
    import checker.loaders.tree as tree

    original = tree.parse_log

    def twice(box, rel):
        original(box, rel)
        return original(box, rel)

    monkeypatch.setattr(tree, "parse_log", twice)
    seen = _check_reads(monkeypatch, BASE_TREE, "v4.1")
    with pytest.raises(AssertionError, match="more than once"):
        _assert_read_once(seen)


def test_an_accuracy_log_read_twice_in_the_load_stage_is_caught(monkeypatch):
    """An untruncated accuracy log hashed in one read and parsed in another (as the load stage did before it
    read the log once for both) is caught."""
    import checker.loaders.result_accuracy_log as result_log

    original = result_log.parse_accuracy_json_entries

    def from_disk(path, *args, source=None, **kwargs):
        return original(path, *args, **kwargs)

    monkeypatch.setattr(result_log, "parse_accuracy_json_entries", from_disk)
    seen = _check_reads(monkeypatch, BASE_TREE, "v4.1")  # (its accuracy logs are whole and small: both read)
    assert any(path.endswith("mlperf_log_accuracy.json") for path, stage, _ in seen if stage == "load")
    with pytest.raises(AssertionError, match="more than once"):
        _assert_read_once(seen)


def test_a_compliance_folder_read_by_a_check_is_caught(monkeypatch):
    """A check that reads a compliance folder itself (as the verification did before the load stage read it)
    is caught."""
    import checker.checks.compliance as checks
    from checker.audit.compliance import verify_compliance
    from checker.loaders.compliance_folder import read_compliance

    def from_disk(record, *args, **kwargs):
        return verify_compliance(read_compliance(record.path, record.result_path, args[2], args[0], args[1]),
                                 *args, **kwargs)

    monkeypatch.setattr(checks, "verify_compliance", from_disk)
    seen = _check_reads(monkeypatch, real_tree("v4.1"), "v4.1")  # (the fixture tree has no compliance folder)
    with pytest.raises(AssertionError, match="outside the load stage"):
        _assert_read_once(seen)
