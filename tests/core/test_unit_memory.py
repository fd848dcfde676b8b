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
    # (the loader no longer keeps parsed logs aside for a later parse: they live on the contexts only)
    assert len(seen) == 3 and all(remembered > 0 and logs == 0 for remembered, logs in seen[:2]), seen
    assert seen[2][0] > 0 and seen[2][1] == 0, seen
    assert sum(len(m) for m in memo._MEMOS) == 0 and len(loadgen_log._RECENT) == 0


def test_shared_summaries_equal_the_originals_and_share_repeated_values():
    import pickle

    from checker.report import ResultSummary, shared

    fields = (("accelerator_model_name", "X"), ("number_of_nodes", 1))

    def summary(n: int, target) -> ResultSummary:
        return ResultSummary(id=f"closed/A/results/s/m{n}/Offline", division="closed", submitter="A", system="s",
                             model=f"m{n}", mlperf_model="m", scenario="Offline", scenario_dir="Offline", valid=True,
                             value=1.0, unit="samples/s", inferred=False, has_power=False, system_fields=fields,
                             compliance_tests=(("TEST01", "passed"),), accuracy_targets=(("acc", target, None),))

    # as they arrive from a worker: one pickle per submitter, so two submitters hold separate copies
    first, second = (pickle.loads(pickle.dumps([summary(1, 75), summary(2, 75.0)])) for _ in range(2))
    before = pickle.loads(pickle.dumps(first + second))  # copies, to compare with after the sharing
    assert first[0].division is not second[0].division and first[0].system_fields is not second[0].system_fields
    tables: dict = {}
    made = shared(first, tables) + shared(second, tables)
    assert made == before and [hash(s) for s in made] == [hash(s) for s in before]
    assert [s.to_dict() for s in made] == [s.to_dict() for s in before]
    assert made[0].system_fields is made[1].system_fields  # one system: one tuple
    assert made[0].system_fields[0][0] is made[2].system_fields[0][0]  # field names interned
    assert made[0].division is made[3].division and made[0].compliance_tests is made[3].compliance_tests
    assert made[0].accuracy_targets is made[2].accuracy_targets
    assert made[0].accuracy_targets is not made[1].accuracy_targets  # 75 and 75.0 print differently
    assert repr(made[1].accuracy_targets) == "(('acc', 75.0, None),)"
