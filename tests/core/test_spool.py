"""The findings spool: a round's findings written to a temporary file a submitter at a time and read
back in exactly the order of a stable sort of their concatenation."""

import os
import random

from checker.api import check
from checker.diagnostics import Finding, Location
from checker.spool import FindingSpool, SpoolWriter, pack
from tests.conftest import real_tree


def _finding(result_id: str, path: str, code: str, message: str, hint: str = "") -> Finding:
    return Finding(message=message, location=Location(path), code=code, result_id=result_id, hint=hint or None)


def test_read_back_in_stable_sort_order():
    rng = random.Random(17)
    # submitter names that are prefixes of each other interleave in sort order ("A/x" < "A-b" < "A/y"...)
    ids = ["", "closed", "closed/A", "closed/A-b", "closed/A/results/s/m/Offline", "closed/A-b/results/s/m/Server",
           "closed/Ab", "open/B"]
    batches = [[_finding(rng.choice(ids), rng.choice(("x", "y")), rng.choice(("PF001", "ST002")), rng.choice("ab"),
                         hint=f"{n}/{i}") for i in range(rng.randrange(0, 30))] for n in range(40)]
    spool = FindingSpool()
    view = spool.view([spool.add(batch, order) for order, batch in enumerate(batches)])
    expected = sorted((f for batch in batches for f in batch), key=Finding.sort_key)
    assert len(view) == len(expected) and list(view) == expected  # equal keys keep their batch order (hint)
    assert list(view) == expected  # read again: the same
    assert view[0] == expected[0] and view[-1] == expected[-1] and view[3:5] == expected[3:5]
    assert view == expected


def test_packed_batches_are_written_as_the_findings_would_be():
    """A batch packed where it was made (a worker) reads back, merges and tallies as the same findings added."""
    rng = random.Random(5)
    batches = [[_finding(rng.choice(("closed/A", "closed/B", "")), "p", rng.choice(("PF001", "ST002")), str(i))
                for i in range(rng.randrange(0, 12))] for _ in range(12)]
    plain, packed = FindingSpool(), FindingSpool()
    a = [plain.add(batch, order) for order, batch in enumerate(batches)]
    b = [packed.add(pack(batch) if order % 2 else batch, order) for order, batch in enumerate(batches)]
    assert [(x.size, x.count, x.first, x.tally) for x in a] == [(x.size, x.count, x.first, x.tally) for x in b]
    assert list(packed.view(b)) == list(plain.view(a)) and packed.view(b).tally() == plain.view(a).tally()


def test_a_parallel_check_sends_packed_batches_and_reports_the_same():
    tree = real_tree("v4.1")
    serial = check(tree, round="v4.1", cache=False, spool=True, jobs=1)
    parallel = check(tree, round="v4.1", cache=False, spool=True, jobs=2)
    assert list(parallel.findings) == list(serial.findings) and parallel.results == serial.results


def test_batches_in_any_order_of_writing():
    a = [_finding("closed/A", "p", "ST001", "same")]
    b = [_finding("closed/A", "p", "ST001", "same", hint="second")]
    spool = FindingSpool()
    later, earlier = spool.add(b, 2), spool.add(a, 1)
    assert [f.hint for f in spool.view([later, earlier])] == [None, "second"]
    assert list(spool.view([spool.add([], 3)])) == []


def test_spooled_report_is_the_same_report():
    tree = real_tree("v4.1")
    plain = check(tree, round="v4.1", cache=False)
    spooled = check(tree, round="v4.1", cache=False, spool=True)
    assert spooled.findings and list(spooled.findings) == plain.findings
    assert spooled.results == plain.results and spooled.counts() == plain.counts()


def test_a_batch_is_read_only_when_the_merge_reaches_it():
    spool = FindingSpool()
    batches = [spool.add([_finding(f"closed/S{n:02d}/results/r", "p", "PF001", str(i)) for i in range(3)], n)
               for n in range(10)]
    reads = []
    original = spool.read
    spool.read = lambda batch: reads.append(batch.order) or original(batch)
    seen = iter(spool.view(batches))
    next(seen)
    assert reads == [0]
    assert len(list(seen)) == 29 and reads == list(range(10))


def test_writer_reads_back_in_append_order_and_keeps_what_is_asked():
    rng = random.Random(5)
    made = [_finding(rng.choice(("closed/A", "closed/B", "")), "p", rng.choice(("PL002", "PL005")), rng.choice("ab"),
                     hint=str(i)) for i in range(57)]
    spool = FindingSpool()
    before = spool.add([_finding("closed/A", "p", "PL002", "a", hint="before")], 0)
    sink = SpoolWriter(spool, 1, keep=lambda f: f.code == "PL002", size=10)
    for f in made:
        sink.append(f)
    sink.flush()
    assert len(sink.batches) == 6 and [b.order for b in sink.batches] == [1, 2, 3, 4, 5, 6]
    assert sink.kept == [f for f in made if f.code == "PL002"]
    expected = sorted([_finding("closed/A", "p", "PL002", "a", hint="before"), *made], key=Finding.sort_key)
    assert list(spool.view([*sink.batches, before])) == expected  # equal keys keep the order of appending


def test_round_findings_that_count_are_counted_the_same_through_the_spool(monkeypatch):
    """Round-scope findings go to the spool as they are made; those that count (here PL002 warnings, with
    the utilisation threshold lowered so that every assessed result gets one) still reach the summaries."""
    import checker.loaders.hardware as tables

    hardware, work = tables.default_tables()
    low = work.model_copy(update={"thresholds": work.thresholds.model_copy(
        update={"utilisation_warning": 1e-6, "utilisation_error": 1e6})})
    monkeypatch.setattr(tables, "default_tables", lambda: (hardware, low))  # (the PL checks look it up there)
    tree = real_tree("v4.1")
    plain = check(tree, round="v4.1", cache=False)
    spooled = check(tree, round="v4.1", cache=False, spool=True)
    warned = [f for f in plain.findings if f.code == "PL002"]
    assert len(warned) >= 20
    assert list(spooled.findings) == plain.findings
    assert spooled.results == plain.results and spooled.counts() == plain.counts()
    by_id = {r.id: r for r in spooled.results}
    assert all(by_id[f.result_id].warnings >= 1 for f in warned)


def test_the_spools_file_has_no_name_and_reads_back_what_was_written(tmp_path, monkeypatch):
    """The spool's temporary file (``anonymous_file``): in $TMPDIR where it takes one, nameless (gone when closed);
    an unusable $TMPDIR is passed over, and without O_TMPFILE ``tempfile`` makes it."""
    from checker.spool import anonymous_file

    for env, folder in ((str(tmp_path), tmp_path), (str(tmp_path / "missing"), None)):
        monkeypatch.setenv("TMPDIR", env)
        with anonymous_file() as handle:
            handle.write(b"abc" * 1000)
            handle.seek(3)
            assert handle.read(6) == b"abcabc"
            if hasattr(os, "O_TMPFILE"):
                assert os.fstat(handle.fileno()).st_nlink == 0
        if folder is not None:
            assert os.listdir(folder) == []
    monkeypatch.setattr("checker.spool._TMPFILE", 0)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with anonymous_file() as handle:
        handle.write(b"xyz")
        handle.seek(0)
        assert handle.read() == b"xyz"
    assert os.listdir(tmp_path) == []
