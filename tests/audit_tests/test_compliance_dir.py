"""verify_compliance_dir on constructed folders: bad input gives findings, never exceptions."""

from __future__ import annotations

from pathlib import Path

from checker.audit.compliance import CODES, verify_compliance_dir
from checker.loaders.loadgen_log import parse_summary_log
from checker.loaders.audit_spec import load_round_spec

from .helpers import codes, detail, summary, write

V41 = load_round_spec("v4.1")
SEEDS41 = (3066443479025735752, 10688027786191513374, 14962580496156340209)
TEST05_SEEDS = (16799458546791641818, 5453809927556429288, 5435552105434836064)
T04 = {"effective_performance_issue_unique": False, "effective_performance_issue_same": True,
       "effective_performance_issue_same_index": 3}


def make_tree(root: Path, test04_valid=True, test05_seeds=TEST05_SEEDS, acc_lines=None, perf_lines=None):
    res = root / "results" / "resnet50" / "Offline"
    comp = root / "compliance" / "resnet50" / "Offline"
    write(res / "performance/run_1/mlperf_log_summary.txt", summary("Offline", True, 1000))
    for test in ("TEST01", "TEST04", "TEST05"):
        t = comp / test
        valid = test04_valid if test == "TEST04" else True
        write(t / "performance/run_1/mlperf_log_summary.txt", summary("Offline", valid, 1010))
        seeds = test05_seeds if test == "TEST05" else SEEDS41
        extra = T04 if test == "TEST04" else ({"effective_accuracy_log_rng_seed": 720381539243781796} if test == "TEST01" else {})
        write(t / "performance/run_1/mlperf_log_detail.txt", detail(seeds, extra))
        write(t / "verify_performance.txt", "reference score = 1000\ntest score = 1010\nTEST PASS\n")
    acc_lines = acc_lines if acc_lines is not None else ['{ "seq_id" : 0, "qsl_idx" : 1, "data" : "AA" },',
                                                         '{ "seq_id" : 1, "qsl_idx" : 2, "data" : "BB" }']
    perf_lines = perf_lines if perf_lines is not None else ['{ "seq_id" : 5, "qsl_idx" : 2, "data" : "BB" }']
    write(res / "accuracy/mlperf_log_accuracy.json", "[\n" + "\n".join(acc_lines) + "\n]\n")
    write(comp / "TEST01/accuracy/mlperf_log_accuracy.json", "[\n" + "\n".join(perf_lines) + "\n]\n")
    write(comp / "TEST01/accuracy/accuracy.txt", "hash=00\n")
    write(comp / "TEST01/verify_accuracy.txt", "num_perf_log_entries = 1\nnum_perf_log_qsl_idx_match = 1\n"
          "num_perf_log_data_mismatch = 0\nTEST PASS\n")
    return str(comp), str(res)


def run(root, comp, res, spec=V41):
    return verify_compliance_dir(comp, res, "resnet50", "Offline", spec, str(root))


def test_clean_tree_has_no_findings(tmp_path):
    comp, res = make_tree(tmp_path)
    assert run(tmp_path, comp, res) == []


def test_codes_documented_in_docstring():
    import checker.audit.compliance as module

    for code, name in CODES.items():
        assert f"{code}   {name}" in module.__doc__


def test_missing_dir_and_test(tmp_path):
    comp, res = make_tree(tmp_path)
    assert codes(run(tmp_path, comp + "-nope", res)) == ["CP001"]
    import shutil

    shutil.rmtree(Path(comp) / "TEST05")
    assert codes(run(tmp_path, comp, res)) == ["CP002"]


def test_invalid_test04_run(tmp_path):
    comp, res = make_tree(tmp_path, test04_valid=False)
    found = run(tmp_path, comp, res)
    assert "CP007" in codes(found) and "CP021" in codes(found)  # verify file says PASS, logs say INVALID


def test_wrong_test05_seeds(tmp_path):
    comp, res = make_tree(tmp_path, test05_seeds=SEEDS41)
    found = run(tmp_path, comp, res)
    assert codes(found) == ["CP009"]
    assert all(dict(f.data)["official"] for f in found)


def test_missing_and_empty_logs(tmp_path):
    comp, res = make_tree(tmp_path)
    (Path(comp) / "TEST04/performance/run_1/mlperf_log_summary.txt").unlink()
    (Path(res) / "accuracy/mlperf_log_accuracy.json").write_bytes(b"")
    found = run(tmp_path, comp, res)
    assert "CP003" in codes(found) and "CP004" in codes(found)
    assert "CP013" in codes(found)  # empty accuracy log: no match


def test_truncated_logs_cannot_recompute(tmp_path):
    head = ['{ "seq_id" : 0, "qsl_idx" : 1, "data" : "AA" },', '{ "seq_id" : 1, "qsl_id', '', '...', '',
            'x" : 3, "data" : "CC" },', '{ "seq_id" : 9, "qsl_idx" : 2, "data" : "BB" }']
    comp, res = make_tree(tmp_path, acc_lines=head)
    found = run(tmp_path, comp, res)
    assert codes(found) == ["CP019"]


def test_malformed_accuracy_entries(tmp_path):
    bad = ['{ "seq_id" : 0, "qsl_idx" : "one", "data" : "AA" },', '{ "seq_id" : 1, "qsl_idx" : 2, "data" : "XYZ" },',
           'garbage', '{ "seq_id" : 2, "qsl_idx" : 2, "data" : "BB" }']
    comp, res = make_tree(tmp_path, acc_lines=bad)
    found = run(tmp_path, comp, res)
    assert codes(found) == ["CP024"]
    assert {f.location.line for f in found} == {2, 3, 4}


def test_output_mismatch_beyond_first_element(tmp_path):
    comp, res = make_tree(tmp_path, acc_lines=['{ "qsl_idx" : 2, "data" : "BB00" }'],
                          perf_lines=['{ "qsl_idx" : 2, "data" : "BB01" }'])
    found = run(tmp_path, comp, res)
    assert codes(found) == ["CP012"]
    assert not dict(found[0].data)["official"]


def test_binary_garbage_never_raises(tmp_path):
    comp, res = make_tree(tmp_path)
    for path in Path(comp).rglob("*"):
        if path.is_file():
            path.write_bytes(b"\x00\xff" * 50)
    found = run(tmp_path, comp, res)
    assert found and all(f.code in CODES for f in found)


def test_the_submission_summary_is_read_once_for_every_test(tmp_path, monkeypatch):
    import builtins

    comp, res = make_tree(tmp_path)
    reads = []
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda path, *a, **k: reads.append(str(path)) or real_open(path, *a, **k))
    assert run(tmp_path, comp, res) == []
    ref = str(Path(res) / "performance/run_1/mlperf_log_summary.txt")
    summaries = [p for p in reads if p.endswith("mlperf_log_summary.txt")]
    assert summaries.count(ref) == 1 and len(summaries) == 4  # TEST01, TEST04 and TEST05 compare with it, plus their own
    reads.clear()
    monkeypatch.undo()
    parsed = parse_summary_log(ref)
    monkeypatch.setattr(builtins, "open", lambda path, *a, **k: reads.append(str(path)) or real_open(path, *a, **k))
    assert verify_compliance_dir(comp, res, "resnet50", "Offline", V41, str(tmp_path), reference_summary=parsed) == []
    assert ref not in reads  # the caller's parse (the loader's) is used


def test_an_unreadable_submission_summary_is_reported_for_every_test(tmp_path):
    comp, res = make_tree(tmp_path)
    (Path(res) / "performance/run_1/mlperf_log_summary.txt").write_bytes(b"Scenario : Offline\x00\n")
    found = [f for f in run(tmp_path, comp, res) if f.code == "CP020"]
    assert sorted(dict(f.data)["test"] for f in found) == ["TEST01", "TEST04", "TEST05"]
    assert all("summary log unreadable (file is binary" in f.message for f in found)
