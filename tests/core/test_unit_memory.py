"""What the checks of one submitter remember (contexts, parsed logs) is dropped when the submitter is
done, so a round's peak memory follows its largest submitter, not the number of submitters checked."""

import os
import shutil

from checker.checks import memo
from checker.loaders import loadgen_log
from checker.loaders.rules import load_rules
from checker.pipeline import check_tree

RULES = load_rules("v4.1")


def test_nothing_of_a_submitter_is_kept_after_it(base_tree):
    shutil.copytree(os.path.join(base_tree, "closed", "Acme"), os.path.join(base_tree, "closed", "Bcme"),
                    symlinks=True)
    seen: list[tuple[int, int]] = []
    original = memo.forget

    def spy():
        seen.append((sum(len(m) for m in memo._MEMOS), len(loadgen_log._RECENT)))
        original()

    import checker.pipeline as pipeline

    pipeline.forget = spy
    try:
        report = check_tree(base_tree, RULES, jobs=1)
    finally:
        pipeline.forget = original
    assert len(report.results) == 4
    # one call per submitter, then one after the round checks (which remember the round's assessment)
    assert len(seen) == 3 and all(remembered > 0 and logs > 0 for remembered, logs in seen[:2]), seen
    assert seen[2][0] > 0 and seen[2][1] == 0, seen
    assert sum(len(m) for m in memo._MEMOS) == 0 and len(loadgen_log._RECENT) == 0
