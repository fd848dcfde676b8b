"""Plausibility checks (PL): is a closed result consistent with the known characteristics of its hardware?

These are round-scope checks: they compare results with each other (peers, Server against Offline), so
they run once over every result of the checked tree (:class:`~checker.context.RoundCtx`) after all
submitters were checked. The engine's result summaries become audit :class:`Submission` rows
(checker/audit/from_report.py) and go through the plausibility maths of
checker/metrics/plausibility.py with the shipped tables (rules/hardware.yaml, rules/work_per_sample.yaml,
thresholds included). Nothing here reads a file.

What is assessed: every *valid* result of the *closed* division that has a value (an invalid result is
already rejected and will not be published; its value is not used as a peer either). Peers come from
the checked tree only; `mlpc audit nominate --reference PREV` adds a previous round as peers.

Flags are "needs explanation", never "cheating" (docs/plausibility.md §2.6): the rules allow
mathematically equivalent fast algorithms and sparsity, and spec tables and system JSONs contain errors.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from checker.checks.base import check, finding
from checker.checks.memo import per_context

if TYPE_CHECKING:
    from checker.metrics.plausibility import Assessment, Place, Roofline
    from checker.models.audit_inputs import Submission
# (the assessment's modules and its tables are imported where the round checks run: in the main process after the
# workers, which never use them; checker.pipeline._prepare loads the tables while they run. The assessment is made
# of records, checker.models.assessment_shapes: a check imports no pydantic for it)

DETAIL_LOG = "performance/run_1/mlperf_log_detail.txt"


@dataclass(frozen=True, slots=True)
class _System:
    """What the findings say of a system (one per Submission, shared by its results)."""

    id: str
    division: str
    submitter: str
    system_id: str
    has_accelerator: bool
    accelerator_count: int | None

    @classmethod
    def of(cls, s: Submission) -> _System:
        return cls(s.id, s.division, s.submitter, s.system_id, s.has_accelerator, s.accelerator_count)


@dataclass(slots=True)
class _Row:
    """One assessed result, as much of its :class:`Assessment` as a PL finding can say (the roofline only
    when its utilisation is above the warning threshold), plus its peer and Server/Offline terms."""

    result_id: str
    system: _System
    model: str
    scenario: str
    value: float
    units: str
    accelerator: str
    status: str
    reason: str | None
    unknown_hardware: bool
    utilisation: float | None
    roofline: Roofline | None
    place: Place | None
    per_accelerator: float | None = None
    peer_ratio: float | None = None
    peer_count: int = 0
    server_offline_ratio: float | None = None


@dataclass(frozen=True)
class _Round:
    """The round's assessment: the rows a PL check can report, the thresholds and the Offline values."""

    rows: tuple[_Row, ...]
    thresholds: object
    offline: dict  # (submission id, model key) -> (value, units, result id)
    any_assessed: bool


def _row(rid: str, system: _System, a: Assessment, place: Place, threshold: float, texts: dict) -> _Row:
    """The row of one assessment; equal texts (names, units, reasons: the same for many results) are
    held once through ``texts``."""
    reason = texts.setdefault(a.reason, a.reason) if a.reason is not None else None
    unknown = any(f.name == "unknown-hardware" for f in a.flags) or "ambiguous hardware" in (reason or "")
    u = a.utilisation
    return _Row(rid, system, sys.intern(a.model), sys.intern(a.scenario), a.value, sys.intern(a.units),
                sys.intern(a.accelerator), a.status, reason, unknown, u,
                a.roofline if u is not None and u > threshold else None, place)


def _flagged(row: _Row, th) -> bool:
    """Whether any PL check can report the row."""
    return (row.status == "no-assessment" or (row.utilisation is not None and row.utilisation > th.utilisation_warning)
            or (row.peer_ratio is not None and row.peer_ratio > th.peer_ratio_warning)
            or (row.server_offline_ratio is not None and row.server_offline_ratio > th.server_offline_warning))


class RoundPart:
    """The part of the assessment (:func:`_round`) that follows from one submitter's results alone, computed
    submitter by submitter as their summaries come (:meth:`add`, one submitter folder's summaries a call): the
    Submissions, each result's assessment (:func:`assess_result`) and row, the peer groups and the Offline
    values. What compares the submitters (the peer and Server/Offline terms, which rows a check can report,
    their order) is left to :meth:`finish`.

    ``checker.pipeline`` fills one while the workers check the submitters and hands it to the round checks
    (``RoundCtx.precomputed``); :func:`_round` uses it only when it covers exactly the round's results
    (:meth:`covers`), and assesses them itself otherwise. The order the submitters come in does not matter:
    a Submission is made of one submitter folder's results (grouped by division, submitter and system, as
    ``iter_submissions`` groups them), a peer median does not depend on the order of the peers, and the
    rows are sorted by result id. A call whose summaries are not all of one submitter folder, a folder given
    twice, or an exception while adding leaves the part unusable (``usable``)."""

    def __init__(self, rules) -> None:
        self.rules = rules
        self.usable = True
        self._fed: list = []  # every summary added (of any division), to compare with the round's
        self._folders: set = set()  # the (division, submitter) of every call
        self._tables = None  # (hardware, work) as the first call found them
        self._helpers: tuple = ()
        self._peers = None
        self._offline: dict = {}  # (submission id, model key) -> (value, units, result id)
        self._rows: list[_Row] = []
        self._texts: dict = {}
        self._any_assessed = False

    def add(self, summaries: list) -> None:
        """Add the summaries of one submitter folder (a list); a failure makes the part unusable (:func:`_round`
        then assesses the round itself, and meets the failure where the checks report it)."""
        if not self.usable:
            return
        try:
            self._add(summaries)
        except Exception:  # noqa: BLE001 - met again by the plain assessment, which reports it
            self._drop()

    def _add(self, summaries, track: bool = True) -> None:
        """``track``: note what was added, for :meth:`covers` (not needed where the part is finished at once)."""
        if track and summaries:
            # one submitter folder a call, each once: no Submission is split across calls (iter_submissions
            # groups by division, submitter and system)
            division, submitter = summaries[0].division, summaries[0].submitter
            if (division, submitter) in self._folders or not all(
                    s.division == division and s.submitter == submitter for s in summaries):
                self._drop()
                return
            self._folders.add((division, submitter))
            self._fed += summaries
        if self._tables is None:  # (imported once: an import statement costs a call to add about 10 us)
            from checker.audit.from_report import iter_submissions
            from checker.loaders.hardware import default_tables
            from checker.metrics.plausibility import Peers, assess_result
            from checker.models.audit_methods import normalise_text

            self._tables = default_tables()
            self._peers = Peers()
            self._helpers = (iter_submissions, assess_result, normalise_text)
        iter_submissions, assess_result, normalise_text = self._helpers
        hardware, work = self._tables
        threshold = work.thresholds.utilisation_warning
        peers, offline, rows, texts = self._peers, self._offline, self._rows, self._texts
        any_assessed = self._any_assessed
        for sub, ids in iter_submissions(summaries, self.rules, valid_only=True, divisions=("closed",)):
            system = _System.of(sub)
            for r, place in zip(sub.results, peers.add(sub)):
                rid = ids.get(r.key)
                if normalise_text(r.scenario) == "offline":
                    offline[(sub.id, normalise_text(r.model))] = (r.value, r.units, rid)
                if rid is None:
                    continue
                a = assess_result(sub, r, hardware, work)
                any_assessed = any_assessed or a.status == "assessed"
                rows.append(_row(rid, system, a, place, threshold, texts))
        self._any_assessed = any_assessed

    def _drop(self) -> None:
        self.usable = False
        self._fed, self._folders, self._peers, self._offline, self._rows, self._texts = [], set(), None, {}, [], {}

    def covers(self, results, rules) -> bool:
        """Whether the part holds exactly ``results`` (the same summary objects, as many times) under
        ``rules`` and the shipped tables as they are now, and is not finished yet."""
        if not self.usable or rules is not self.rules or len(results) != len(self._fed):
            return False
        if self._tables is not None:
            from checker.loaders.hardware import default_tables

            if default_tables() is not self._tables:
                return False
        fed = set(map(id, self._fed))
        return len(fed) == len(self._fed) and fed == set(map(id, results))

    def finish(self) -> _Round:
        """The round's assessment: the peer and Server/Offline terms of every row, the rows a check can
        report sorted by result id. Once: the part is then emptied."""
        if self._tables is None:  # (nothing was added)
            from checker.loaders.hardware import default_tables

            self._tables = default_tables()
        th = self._tables[1].thresholds
        peers = self._peers
        kept = []
        for row in self._rows:
            rel = peers.relative(row.place, th)
            row.place = None
            row.per_accelerator, row.peer_ratio = rel.per_accelerator, rel.peer_ratio
            row.peer_count, row.server_offline_ratio = rel.peer_count, rel.server_offline_ratio
            if _flagged(row, th):
                kept.append(row)
        kept.sort(key=lambda r: r.result_id)
        state = _Round(rows=tuple(kept), thresholds=th, offline=self._offline, any_assessed=self._any_assessed)
        self._drop()
        return state


@per_context
def _round(ctx, rules) -> _Round:
    """The assessment of every closed valid result, computed once per RoundCtx (the five PL checks
    share it; the pipeline forgets it when the round checks are done). The Submissions are built and
    assessed one at a time; what is kept of each result is a small :class:`_Row`, and after the peer
    terms are known only the rows a check can report. A :class:`RoundPart` the pipeline filled as the
    submitters were checked (``ctx.precomputed``) is finished instead when it covers exactly these results."""
    part = (getattr(ctx, "precomputed", None) or {}).get("plausibility")
    if not (isinstance(part, RoundPart) and part.covers(ctx.results, rules)):
        part = RoundPart(rules)
        part._add(ctx.results, track=False)  # (not add: a failure here is the checks' to report)
    return part.finish()


def _log(row: _Row) -> str:
    return f"{row.result_id}/{DETAIL_LOG}"


def _system_json(system: _System) -> str:
    return f"{system.division}/{system.submitter}/systems/{system.system_id}.json"


def _what(row: _Row) -> str:
    return f"{row.model} {row.scenario} = {row.value:g} {row.units}"


def _roofline_data(row: _Row) -> dict:
    r = row.roofline
    data = dict(utilisation=round(r.utilisation, 6), bound=r.bound,
                compute_utilisation=round(r.compute_utilisation, 6), accelerators=r.accelerators,
                hardware=r.hardware_key, precision=r.precision, peak_tops_per_accelerator=r.peak_tops,
                work_gflop_per_sample=round(r.work_gflop_per_sample, 6), value=row.value, units=row.units)
    if r.bandwidth_utilisation is not None:
        data["bandwidth_utilisation"] = round(r.bandwidth_utilisation, 6)
    if r.output_tokens is not None:
        data["output_tokens_per_sample"] = round(r.output_tokens, 4)
    if r.samples_per_second is not None:
        data["samples_per_second"] = round(r.samples_per_second, 6)
    if r.latency_s is not None:
        data["latency_s"] = r.latency_s
    return data


def _utilisation(ctx, rules, level: str):
    state = _round(ctx, rules)
    th = state.thresholds
    for row in state.rows:
        u = row.utilisation
        if u is None:
            continue
        if level == "error" and not u > th.utilisation_error:
            continue
        if level == "warning" and not (th.utilisation_warning < u <= th.utilisation_error):
            continue
        limit = th.utilisation_error if level == "error" else th.utilisation_warning
        sparse = " (even twice the dense peak, as 2:4 sparsity would give, is exceeded)" if u / 2 > 1 else ""
        yield finding(
            _log(row),
            f"{_what(row)}: {row.roofline.line} is above {limit:g}{sparse}",
            expected=f"U <= {limit:g}", actual=f"U = {u:.3f}",
            hint=("explain how the throughput exceeds the dense peak (a fast algorithm or mathematically "
                  "equivalent sparsity the rules allow), or correct the system description "
                  "(accelerator_model_name, accelerators_per_node, number_of_nodes)") if level == "error" else
                 ("no action needed if the result is genuine; reviewers may ask how it was achieved "
                  "(v4.1 maximum: 0.552)"),
            result_id=row.result_id, threshold=limit, **_roofline_data(row))


@check("PL001", "utilisation-needs-explanation", "round", stricter=True)
def utilisation_needs_explanation(ctx, rules):
    """A closed result's throughput exceeds what its accelerators' dense peak can deliver.

    What it checks: for every valid closed result, the compute-roofline utilisation
    U = X / (n x P / F) — X the measured samples/s (a tokens/s result divided by the output tokens per
    sample), n = accelerators_per_node x number_of_nodes (sockets for a CPU-only system), P the best
    dense FP4/FP8/INT8 peak per accelerator, F the minimum work per sample the closed rules require;
    for SingleStream / MultiStream U = (q x F / (n x P)) / latency, and for LLM latency results the
    batch-1 decode memory bound when it binds. The finding fires when U is above
    `thresholds.utilisation_error` (1.0). Its data carries every input.
    Why: rules FAQ 9.6 ("the submission's performance is not consistent with the known or expected
    characteristics of the hardware" makes an audit more likely) and rules 2.8 (nominations for audit
    give "performance outside of expectations" as a reason). No v4.1 closed result exceeds 0.552
    (docs/plausibility.md §0, §4.1). U above 1 needs an explanation; it is not proof of a violation
    (fast convolution algorithms and equivalent sparsity are allowed, spec tables and system
    descriptions can be wrong) — the round file grades it.
    Failing example: ResNet50 Offline at 300,000 samples/s on one NVIDIA H200 (U = 300000 x 8.18 GFLOP /
    1979 TOPS = 1.24).
    How to fix: correct the accelerator name or count in the system description if it is wrong;
    otherwise document how the result exceeds the dense peak for the reviewers.
    Data used: rules/hardware.yaml (`peak_tops`, `match_all`, `match_none`), rules/work_per_sample.yaml
    (`benchmarks`, `assumptions`, `thresholds.utilisation_error`), the round's `result_fields` and
    models' `result_field` (tokens or samples).
    Stricter than official: yes (the official checker has no plausibility check).
    """
    yield from _utilisation(ctx, rules, "error")


@check("PL002", "utilisation-high", "round", stricter=True)
def utilisation_high(ctx, rules):
    """A closed result runs its accelerators closer to their dense peak than any published result has.

    What it checks: the PL001 utilisation U is above `thresholds.utilisation_warning` (0.75) but not
    above `thresholds.utilisation_error` (those get PL001).
    Why: rules FAQ 9.6 and 2.8 as PL001. The highest U of the 802 v4.1 closed results is 0.552
    (NVIDIA 1xH200-CTS Llama2-70B Offline); 0.75 leaves a 35 % margin (docs/plausibility.md §5).
    Failing example: ResNet50 Offline at 200,000 samples/s on one NVIDIA H200 (U = 0.83).
    How to fix: nothing if the result is genuine; be ready to explain it to the reviewers.
    Data used: as PL001, with `thresholds.utilisation_warning`.
    Stricter than official: yes (the official checker has no plausibility check).
    """
    yield from _utilisation(ctx, rules, "warning")


@check("PL003", "peer-ratio-high", "round", stricter=True)
def peer_ratio_high(ctx, rules):
    """A closed result's per-accelerator throughput is far above the median of its same-SKU peers.

    What it checks: for every valid closed throughput result (Offline, Server, Interactive), the
    per-accelerator throughput divided by the median of the other results of the checked tree with the
    same model (accuracy target included), scenario, unit, accelerator name and power mode ("maxq" in
    the system name or not). The ratio needs at least `thresholds.peer_min_count` (3) peers; the finding
    fires above `thresholds.peer_ratio_warning` (1.3).
    Why: rules FAQ 9.6 and 2.8 as PL001. Same-SKU results cluster tightly: in v4.1 no result exceeds
    1.20x the median of its peers (528 results in groups of 3 or more), while an inflation of 1.3x is
    caught half of the time and 1.5x 94 % of the time (docs/plausibility.md §0.5, §4.5).
    Failing example: four 4xL40S systems with ResNet50 Offline at 40,000 / 40,000 / 42,000 / 60,000
    samples/s: the last is 1.5x the median of the other three.
    How to fix: nothing if the result is genuine (a newer software release, a higher power limit);
    explain it in the system notes. If the accelerator count is under-reported, correct it.
    Data used: rules/work_per_sample.yaml (`thresholds.peer_ratio_warning`, `thresholds.peer_min_count`),
    the system descriptions' accelerator fields.
    Stricter than official: yes (the official checker has no plausibility check).
    """
    state = _round(ctx, rules)
    th = state.thresholds
    for row in state.rows:
        if row.peer_ratio is None or not row.peer_ratio > th.peer_ratio_warning:
            continue
        median = row.per_accelerator / row.peer_ratio
        yield finding(
            _log(row),
            f"per-accelerator throughput {row.per_accelerator:.6g} {row.units} is {row.peer_ratio:.2f}x the median "
            f"{median:.6g} of {row.peer_count} peers (same model, scenario, accelerator "
            f"{row.accelerator!r} and power mode) for {_what(row)}",
            expected=f"ratio <= {th.peer_ratio_warning:g}", actual=f"ratio = {row.peer_ratio:.3f}",
            hint="no action needed if the result is genuine; reviewers may ask what differs from the peers",
            result_id=row.result_id, peer_ratio=round(row.peer_ratio, 6), peer_count=row.peer_count,
            peer_median=round(median, 6), per_accelerator=round(row.per_accelerator, 6),
            accelerators=row.system.accelerator_count, accelerator=row.accelerator,
            threshold=th.peer_ratio_warning, value=row.value, units=row.units)


@check("PL004", "server-offline-ratio-high", "round", stricter=True)
def server_offline_ratio_high(ctx, rules):
    """A closed Server result is well above the Offline result of the same system and model.

    What it checks: for every valid closed Server result with a valid Offline result of the same system
    and model (same unit), Server / Offline is at most `thresholds.server_offline_warning` (1.10).
    Why: rules FAQ 9.6 and 2.8 as PL001. A server with batching cannot sustain more than its
    asymptotic (Offline) rate (Inoue's batch-service queue: stability needs lambda x alpha < 1); separately
    tuned runs exceed it a little (30 of 380 v4.1 pairs exceed 1.0, the maximum is 1.052, none
    exceeds 1.10; docs/plausibility.md §2.5, §4.4).
    Failing example: ResNet50 Server 120,000 queries/s with Offline 100,000 samples/s (ratio 1.20).
    How to fix: check that both runs used the same system and software; a Server run that truly beats
    Offline usually means the Offline run was not tuned — rerun it.
    Data used: rules/work_per_sample.yaml (`thresholds.server_offline_warning`).
    Stricter than official: yes (the official checker has no plausibility check).
    """
    from checker.models.audit_methods import normalise_text

    state = _round(ctx, rules)
    th = state.thresholds
    for row in state.rows:
        so = row.server_offline_ratio
        if so is None or not so > th.server_offline_warning:
            continue
        offline, units, offline_id = state.offline.get((row.system.id, normalise_text(row.model)),
                                                       (None, None, None))
        yield finding(
            _log(row),
            f"Server / Offline = {so:.3f} > {th.server_offline_warning:g} for {row.model}: Server "
            f"{row.value:g} {row.units} vs Offline {offline or 0:g} {units or row.units} ({offline_id or 'Offline'})",
            expected=f"Server / Offline <= {th.server_offline_warning:g}", actual=f"{so:.3f}",
            hint="check that the Server and Offline runs used the same system and software; tune the "
                 "Offline run",
            result_id=row.result_id, server_offline_ratio=round(so, 6), server=row.value, offline=offline,
            offline_result=offline_id, units=row.units, threshold=th.server_offline_warning)


@check("PL005", "no-assessment", "round")
def no_assessment(ctx, rules):
    """No plausibility bound could be computed for a closed result (unknown accelerator or benchmark).

    What it checks: a valid closed result gets no roofline utilisation because its accelerator (or,
    for a CPU-only system, its host CPU) has no sourced entry in rules/hardware.yaml, the name matches
    two entries, the accelerator count is unknown, the benchmark has no minimum-work figure in
    rules/work_per_sample.yaml (3D-UNet, Llama3.1, Whisper, ...), or its unit cannot be converted. The
    bound is never guessed. Reported only when the checked tree has at least one assessed closed
    result, i.e. as the gaps of a round's plausibility table.
    Why: rules 2.8 ("Any systems with new accelerators are added to the list by the chairs if not
    nominated"): an accelerator without figures is itself an audit-list item, and the reviewers should
    know which results the plausibility table does not cover.
    Failing example: a closed ResNet50 Offline result on a "Mystery X1" accelerator next to results on
    an NVIDIA H200.
    How to fix: nothing is wrong with the result. To cover the accelerator, add its dense peaks with a
    source to rules/hardware.yaml (or the benchmark's work to rules/work_per_sample.yaml).
    Data used: rules/hardware.yaml, rules/work_per_sample.yaml.
    Stricter than official: no (informational).
    """
    state = _round(ctx, rules)
    if not state.any_assessed:
        return
    for row in state.rows:
        if row.status != "no-assessment":
            continue
        sub = row.system
        if row.unknown_hardware:
            pointer = "/accelerator_model_name" if sub.has_accelerator else "/host_processor_model_name"
            path, where = _system_json(sub), f" ({row.result_id})"
        else:
            pointer, path, where = None, _log(row), ""
        yield finding(
            path, f"no plausibility assessment for {_what(row)}{where}: {row.reason}",
            expected="an accelerator and a benchmark with sourced figures", actual=row.reason,
            hint="add a sourced entry to rules/hardware.yaml or rules/work_per_sample.yaml to cover it",
            pointer=pointer, result_id=row.result_id, reason=row.reason, accelerator=row.accelerator,
            model=row.model, scenario=row.scenario)


CHECKS = (utilisation_needs_explanation, utilisation_high, peer_ratio_high, server_offline_ratio_high,
          no_assessment)
