"""Run a compliance test (TEST01/04/05/06/07/08/09) against a SUT through the real LoadGen.

A SUT is any object following :class:`Sut` (no LoadGen import needed):

- ``info``: :class:`SutInfo` (name, QSL sizes, per-sample latency hint for the short settings);
- ``start(ctx)``: called once per LoadGen run with a :class:`RunContext` (mode, seeds, ...);
- ``issue(indices) -> list[SutResponse | bytes]``: one response per sample index, in order.

Each LoadGen run (accuracy / reference / test) runs in its own subprocess (LoadGen applies its
built-in mlperf.conf and seeds only on the first ``FromConfig`` of a process), with a timeout; a
SUT that raises or hangs kills the run. The compliance folder is written into a temporary
directory next to ``out`` and renamed to ``out`` only once every run finished, so a failed run
leaves no output. Layout of ``out``, the audited round's own (``run_folder.folder_layout``)::

    up to v5.1                       from v6.0 (TEST0x inside the scenario folder)
    compliance/TEST0x/...            TEST0x/...                the compliance test (verify_*.txt, logs)
    results/performance/run_1/       performance/run_1/        the reference (submission-like) run
    results/accuracy/                accuracy/                 the accuracy-mode run (TEST01, TEST07, TEST08)
    verdict.json                     verdict.json              the plan, the seeds expected, the layout, the
                                                               recomputed verdict and its findings

Rounds: the run uses the seeds of the round it audits (``--round``, else the round of the tree
``--round-from`` points to, else the round whose seeds the installed LoadGen writes). LoadGen
applies only the seeds of its own built-in mlperf.conf, so a release that writes another round's
seeds is refused with the releases to install, unless the caller accepts the installed seeds.

TEST07 needs the dataset's accuracy script: the SUT's ``score(outputs, dataset)`` method returns
(correct, evaluated) for ``outputs`` = [(qsl_idx, bytes)], ``dataset`` "compliance" (the TEST07 run)
or "main" (the accuracy run).

The audit.config settings are applied programmatically (model-specific lines included) rather
than by LoadGen's automatic audit.config load, which ignores model-specific lines and, measured
with LoadGen 6.0.17, does not apply ``test05``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Protocol, Sequence

from checker.diagnostics import MlpcError

TESTS = ("TEST01", "TEST04", "TEST05", "TEST06", "TEST07", "TEST08", "TEST09")
SCENARIOS = ("SingleStream", "MultiStream", "Server", "Offline")
DEFAULT_TIMEOUT_S = 60.0


# --------------------------------------------------------------------------- SUT protocol


@dataclass(frozen=True)
class SutInfo:
    name: str
    total_samples: int = 2048
    performance_samples: int = 2048
    sample_latency_s: float = 0.0002  # hint for the short LoadGen settings
    llm: bool = False  # responses carry tokens (first token, token count)
    accuracy_samples: int | None = None  # samples of the accuracy run (LoadGen accuracy_sample_count_override)


@dataclass(frozen=True)
class RunContext:
    test: str  # TEST01 ... TEST09
    phase: str  # accuracy / reference / test
    mode: str  # accuracy / performance
    model: str  # LoadGen model name
    scenario: str
    seeds: dict  # effective qsl / sample_index / schedule seeds of this run
    official_seeds: dict  # the seeds of LoadGen's built-in mlperf.conf


@dataclass(frozen=True)
class SutResponse:
    data: bytes
    first_token: bytes | None = None
    n_tokens: int | None = None


class Sut(Protocol):
    info: SutInfo

    def start(self, ctx: RunContext) -> None: ...

    def issue(self, indices: Sequence[int]) -> Sequence[SutResponse | bytes]: ...


class RunnerError(MlpcError):
    """The audit run could not complete (LoadGen missing, SUT raised or hung, bad arguments)."""


def loadgen_available() -> bool:
    try:
        importlib.import_module("mlperf_loadgen")
    except ImportError:
        return False
    return True


def require_loadgen() -> None:
    if not loadgen_available():
        raise RunnerError(
            "the audit runner needs the MLPerf LoadGen Python module: "
            "pip install 'mlpc[audit]' (or pip install mlcommons-loadgen)"
        )


def load_sut_factory(spec: str) -> Callable[[], Sut]:
    """``pkg.module:make_sut`` -> the factory (the current directory is importable)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise RunnerError(f"--sut must look like pkg.module:factory, got {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # import errors of user code
        raise RunnerError(f"cannot import SUT module {module_name!r}: {type(exc).__name__}: {exc}") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise RunnerError(f"{module_name!r} has no callable {attr!r}")
    return factory


# --------------------------------------------------------------------------- worker (subprocess)

_MODES = {"0": "SubmissionRun", "1": "AccuracyOnly", "2": "PerformanceOnly", "3": "FindPeakPerformance"}


def _apply_settings(lg, ts, settings: dict[str, str]) -> None:
    for key, value in settings.items():
        if key == "mode":
            ts.mode = getattr(lg.TestMode, _MODES[value])
        elif key == "min_duration":
            ts.min_duration_ms = int(value)
        elif key in ("performance_issue_unique", "performance_issue_same", "sample_concatenate_permutation", "test05"):
            setattr(ts, key, bool(int(value)))
        elif hasattr(ts, key):
            setattr(ts, key, int(value))
        else:
            raise RunnerError(f"audit.config key {key!r} is not a LoadGen TestSettings field")


def _short_settings(lg, ts, scenario: str, info: SutInfo, min_duration_ms: int) -> None:
    lat = max(info.sample_latency_s, 1e-5)
    ts.min_duration_ms = min_duration_ms
    ts.max_duration_ms = 0
    ts.performance_sample_count_override = info.performance_samples
    if scenario == "Offline":
        ts.offline_expected_qps = 1.0 / lat
        ts.min_query_count = 1
    elif scenario == "SingleStream":
        ts.single_stream_expected_latency_ns = int(lat * 1e9)
        ts.min_query_count = 100
    elif scenario == "MultiStream":
        ts.multi_stream_expected_latency_ns = int(lat * 1e9 * 8 * 1.5)
        ts.min_query_count = 700
    elif scenario == "Server":
        ts.server_target_qps = 0.5 / lat
        ts.server_target_latency_ns = max(int(lat * 1e9 * 50), 10_000_000)
        ts.min_query_count = 100


def _worker(job: dict) -> int:
    import array  # noqa: F401  (buffers)

    import mlperf_loadgen as lg

    factory = load_sut_factory(job["sut"])
    sut = factory()
    info: SutInfo = sut.info
    scenario = job["scenario"]
    with open("user.conf", "w", encoding="utf-8") as handle:
        handle.write("")
    ts = lg.TestSettings()
    ts.FromConfig("user.conf", job["model"], scenario)  # applies the built-in mlperf.conf and seeds
    ts.scenario = getattr(lg.TestScenario, scenario)
    ts.mode = lg.TestMode.AccuracyOnly if job["mode"] == "accuracy" else lg.TestMode.PerformanceOnly
    total = job.get("qsl_total") or info.total_samples  # TEST07: the compliance dataset
    perf_count = job.get("qsl_total") or info.performance_samples
    _short_settings(lg, ts, scenario, info, job["min_duration_ms"])
    ts.performance_sample_count_override = perf_count
    if hasattr(ts, "accuracy_sample_count_override"):  # LoadGen >= 6.0.6
        ts.accuracy_sample_count_override = min(info.accuracy_samples or total, total)
    _apply_settings(lg, ts, job["settings"])
    official = {"qsl_rng_seed": ts.qsl_rng_seed, "sample_index_rng_seed": ts.sample_index_rng_seed,
                "schedule_rng_seed": ts.schedule_rng_seed}
    test05 = {"qsl_rng_seed": ts.test05_qsl_rng_seed, "sample_index_rng_seed": ts.test05_sample_index_rng_seed,
              "schedule_rng_seed": ts.test05_schedule_rng_seed}
    effective = test05 if ts.test05 else official
    ctx = RunContext(job["test"], job["phase"], job["mode"], job["model"], scenario, effective, official)
    if hasattr(sut, "start"):
        sut.start(ctx)
    token_latencies = bool(getattr(ts, "use_token_latencies", False))
    keep: list = []

    def fail(exc: BaseException) -> None:
        with open("worker_error.json", "w", encoding="utf-8") as handle:
            json.dump({"error": f"SUT raised {type(exc).__name__}: {exc}"}, handle)
        sys.stderr.write(f"SUT raised {type(exc).__name__}: {exc}\n")
        sys.stderr.flush()
        os._exit(3)

    def issue(queries):
        try:
            out = list(sut.issue([q.index for q in queries]))
            if len(out) != len(queries):
                raise ValueError(f"SUT returned {len(out)} responses for {len(queries)} samples")
            responses = []
            for q, item in zip(queries, out):
                resp = item if isinstance(item, SutResponse) else SutResponse(bytes(item))
                buf = bytearray(resp.data) or bytearray(1)
                addr = _address(buf)
                keep.append(buf)
                if resp.first_token is not None and scenario != "Offline" and token_latencies:
                    fbuf = bytearray(resp.first_token) or bytearray(1)
                    keep.append(fbuf)
                    lg.FirstTokenComplete([lg.QuerySampleResponse(q.id, _address(fbuf), len(resp.first_token), 1)])
                if resp.n_tokens is not None:
                    responses.append(lg.QuerySampleResponse(q.id, addr, len(resp.data), resp.n_tokens))
                else:
                    responses.append(lg.QuerySampleResponse(q.id, addr, len(resp.data)))
            lg.QuerySamplesComplete(responses)
        except BaseException as exc:  # the SUT's failure ends the run: never hang LoadGen
            fail(exc)

    handle_sut = lg.ConstructSUT(issue, lambda: None)
    qsl = lg.ConstructQSL(total, perf_count, lambda s: None, lambda s: None)
    log_out = lg.LogOutputSettings()
    log_out.outdir = job["outdir"]
    log_out.copy_summary_to_stdout = False
    log_settings = lg.LogSettings()
    log_settings.log_output = log_out
    os.makedirs(job["outdir"], exist_ok=True)
    lg.StartTestWithLogSettings(handle_sut, qsl, ts, log_settings)
    lg.DestroyQSL(qsl)
    lg.DestroySUT(handle_sut)
    with open("worker_result.json", "w", encoding="utf-8") as handle:
        json.dump({"official_seeds": official, "test05_seeds": test05, "effective_seeds": effective}, handle)
    return 0


def _address(buf: bytearray) -> int:
    import ctypes

    return ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf))


# --------------------------------------------------------------------------- parent side


@dataclass
class RunPlan:
    test: str
    sut: str
    model: str  # mlperf model name, e.g. resnet (resnet50 accepted)
    scenario: str
    round: str | None = None  # None: the round of ``round_from``, else the installed LoadGen's round
    min_duration_ms: int = 150
    timeout_s: float = DEFAULT_TIMEOUT_S
    round_from: str | None = None  # a submission tree (or result folder) whose round is audited
    accept_installed_seeds: bool = False  # run even when the installed LoadGen writes another round's seeds


@dataclass
class AuditOutcome:
    test: str
    passed: bool
    out: str
    findings: list = field(default_factory=list)
    figures: dict = field(default_factory=dict)
    seconds: float = 0.0
    round: str = ""
    round_reason: str = ""
    notes: list = field(default_factory=list)


def _phases(test: str) -> list[tuple[str, str]]:
    """(phase, mode) in run order."""
    if test == "TEST01":
        return [("accuracy", "accuracy"), ("reference", "performance"), ("test", "performance")]
    if test in ("TEST07", "TEST08"):  # the accuracy run: TEST07 contrasts it, TEST08 matches against it
        return [("accuracy", "accuracy"), ("test", "performance")]
    if test in ("TEST06", "TEST09"):
        return [("test", "performance")]
    return [("reference", "performance"), ("test", "performance")]


def plan_round(plan: RunPlan) -> tuple[str, str, list[str]]:
    """(round, why, notes) of a plan; raises RunnerError when the installed LoadGen cannot run it."""
    from checker.audit import loadgen_release as lr
    from checker.loaders.audit_spec import load_rounds
    from checker.loaders.detect import sampled_seeds

    rounds = load_rounds()
    release = lr.installed_release()
    tree_round = None
    if plan.round is None and plan.round_from is not None:
        if not os.path.isdir(plan.round_from):
            raise RunnerError(f"--round-from {plan.round_from}: not a directory")
        votes: dict[str, int] = {}
        for seeds in sampled_seeds(plan.round_from):
            name = lr.round_of_seeds(rounds, seeds)
            if name:
                votes[name] = votes.get(name, 0) + 1
        if not votes:
            raise RunnerError(f"cannot tell the round of {plan.round_from}: no performance log carries the seeds "
                              f"of a known round; pass --round")
        tree_round = max(sorted(votes), key=votes.get)
    try:
        name, why = lr.resolve_round(rounds, plan.round, tree_round, release)
    except MlpcError as exc:
        raise RunnerError(str(exc)) from None
    notes = []
    problem = lr.release_problem(rounds, name, release)
    if problem:
        if not plan.accept_installed_seeds:
            raise RunnerError(problem + "; or pass --accept-installed-seeds to verify against the installed seeds")
        notes.append(f"not the {name} seeds: {problem} (accepted with --accept-installed-seeds)")
    return name, why, notes


def _run_worker(job: dict, cwd: str, timeout_s: float) -> dict:
    env = dict(os.environ)
    repo = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (os.getcwd(), repo, env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "checker.audit.runner", "--worker", json.dumps(job)]
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        _, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise RunnerError(
            f"{job['test']} {job['phase']} run did not finish within {timeout_s:g} s "
            f"(the SUT never answered?); run killed, no output written"
        ) from None
    error_file = os.path.join(cwd, "worker_error.json")
    if os.path.exists(error_file):
        with open(error_file, encoding="utf-8") as handle:
            message = json.load(handle).get("error", "SUT failed")
        raise RunnerError(f"{job['test']} {job['phase']} run failed: {message}; no output written")
    if proc.returncode != 0:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-5:]
        raise RunnerError(f"{job['test']} {job['phase']} run failed (exit {proc.returncode}): {' | '.join(tail)}")
    with open(os.path.join(cwd, "worker_result.json"), encoding="utf-8") as handle:
        return json.load(handle)


def run_audit(plan: RunPlan, out: str, progress: Callable[[str, int, int], None] | None = None) -> AuditOutcome:
    """Run ``plan.test`` against the SUT, write the compliance folder to ``out`` atomically, verify it."""
    from checker.audit import loadgen_release as lr
    from checker.audit.run_folder import folder_layout, verify_run_folder
    from checker.loaders.audit_spec import load_round_spec, load_rounds, read_audit_config, resolve_audit_settings

    started = time.monotonic()
    if plan.test not in TESTS:
        raise RunnerError(f"unknown test {plan.test!r}; known: {', '.join(TESTS)}")
    if plan.scenario not in SCENARIOS:
        raise RunnerError(f"unknown scenario {plan.scenario!r}; known: {', '.join(SCENARIOS)}")
    round_name, round_reason, notes = plan_round(plan)
    spec = load_round_spec(round_name)
    if plan.test not in spec.tests:
        rounds = "v4.1" if plan.test == "TEST05" else "another round"
        raise RunnerError(f"{plan.test} is not part of round {round_name} (try --round {rounds})")
    model = spec.mlperf_model(plan.model)
    rule = spec.tests[plan.test]
    if plan.test == "TEST07" and model not in rule.score or plan.test == "TEST09" and model not in rule.output_length:
        raise RunnerError(f"{plan.test} has no pass criteria for {model} in {round_name}; "
                          f"models: {', '.join(rule.models)}")
    require_loadgen()
    factory = load_sut_factory(plan.sut)  # fail early, in this process, on a bad --sut
    lg_model = spec.loadgen_model_names.get(model, plan.model)
    out_path = Path(out).resolve()
    if out_path.exists():
        raise RunnerError(f"output directory {out_path} already exists; choose a new --out")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    settings = resolve_audit_settings(read_audit_config(plan.test), lg_model, plan.scenario)
    settings.update(rule.round_settings(lg_model))
    if plan.test == "TEST01" and "accuracy_log_sampling_target" not in settings:
        raise RunnerError(f"audits/TEST01/audit.config has no sampling target for model {lg_model!r}")
    qsl_total = rule.score[model].samples if plan.test == "TEST07" else None
    plan = RunPlan(**{**asdict(plan), "round": round_name})

    import tempfile  # (its random module costs every CLI start 6 ms)

    tmp = tempfile.mkdtemp(prefix=f".{out_path.name}.tmp-", dir=str(out_path.parent))
    try:
        phases = _phases(plan.test)
        seeds: dict = {}
        layout = folder_layout(round_name)
        test_dir = os.path.join(tmp, layout["compliance"], plan.test)
        results = os.path.join(tmp, layout["results"]).rstrip(os.sep)
        for i, (phase, mode) in enumerate(phases):
            if progress:
                progress(f"{plan.test}: {phase} run ({mode})", i, len(phases))
            if phase == "accuracy":
                logdir = os.path.join(results, "accuracy")
            elif phase == "reference":
                logdir = os.path.join(results, "performance", "run_1")
            else:
                logdir = os.path.join(test_dir, "accuracy" if plan.test == "TEST06" else os.path.join("performance", "run_1"))
            workdir = os.path.join(tmp, "work", phase)
            os.makedirs(workdir)
            job = dict(sut=plan.sut, model=lg_model, scenario=plan.scenario, mode=mode, test=plan.test,
                       phase=phase, outdir=logdir, min_duration_ms=plan.min_duration_ms,
                       settings=settings if phase == "test" else {},
                       qsl_total=qsl_total if phase == "test" else None)
            seeds = _run_worker(job, workdir, plan.timeout_s)
            if i == 0 and not plan.accept_installed_seeds:
                problem = lr.seeds_problem(load_rounds(), round_name, seeds.get("official_seeds", {}),
                                           lr.installed_release())
                if problem:
                    raise RunnerError(problem)
        if progress:
            progress(f"{plan.test}: verifying", len(phases), len(phases))
        _arrange(plan.test, tmp, test_dir)
        figures = _write_verify_files(plan, spec, model, factory, results, test_dir)
        expected = seeds.get("official_seeds") if plan.accept_installed_seeds else spec.info.seeds.as_dict()
        record = {"plan": asdict(plan), "model": model, "round_reason": round_reason, "notes": notes,
                  "loadgen_release": lr.installed_release(), "expected_seeds": expected,
                  "expected_test05_seeds": seeds.get("test05_seeds"), "layout": layout}
        shutil.rmtree(os.path.join(tmp, "work"), ignore_errors=True)  # before verifying: in a v6.0+ run folder
        findings, passed = verify_run_folder(tmp, record)              # it would sit beside the TEST0x folder
        outcome = AuditOutcome(plan.test, passed, str(out_path), [f.to_dict() for f in findings], figures,
                               round(time.monotonic() - started, 3), round_name, round_reason, notes)
        with open(os.path.join(tmp, "verdict.json"), "w", encoding="utf-8") as handle:
            json.dump({**asdict(outcome), **record}, handle, indent=2, sort_keys=True, default=str)
        os.rename(tmp, out_path)
        return outcome
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _arrange(test: str, tmp: str, test_dir: str) -> None:
    """Move the LoadGen outputs into the official layout."""
    if test in ("TEST01", "TEST07", "TEST08", "TEST09"):  # the logged outputs go to TEST0x/accuracy/
        run = os.path.join(test_dir, "performance", "run_1")
        acc_dir = os.path.join(test_dir, "accuracy")
        os.makedirs(acc_dir, exist_ok=True)
        os.replace(os.path.join(run, "mlperf_log_accuracy.json"), os.path.join(acc_dir, "mlperf_log_accuracy.json"))
        digest = _sha256(os.path.join(acc_dir, "mlperf_log_accuracy.json"))
        with open(os.path.join(acc_dir, "accuracy.txt"), "w", encoding="utf-8") as handle:
            handle.write(f"hash={digest}\n")
    for root, _, files in os.walk(tmp):
        for name in files:
            if name == "mlperf_log_trace.json" or (
                name == "mlperf_log_accuracy.json" and root.endswith(os.path.join("performance", "run_1"))
            ):
                os.remove(os.path.join(root, name))
    if test == "TEST06":
        acc = os.path.join(test_dir, "accuracy")
        for name in ("mlperf_log_summary.txt", "mlperf_log_detail.txt"):
            path = os.path.join(acc, name)
            if os.path.exists(path):
                os.remove(path)


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _write_verify_files(plan: RunPlan, spec, model: str, factory, results: str, test_dir: str) -> dict:
    """Write the test's verify files into ``test_dir``; ``results`` holds the reference and accuracy runs."""
    from checker.audit import verify_tests as vt
    from checker.audit.compliance import AccuracyLogReader
    from checker.loaders.loadgen_log import parse_summary_log

    rule = spec.tests[plan.test]
    figures: dict = {}
    if rule.performance is not None:
        ref = parse_summary_log(os.path.join(results, "performance", "run_1", "mlperf_log_summary.txt"))
        test = parse_summary_log(os.path.join(test_dir, "performance", "run_1", "mlperf_log_summary.txt"))
        verdict = vt.verify_performance(plan.test, rule.performance, ref, test, plan.scenario)
        figures["performance"] = asdict(verdict)
        lines = ["Verifying performance."]
        if verdict.compared_reference is not None and verdict.compared_test is not None:
            lines += [f"reference score = {verdict.compared_reference:.10g}", f"test score = {verdict.compared_test:.10g}"]
        lines += [f"mlpc: {reason}" for reason in verdict.reasons]
        lines.append("TEST PASS" if verdict.passed else "TEST FAIL")
        with open(os.path.join(test_dir, "verify_performance.txt"), "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    if plan.test == "TEST01":
        acc = AccuracyLogReader(os.path.join(results, "accuracy", "mlperf_log_accuracy.json"))
        perf = AccuracyLogReader(os.path.join(test_dir, "accuracy", "mlperf_log_accuracy.json"))
        verdict01 = vt.verify_test01_outputs(acc, perf)
        figures["accuracy"] = asdict(verdict01)
        with open(os.path.join(test_dir, "verify_accuracy.txt"), "w", encoding="utf-8") as handle:
            handle.write(vt.render_test01_accuracy(verdict01))
    if plan.test == "TEST06":
        llm = rule.llm_output
        reader = AccuracyLogReader(os.path.join(test_dir, "accuracy", "mlperf_log_accuracy.json"))
        verdict06 = vt.verify_test06(reader, plan.scenario, llm.eos_token_id.get(model, 2), llm)
        figures["llm_output"] = asdict(verdict06)
        with open(os.path.join(test_dir, "verify_accuracy.txt"), "w", encoding="utf-8") as handle:
            handle.write(vt.render_test06_accuracy(verdict06))
    if plan.test in ("TEST07", "TEST08", "TEST09"):
        from checker.audit import runner_v6

        if plan.test == "TEST07":
            figures["accuracy"] = runner_v6.write_test07(factory(), rule, model, results, test_dir)
        elif plan.test == "TEST08":
            figures["accuracy"] = runner_v6.write_test08(rule, results, test_dir)
        else:
            figures["output_length"] = runner_v6.write_test09(rule, model, test_dir)
    return figures


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--worker":
        # run through the importable module, so that SUTs and the worker share the same classes
        from checker.audit import runner as module

        return module._worker(json.loads(argv[1]))
    sys.stderr.write("usage: python -m checker.audit.runner --worker JOB_JSON (internal)\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
