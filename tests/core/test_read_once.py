"""Each file of the tree is read once, by the load stage: it opens each file at most once (an accuracy log
too: one read gives its hash, its entries and the compliance tests' reference outputs; an inferred result's
folder is compared with its source's from the digests taken as the files are read), and no other stage
opens a file (issue #17). Measured by recording every open of a file inside the tree, with the stage it
happened in, during a serial check without the cache."""

from __future__ import annotations

import builtins
import io
import os
import shutil
import traceback
from collections import Counter

import pytest

from checker.loaders.rules import load_rules
from checker.pipeline import check_tree
from tests.conftest import BASE_TREE, real_tree

CHECKER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "checker")

# What is read outside the load stage: nothing. The compliance folders are read by the load stage
# (loaders/compliance_folder.py) and verified from that record; an inferred result's folder is compared with
# its source scenario's by the load stage too (loaders/inferred_copy.py), and PF020 reads the outcome.
CHECK_STAGE_READERS: set[tuple[str, str]] = set()
STAGES = (("summary.py", "summarise", "summary"), ("engine.py", "_run_step", "check"),
          ("engine.py", "_run_steps", "check"), ("engine.py", "_run_context", "check"),
          ("loaders/tree.py", "load_submitter", "load"),
          ("loaders/tree.py", "load_top", "load"))


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
        "files opened outside the load stage"


def test_the_fixture_tree_is_read_once_per_stage(monkeypatch):
    _assert_read_once(_check_reads(monkeypatch, BASE_TREE, "v4.1"))


@pytest.mark.parametrize("name,round_name", [("v4.1", "v4.1"), ("v5.1", "v5.1"), ("v6.0", "v6.0"), ("v6.1", "v6.1")])
def test_a_real_round_is_read_once_per_stage(monkeypatch, name, round_name):
    _assert_read_once(_check_reads(monkeypatch, real_tree(name), round_name))


def test_an_edited_inferred_copy_is_compared_from_the_load_stage_reads(monkeypatch, base_tree):
    """PF020's comparison of an inferred result's folder with its source's opens no file the loader reads
    anyway a second time (it uses their digests) and, outside the load stage, none at all."""
    results = os.path.join(base_tree, "closed/Acme/results/edge_sys/gptj-99")
    shutil.rmtree(os.path.join(results, "Offline"))
    shutil.copytree(os.path.join(results, "SingleStream"), os.path.join(results, "offline"))
    measurements = os.path.join(base_tree, "closed/Acme/measurements/edge_sys/gptj-99")
    os.rename(os.path.join(measurements, "Offline"), os.path.join(measurements, "offline"))
    with open(os.path.join(results, "offline/accuracy/accuracy.txt"), "a") as handle:  # read by the loader
        handle.write("\n")
    for folder, text in (("offline", "a"), ("SingleStream", "b")):  # read by the comparison only
        with open(os.path.join(results, folder, "NOTES.md"), "w") as handle:
            handle.write(text)
    seen = _record_opens(monkeypatch, base_tree)
    report = check_tree(base_tree, load_rules("v4.1"), jobs=1)
    monkeypatch.undo()
    [item] = [f for f in report.findings if f.code == "PF020"]
    assert item.actual == "differ: NOTES.md, accuracy/accuracy.txt"
    _assert_read_once(seen)


def test_a_second_read_in_the_load_stage_is_caught(monkeypatch, tmp_path):
    """The recorder sees a loader that opens a file twice (so the tests above can fail)."""
    import checker.loaders.tree as tree

    original = tree.parse_log

    def twice(box, rel, *args):
        original(box, rel)
        return original(box, rel, *args)

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
