"""The forked workers of a parallel check (``checker.forkpool``): every task answered once, answers of any
size, a worker that dies answers for its task and the rest go on, an error is raised in the parent, and
no worker is left behind; and a check through them gives the report a serial check gives."""

from __future__ import annotations

import os
import shutil
import signal

import pytest

from checker import forkpool, pipeline
from checker.loaders.rules import load_rules
from checker.pipeline import check_tree
from checker.reporters import json_report
from tests.conftest import real_tree

pytestmark = pytest.mark.skipif(not forkpool.available(), reason="no os.fork here: checks use a ProcessPoolExecutor")


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def _collect(fn, tasks, jobs):
    answers: list[tuple[int, object]] = []
    forkpool.run(fn, tasks, jobs, lambda i, value: answers.append((i, value)))
    return answers


def _square(x):
    return x * x


@pytest.mark.parametrize("jobs", [1, 2, 3, 8])
def test_every_task_is_answered_once(jobs):
    tasks = list(range(37))
    answers = _collect(_square, tasks, jobs)
    assert sorted(answers) == [(i, i * i) for i in tasks]
    assert _no_children_left()


def _frozen(_):
    import gc

    return gc.get_freeze_count()


def test_a_worker_keeps_what_it_inherits_out_of_its_collections_and_this_process_does_not():
    import gc

    assert gc.get_freeze_count() == 0
    answers = _collect(_frozen, [0, 1, 2], 2)
    assert all(count > 1000 for _, count in answers), answers  # (the interpreter's and the tests' objects)
    assert gc.get_freeze_count() == 0


def test_answers_larger_than_a_pipe_holds():
    tasks = [n * 300_000 for n in range(6)]  # up to 1.5 MB, far past the 64 KB of a pipe
    answers = dict(_collect(lambda n: bytes(range(256)) * (n // 256) + b"end", tasks, 2))
    assert {i: len(v) for i, v in answers.items()} == {i: (n // 256) * 256 + 3 for i, n in enumerate(tasks)}
    assert all(v.endswith(b"end") for v in answers.values())


def _dies_on_three(x):
    if x == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    if x == 5:
        os._exit(7)
    return x + 100


def test_a_worker_that_dies_answers_for_its_task_and_the_others_go_on():
    answers = dict(_collect(_dies_on_three, list(range(10)), 2))
    assert sorted(answers) == list(range(10))
    assert answers[3] == forkpool.WorkerDied("killed by SIGKILL")
    assert answers[5] == forkpool.WorkerDied("exited with status 7")
    assert all(answers[i] == i + 100 for i in range(10) if i not in (3, 5))
    assert _no_children_left()


def test_every_worker_dying_still_answers_every_task():
    answers = dict(_collect(lambda x: os._exit(1), list(range(5)), 2))
    assert answers == {i: forkpool.WorkerDied("exited with status 1") for i in range(5)}
    assert _no_children_left()


def _fails_on_two(x):
    if x == 2:
        raise ValueError("task two is bad")
    return x


def test_an_error_in_a_task_is_raised_here_and_no_worker_is_left():
    with pytest.raises(ValueError, match="task two is bad"):
        _collect(_fails_on_two, list(range(6)), 2)
    assert _no_children_left()


def test_an_error_in_the_parent_stops_the_workers():
    def boom(i, value):
        raise KeyError("the parent failed")

    with pytest.raises(KeyError):
        forkpool.run(_square, list(range(20)), 2, boom)
    assert _no_children_left()


def test_nothing_buffered_is_written_twice(capfd):
    print("before the fork", end="")  # buffered in this process when the workers are forked
    _collect(_square, list(range(4)), 2)
    assert capfd.readouterr().out.count("before the fork") == 1


@pytest.fixture
def two_submitters(tmp_path):
    src = real_tree("v4.1")
    root = tmp_path / "round"
    for name in ("closed/NeuralMagic", "closed/Cisco"):
        source = os.path.join(src, name)
        if not os.path.isdir(source):
            pytest.skip(f"real submitter {name} not found in {src}")
        shutil.copytree(source, root / name, symlinks=True)
    return str(root)


def test_a_check_in_forked_workers_gives_the_serial_report(two_submitters, monkeypatch):
    rules = load_rules("v4.1")
    serial = json_report.render(check_tree(two_submitters, rules, round_reason="t", jobs=1))
    assert json_report.render(check_tree(two_submitters, rules, round_reason="t", jobs=2)) == serial
    monkeypatch.setattr(forkpool, "available", lambda: False)  # the ProcessPoolExecutor elsewhere
    assert json_report.render(check_tree(two_submitters, rules, round_reason="t", jobs=2)) == serial


def test_a_submitter_whose_worker_dies_gets_tl001_and_the_check_goes_on(two_submitters, monkeypatch):
    plain = pipeline._unit_worker

    def dying(args):
        if args[2] == "NeuralMagic":
            os.kill(os.getpid(), signal.SIGKILL)
        return plain(args)

    monkeypatch.setattr(pipeline, "_unit_worker", dying)
    report = check_tree(two_submitters, load_rules("v4.1"), round_reason="t", jobs=2)
    crashed = [f for f in report.findings if f.code == "TL001"]
    assert [(f.result_id, f.actual) for f in crashed] == [("closed/NeuralMagic", "killed by SIGKILL")]
    assert "worker process killed by SIGKILL" in crashed[0].message
    assert {r.submitter for r in report.results} == {"Cisco"}  # the other submitter was checked
    assert _no_children_left()


def test_meanwhile_runs_once_here_while_the_workers_work():
    seen: list = []
    forkpool.run(_square, list(range(9)), 2, lambda i, value: seen.append("answer"),
                 meanwhile=lambda: seen.append(("meanwhile", os.getpid())))
    assert seen[0] == ("meanwhile", os.getpid()) and seen.count("answer") == 9 and len(seen) == 10
