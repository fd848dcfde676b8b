"""Sample SUTs through the real LoadGen: the honest SUT never fails, each cheater is always caught.

Each LoadGen run is short (min duration 100 ms); runs go in parallel threads (each is its own
subprocess, mostly sleeping).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from checker.audit.runner import RunnerError, RunPlan, run_audit

from .helpers import needs_loadgen

pytestmark = needs_loadgen

HONEST_REPEATS = int(os.environ.get("MLPC_AUDIT_REPEATS", "20"))
CHEATER_REPEATS = int(os.environ.get("MLPC_AUDIT_CHEATER_REPEATS", "3"))

CASES = {
    "TEST01": ("resnet50", "Offline", "v5.1", "fixtures.suts.honest:make_sut",
               ["fixtures.suts.divergent:make_sut", "fixtures.suts.divergent:make_subtle_sut"]),
    "TEST04": ("resnet50", "Offline", "v5.1", "fixtures.suts.honest:make_sut", ["fixtures.suts.caching:make_sut"]),
    "TEST05": ("resnet50", "Offline", "v4.1", "fixtures.suts.honest:make_sut", ["fixtures.suts.seed_sensitive:make_sut"]),
    "TEST06": ("llama2-70b-99", "Server", "v5.1", "fixtures.suts.llm:make_sut", ["fixtures.suts.llm:make_eos_sut"]),
}
EXPECTED_CODE = {
    "fixtures.suts.divergent:make_sut": "CP011",
    "fixtures.suts.divergent:make_subtle_sut": "CP012",
    "fixtures.suts.caching:make_sut": "CP006",
    "fixtures.suts.seed_sensitive:make_sut": "CP006",
    "fixtures.suts.llm:make_eos_sut": "CP015",
}


# TEST05's 5% threshold needs steadier runs than the 10% tests: longer runs dilute start-up jitter.
# TEST04 compares two runs with a one-sided 10% bound: at 200 ms a reference run slowed by a busy
# machine made the honest SUT fail once in CI-like conditions, so it gets the longer runs too.
MIN_DURATION_MS = {"TEST05": 400, "TEST04": 400}


def _run(args):
    test, sut, model, scenario, rnd, out = args
    duration = MIN_DURATION_MS.get(test, 200)
    return run_audit(RunPlan(test, sut, model, scenario, rnd, min_duration_ms=duration, timeout_s=60), out)


def _many(jobs, workers=2):
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_run, jobs))


@pytest.mark.parametrize("test", sorted(CASES))
def test_honest_sut_passes_repeatedly(test, tmp_path):
    model, scenario, rnd, honest, _ = CASES[test]
    jobs = [(test, honest, model, scenario, rnd, str(tmp_path / f"run{i}")) for i in range(HONEST_REPEATS)]
    # timing tests (TEST04/TEST05) run one at a time: two LoadGen runs sharing the 2 cores made the
    # reference run stall often enough to look >10% slower than the test run
    outcomes = _many(jobs, workers=1 if test in MIN_DURATION_MS else 2)
    # a timing test can fail an honest run on a machine that stalls mid-run (as the official tests
    # can); such a run is repeated once, as a submitter would. A verifier that fails honest runs for a
    # real reason fails the repeat too, and at most two runs in twenty may need one.
    again = [(job[:-1] + (job[-1] + "-again",)) for job, o in zip(jobs, outcomes) if not o.passed]
    assert len(again) <= 2, [o.findings for o in outcomes if not o.passed][:2]
    failures = [o.findings for o in _many(again, workers=1) if not o.passed]
    assert not failures, failures[:2]
    assert all(os.path.isdir(tmp_path / f"run{i}" / "compliance" / test) for i in range(HONEST_REPEATS))


@pytest.mark.parametrize("test", sorted(CASES))
def test_cheaters_are_caught_every_time(test, tmp_path):
    model, scenario, rnd, _, cheaters = CASES[test]
    jobs = [(test, sut, model, scenario, rnd, str(tmp_path / f"{n}-{i}"))
            for n, sut in enumerate(cheaters) for i in range(CHEATER_REPEATS)]
    for job, outcome in zip(jobs, _many(jobs)):
        assert not outcome.passed, job
        assert EXPECTED_CODE[job[1]] in {f["code"] for f in outcome.findings}, outcome.findings


def test_caching_sut_caught_in_singlestream(tmp_path):
    o = _run(("TEST04", "fixtures.suts.caching:make_sut", "resnet50", "SingleStream", "v5.1", str(tmp_path / "o")))
    assert not o.passed and "CP006" in {f["code"] for f in o.findings}


def test_raising_sut_gives_clear_error_and_no_output(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(RunnerError, match="SUT raised RuntimeError: accelerator fell off the bus"):
        _run(("TEST04", "fixtures.suts.broken:make_raising_sut", "resnet50", "Offline", "v5.1", str(out)))
    assert not out.exists() and os.listdir(tmp_path) == []


def test_hanging_sut_is_killed_and_leaves_no_output(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(RunnerError, match="did not finish within"):
        run_audit(RunPlan("TEST04", "fixtures.suts.broken:make_hanging_sut", "resnet50", "Offline",
                          min_duration_ms=100, timeout_s=3), str(out))
    assert not out.exists() and os.listdir(tmp_path) == []


def test_bad_arguments(tmp_path):
    with pytest.raises(RunnerError, match="not part of round v5.1"):
        run_audit(RunPlan("TEST05", "fixtures.suts.honest:make_sut", "resnet50", "Offline"), str(tmp_path / "o"))
    with pytest.raises(RunnerError, match="pkg.module:factory"):
        run_audit(RunPlan("TEST04", "nonsense", "resnet50", "Offline"), str(tmp_path / "o"))
    (tmp_path / "exists").mkdir()
    with pytest.raises(RunnerError, match="already exists"):
        run_audit(RunPlan("TEST04", "fixtures.suts.honest:make_sut", "resnet50", "Offline"), str(tmp_path / "exists"))
