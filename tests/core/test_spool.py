"""The findings spool: a round's findings written to a temporary file a submitter at a time and read
back in exactly the order of a stable sort of their concatenation."""

import random

from checker.api import check
from checker.diagnostics import Finding, Location
from checker.spool import FindingSpool
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
