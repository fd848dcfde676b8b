"""mlperf.conf and user.conf are read by the load stage only for the results PF011 reads them for (a result that
must run in equal-issue mode and whose performance log does not say whether it did), and then as before."""

from __future__ import annotations

import os

import pytest

from checker.loaders.rules import load_rules
from checker.loaders.tree import confs_needed, load_submitter, load_top
from tests.conftest import real_tree


def _eager(root: str, rel: str) -> dict[str, str]:
    texts = {}
    for name in ("mlperf.conf", "user.conf"):
        path = os.path.join(root, rel, name)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                raw = handle.read()
            if b"\x00" not in raw[:65536]:
                texts[name] = raw.decode("utf-8", errors="replace")
    return texts


@pytest.mark.parametrize("name", ["v4.1", "v5.1", "v6.0"])
def test_the_conf_files_are_read_for_the_results_pf011_reads_them_for(name):
    root, rules = real_tree(name), load_rules(name)
    _, units = load_top(root, rules)
    if not units:
        pytest.skip(f"no {name} submitters in ../shared")
    read = skipped = 0
    for unit in units:
        for result in load_submitter(root, *unit, rules).results:
            meas = result.measurements
            if confs_needed(result.perf, rules, result.mlperf_model, result.division):
                assert meas.conf_texts == _eager(root, meas.rel)
                read += 1
            else:
                assert meas.conf_texts == {}
                log = result.perf.log if result.perf is not None else None
                # PF011 asks nothing of them: no equal-issue rule, or the log says
                assert log is None or result.scenario is None or not rules.equal_issue_required(
                    result.mlperf_model, result.division) or log.get("effective_sample_concatenate_permutation") is not None
                skipped += 1
    assert skipped  # (the round's results mostly need no conf file)
