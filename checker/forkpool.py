"""Worker processes forked from the parent of a check, fed over pipes.

The parent loads what the workers need (modules, the round's rules and tables) and then forks them: each
inherits it, and the tasks themselves (a list the parent holds), so a task is sent as its index alone.
A worker computes ``fn(tasks[i])`` and writes the pickled answer back on its own pipe; the parent waits on
the workers' pipes, hands each answer to ``on_result`` as it comes, and gives that worker more work. A worker
holds its next task before it finishes the one it is on (while more tasks are left than there are workers), so
that it goes on at once instead of waiting for the parent, which shares the machine's cores with the workers,
to read its answer (20-70 ms a worker on a 1k-result round on 2 cores).
No thread is started in either process: a check's parent spends its time reading answers, not passing
them between threads (``concurrent.futures.ProcessPoolExecutor`` runs two threads in the parent and a
lock-guarded queue for every task and answer).

A worker that dies (killed, out of memory, a crash in an extension) is noticed by the end of its pipe:
its task is answered with :class:`WorkerDied` and a new worker is forked for the tasks left. POSIX only
(``os.fork``): :func:`available` says whether it can run here.
"""

from __future__ import annotations

import gc
import os
import pickle
import selectors
import signal
import struct
import sys
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_TASK = struct.Struct("<q")  # the index of a task; -1: no more tasks
_ANSWER = struct.Struct("<Q")  # the length of the pickled answer that follows
_STOP = -1


@dataclass(frozen=True)
class WorkerDied:
    """The answer to a task whose worker ended before answering: how it ended."""

    how: str


class _Worker:
    def __init__(self, pid: int, tasks_w: int, answers_r: int) -> None:
        self.pid, self.tasks_w, self.answers_r = pid, tasks_w, answers_r
        self.pending: deque[int] = deque()  # the tasks given to it and not answered yet: the first is the one it is on


def available() -> bool:
    """Whether workers can be forked here (POSIX, with ``os.fork``)."""
    return hasattr(os, "fork") and sys.platform != "win32"


def run(fn: Callable, tasks: Sequence, jobs: int, on_result: Callable[[int, object], None],
        meanwhile: Callable[[], None] | None = None, at_exit: Callable[[], None] | None = None) -> None:
    """``on_result(i, fn(tasks[i]))`` for every task, called in this process as the answers come (in the
    order the workers finish), with ``jobs`` workers taking the tasks in order. An exception ``fn`` raises
    is re-raised here (after the workers are stopped); a worker that dies answers ``WorkerDied``.
    ``meanwhile``: called here once the workers have their first tasks (work this process would otherwise
    do after them, while it would only wait). ``at_exit``: called in each worker when it has no more tasks,
    before it ends (a worker runs none of this process's ``atexit`` functions); what it raises is ignored."""
    working: dict[int, _Worker] = {}  # by the fd of its answers
    done: list[_Worker] = []  # told to stop, to be waited for
    selector = selectors.DefaultSelector()
    queue = deque(range(len(tasks)))  # the tasks not given yet (a dead worker's unanswered ones go back first)

    def feed(worker: _Worker) -> None:
        # its next task, and one ahead while more tasks are left than there are workers (each then still gets one)
        while queue and len(worker.pending) < (2 if len(queue) > len(working) else 1):
            _give(worker, queue.popleft())

    def start() -> None:
        worker = _fork(fn, tasks, [fd for w in working.values() for fd in (w.tasks_w, w.answers_r)], at_exit)
        working[worker.answers_r] = worker
        selector.register(worker.answers_r, selectors.EVENT_READ)
        feed(worker)

    def stop(worker: _Worker) -> None:
        selector.unregister(worker.answers_r)
        del working[worker.answers_r]
        _retire(worker)
        done.append(worker)

    try:
        for _ in range(min(jobs, len(tasks))):
            start()
        if meanwhile is not None:
            meanwhile()
        while working:
            for key, _ in selector.select():
                worker = working[key.fd]
                answer = _receive(worker.answers_r)
                if answer is None:  # gone: its task is answered so, the ones it held go to the others
                    task = worker.pending.popleft()
                    queue.extendleft(reversed(worker.pending))
                    worker.pending.clear()
                    stop(worker)
                    on_result(task, WorkerDied(_reap(worker)))
                    if queue:
                        start()
                    continue
                task = worker.pending.popleft()
                ok, value = answer
                if not ok:
                    raise value
                feed(worker)
                if not worker.pending:  # nothing more for it to do
                    stop(worker)
                on_result(task, value)
    finally:
        selector.close()
        for worker in working.values():  # stopped early (an exception here): end them now
            _retire(worker)
            try:
                os.kill(worker.pid, signal.SIGKILL)
            except OSError:
                pass
            done.append(worker)
        for worker in done:
            _reap(worker)


def _fork(fn: Callable, tasks: Sequence, inherited: list[int], at_exit: Callable[[], None] | None = None) -> _Worker:
    tasks_r, tasks_w = os.pipe()
    answers_r, answers_w = os.pipe()
    for stream in (sys.stdout, sys.stderr):  # what is buffered is written once, by this process
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed or broken stream: nothing to flush
            pass
    # What the worker inherits is frozen out of its cycle collections: they would otherwise write to the
    # header of every inherited object they walk and copy its page (about 1,400 fewer page faults on a
    # 1k-result round). This process takes its objects back at once.
    gc.freeze()
    pid = os.fork()
    if pid != 0:
        gc.unfreeze()
    if pid == 0:  # the worker
        code = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends a worker at once, quietly
            for fd in (tasks_w, answers_r, *inherited):  # (the other workers' pipes: theirs alone)
                os.close(fd)
            _serve(fn, tasks, tasks_r, answers_w)
            code = 0
            if at_exit is not None:
                try:
                    at_exit()
                except Exception:  # noqa: BLE001 - the work is done and answered
                    pass
        finally:
            os._exit(code)  # never back into the parent's code (its atexit handlers, its streams)
    os.close(tasks_r)
    os.close(answers_w)
    return _Worker(pid, tasks_w, answers_r)


def _serve(fn: Callable, tasks: Sequence, tasks_r: int, answers_w: int) -> None:
    while True:
        head = _read_exactly(tasks_r, _TASK.size)
        if head is None:
            return
        (index,) = _TASK.unpack(head)
        if index == _STOP:
            return
        try:
            data = pickle.dumps((True, fn(tasks[index])), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - handed to the parent, which raises it
            try:
                data = pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # noqa: BLE001 - an exception that does not pickle
                data = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
        _write_all(answers_w, _ANSWER.pack(len(data)) + data)


def _give(worker: _Worker, task: int) -> None:
    worker.pending.append(task)
    _write_all(worker.tasks_w, _TASK.pack(task))


def _retire(worker: _Worker) -> None:
    """Tell the worker there is no more work and close the parent's ends of its pipes."""
    try:
        _write_all(worker.tasks_w, _TASK.pack(_STOP))
    except OSError:  # it is gone already
        pass
    for fd in (worker.tasks_w, worker.answers_r):
        try:
            os.close(fd)
        except OSError:
            pass


def _reap(worker: _Worker) -> str:
    """Wait for the worker's end (once); how it ended."""
    if not worker.pid:
        return "ended"
    try:
        _, status = os.waitpid(worker.pid, 0)
    except ChildProcessError:
        status = 0
    worker.pid = 0
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"killed by {name}"
    return f"exited with status {os.WEXITSTATUS(status)}" if os.WIFEXITED(status) else "ended"


def _receive(fd: int):
    """One answer from a worker's pipe, unpickled; None at the end of the pipe (the worker is gone)."""
    head = _read_exactly(fd, _ANSWER.size)
    if head is None:
        return None
    (size,) = _ANSWER.unpack(head)
    data = _read_exactly(fd, size)
    if data is None:
        return None
    return pickle.loads(data)


def _read_exactly(fd: int, size: int) -> bytes | None:
    """``size`` bytes from ``fd``, or None where it ends first."""
    first = os.read(fd, size)
    if len(first) == size:
        return first
    if not first:
        return None
    parts, got = [first], len(first)
    while got < size:
        more = os.read(fd, size - got)
        if not more:
            return None
        parts.append(more)
        got += len(more)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
