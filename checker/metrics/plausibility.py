"""Performance plausibility: is a result consistent with the known characteristics of the hardware?

Rules FAQ §9.6 names this as the first audit trigger. The bounds, their validation on the 802
v4.1 closed results and the thresholds are those of ``docs/plausibility.md``; the numbers live in
``rules/hardware.yaml`` and ``rules/work_per_sample.yaml``. Pure maths, no IO: the tables are
passed in (``checker/loaders/hardware.py`` loads them).

Formulas (SI units: samples/s, FLOP/s, FLOP, seconds, bytes/s)
---------------------------------------------------------------

* Compute roofline, throughput scenarios (Offline, Server, Interactive):
  ``U = X / (n · P / F) = X · F / (n · P)``.
* Compute roofline, latency scenarios: ``ℓ_min = q · F / (n · P)`` and ``U = ℓ_min / ℓ``, with
  q = 1 for SingleStream and 8 samples per query for MultiStream.
* Batch-1 decode memory bound, LLM latency scenarios: ``ℓ ≥ L_out · W / (n · B_W)`` with W the
  weight bytes at 4 bits per parameter; its utilisation is reported when it binds (it is larger
  than the compute one), as for GPT-J SingleStream on Jetson Orin (plausibility.md §2.4).
* LLM work per sample (plausibility.md §2.2): see :func:`llm_work_per_sample`. A tokens/s result
  is turned into samples/s with the run's own ``L_out = tokens/s ÷ samples/s`` when both are
  known, else with the reference output length.
* ``n`` is ``accelerators_per_node × number_of_nodes``; for CPU-only systems the socket count.
  ``P`` is the best *dense* peak among FP4 (where supported), FP8 and INT8 — never the
  self-declared precision and never a sparse figure.
* Peer ratio: the result's per-accelerator throughput over the median of its peers (same model,
  scenario, units, accelerator name and power mode, the result itself left out); ``None`` with
  fewer than ``peer_min_count`` (3) peers. Power mode: ``maxq`` when the system id contains
  "maxq" (case-insensitive), else ``default``.
* Server/Offline: ``S / O`` of the same submission and model, in the same units.
* Audit-priority score: ``max(U / 0.75, R / 1.3, S/O / 1.10)`` over the available terms, with
  the driving term named; ≥ 1 means a flag fired.

Flags are phrased "needs explanation", never "invalid" (plausibility.md §2.6, §5): the rules allow
Winograd-style convolutions and mathematically equivalent sparsity, and spec tables and system
JSONs contain errors.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from checker.models.assessment_shapes import ASSESSMENT, FLAG, ROOFLINE
from checker.models.audit_methods import normalise_text

if TYPE_CHECKING:  # (the tables and the results are records here: checker.models.record; no pydantic)
    from checker.models.assessment import Assessment, Flag, Roofline
    from checker.models.audit_inputs import ScenarioResult, Submission
    from checker.models.hardware_tables import FixedWork, HardwareEntry, HardwareTable, LlmWork, Thresholds, WorkTable

TERA = 1e12
GIGA = 1e9
THROUGHPUT_SCENARIOS = frozenset({"offline", "server", "interactive"})
LATENCY_SCENARIOS = frozenset({"singlestream", "multistream"})


# --------------------------------------------------------------------------------------------
# formulas


def roofline_utilisation(throughput: float, accelerators: int, peak_per_accel: float,
                         work_per_sample: float) -> float:
    """``U = X · F / (n · P)``: throughput in samples/s, peak in FLOP/s (or OP/s) per accelerator,
    work in FLOP (or OP) per sample."""
    if accelerators <= 0 or peak_per_accel <= 0 or work_per_sample <= 0:
        raise ValueError("accelerators, peak and work must be positive")
    if throughput < 0:
        raise ValueError("throughput must be non-negative")
    return throughput * work_per_sample / (accelerators * peak_per_accel)


def latency_lower_bound(accelerators: int, peak_per_accel: float, work_per_sample: float,
                        samples_per_query: int = 1) -> float:
    """``ℓ_min = q · F / (n · P)`` in seconds."""
    if accelerators <= 0 or peak_per_accel <= 0 or work_per_sample <= 0:
        raise ValueError("accelerators, peak and work must be positive")
    return samples_per_query * work_per_sample / (accelerators * peak_per_accel)


def latency_utilisation(latency_s: float, accelerators: int, peak_per_accel: float,
                        work_per_sample: float, samples_per_query: int = 1) -> float:
    """``U = ℓ_min / ℓ``."""
    if latency_s <= 0:
        raise ValueError("latency must be positive")
    return latency_lower_bound(accelerators, peak_per_accel, work_per_sample,
                               samples_per_query) / latency_s


def llm_work_per_sample(matmul_params: float, input_tokens: float, output_tokens: float,
                        layers: int, attention_dim: int, beams: int = 1) -> float:
    """FLOP per sample (plausibility.md §2.2), the prompt prefilled once::

        2N·L_in + 4·d·ℓ·L_in²/2  +  beams · [2N·L_out + 4·d·ℓ·L_out·(L_in + L_out/2)]
    """
    two_n = 2.0 * matmul_params
    att = 4.0 * attention_dim * layers
    prefill = two_n * input_tokens + att * input_tokens ** 2 / 2.0
    decode = two_n * output_tokens + att * output_tokens * (input_tokens + output_tokens / 2.0)
    return prefill + beams * decode


def decode_bandwidth_latency_bound(weight_bytes: float, output_tokens: float, accelerators: int,
                                   bandwidth_bytes_per_s: float) -> float:
    """Batch-1 decode: every step reads every weight once: ``ℓ ≥ L_out · W / (n · B_W)``."""
    if accelerators <= 0 or bandwidth_bytes_per_s <= 0:
        raise ValueError("accelerators and bandwidth must be positive")
    return output_tokens * weight_bytes / (accelerators * bandwidth_bytes_per_s)


def median(values: list[float]) -> float:
    """``statistics.median`` of a non-empty list, without importing ``statistics`` (with ``fractions`` and
    ``decimal``: about 4 ms of a check's start-up)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def peer_ratio(value: float, peers: Iterable[float], min_peers: int = 3) -> float | None:
    """``value / median(peers)``; ``None`` with fewer than ``min_peers`` peers. The caller leaves
    the result itself out of ``peers``."""
    ps = [p for p in peers]
    if len(ps) < min_peers:
        return None
    med = median(ps)
    if med <= 0:
        return None
    return value / med


def server_offline_ratio(server: float, offline: float) -> float:
    """``S / O`` (both throughputs in the same units)."""
    if offline <= 0:
        raise ValueError("offline throughput must be positive")
    return server / offline


def priority_score(utilisation: float | None, peer: float | None, server_offline: float | None,
                   thresholds: Thresholds) -> tuple[float | None, str | None]:
    """``max(U/0.75, R/1.3, S/1.10)`` over the available terms, and the name of the driving term."""
    terms = []
    if utilisation is not None:
        terms.append((utilisation / thresholds.utilisation_warning, "utilisation"))
    if peer is not None:
        terms.append((peer / thresholds.peer_ratio_warning, "peer ratio"))
    if server_offline is not None:
        terms.append((server_offline / thresholds.server_offline_warning, "server/offline"))
    if not terms:
        return None, None
    best = max(terms, key=lambda t: t[0])
    return best


# --------------------------------------------------------------------------------------------
# structured assessment (records of checker.models.assessment's models: checker.models.assessment_shapes)

_MODELS = ("Flag", "Roofline", "Assessment")


def __getattr__(name: str):
    # the assessment's validating models, where a caller asks this module for them (they import pydantic)
    if name in _MODELS:
        from checker.models import assessment

        return getattr(assessment, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def power_mode(s: Submission) -> str:
    return "maxq" if "maxq" in normalise_text(s.system_id).replace(" ", "") else "default"


def _hardware_for(s: Submission, hw: HardwareTable) -> tuple[HardwareEntry | None, str, str]:
    """(entry, name looked up, reason if None)."""
    if s.has_accelerator:
        name, kind = s.accelerator_model_name or "", "accelerator"
    else:
        name, kind = s.host_processor_model_name or "", "cpu"
    found = hw.lookup(name, kind)
    if not found:
        return None, name, (f"unknown hardware {name!r}: no sourced figure in rules/hardware.yaml"
                            " (a new accelerator is itself an audit-list item, rules §2.8)")
    if len(found) > 1:
        return None, name, (f"ambiguous hardware {name!r}: matches "
                            + ", ".join(e.key for e in found))
    return found[0], name, ""


def _output_tokens(r: ScenarioResult, w: LlmWork) -> float:
    if r.units == "tokens/s" and r.samples_per_second:
        return r.value / r.samples_per_second
    return w.reference_output_tokens


def _samples_per_second(r: ScenarioResult, w: FixedWork | LlmWork, l_out: float | None
                        ) -> float | None:
    if r.units in ("samples/s", "queries/s"):
        return r.value
    if r.units == "tokens/s" and w.kind == "llm" and l_out:
        return r.samples_per_second if r.samples_per_second else r.value / l_out
    return None


def assess_result(s: Submission, r: ScenarioResult, hardware: HardwareTable,
                  work: WorkTable) -> Assessment:
    """Roofline utilisation and its flags for one result (no peers, no Server/Offline)."""
    base = dict(submission_id=s.id, submitter=s.submitter, system_id=s.system_id,
                accelerator=(s.accelerator_model_name if s.has_accelerator
                             else s.host_processor_model_name) or "",
                model=r.model, scenario=r.scenario, value=r.value, units=r.units)
    entry, name, why = _hardware_for(s, hardware)
    if entry is None:
        return ASSESSMENT.make(**base, status="no-assessment", reason=why,
                               flags=(FLAG.make(level="info", name="unknown-hardware", message=why),))
    w = work.lookup(r.model)
    if w is None:
        return ASSESSMENT.make(**base, status="no-assessment",
                               reason=f"no minimum-work figure for model {r.model!r} in "
                                      "rules/work_per_sample.yaml")
    n = s.accelerator_count
    if not n:
        return ASSESSMENT.make(**base, status="no-assessment",
                               reason="accelerator (or socket) count unknown in the system description")
    peak = entry.roofline_peak()
    if peak is None:
        return ASSESSMENT.make(**base, status="no-assessment",
                               reason=f"{entry.key}: no dense FP4/FP8/INT8 peak in rules/hardware.yaml")
    precision, peak_tops = peak
    scen = normalise_text(r.scenario)
    l_out = _output_tokens(r, w) if w.kind == "llm" else None
    if w.kind == "llm":
        f = llm_work_per_sample(w.matmul_params, w.input_tokens, l_out or 0.0, w.layers,
                                w.attention_dim, w.beams)
    else:
        f = w.gflop_per_sample * GIGA
    p = peak_tops * TERA
    bw_u: float | None = None
    x: float | None = None
    lat: float | None = None
    per_acc: float | None = None
    if scen in THROUGHPUT_SCENARIOS and not r.is_latency:
        x = _samples_per_second(r, w, l_out)
        if x is None:
            return ASSESSMENT.make(**base, status="no-assessment",
                                   reason=f"units {r.units!r} cannot be converted to samples/s for "
                                          f"{w.key}")
        u = roofline_utilisation(x, n, p, f)
        per_acc = r.value / n
    elif scen in LATENCY_SCENARIOS and r.is_latency:
        q = work.assumptions.multistream_samples_per_query if scen == "multistream" else 1
        lat = r.value / 1000.0
        u = latency_utilisation(lat, n, p, f, q)
        if w.kind == "llm" and entry.memory_bandwidth_gbps and l_out:
            wb = w.total_params * work.assumptions.min_weight_bytes_per_param
            bw_u = decode_bandwidth_latency_bound(
                wb, l_out, n, entry.memory_bandwidth_gbps * GIGA) / lat
    else:
        return ASSESSMENT.make(**base, status="no-assessment",
                               reason=f"scenario {r.scenario!r} with units {r.units!r} not covered")
    bound: Literal["compute", "decode-bandwidth"] = "compute"
    util = u
    if bw_u is not None and bw_u > u:
        bound, util = "decode-bandwidth", bw_u
    unit = "token" if w.kind == "llm" else "sample"
    f_shown = f / (l_out or 1.0) if w.kind == "llm" else f
    line = (f"roofline utilisation U = {util:.3f} [{entry.key} ×{n}, {precision.upper()} dense "
            f"{peak_tops:g} TOPS, F = {f_shown / GIGA:.4g} GFLOP/{unit}"
            + (f", L_out = {l_out:.1f}" if l_out else "")
            + (f"; bound: {bound}" if bound != "compute" else "") + "]")
    roof = ROOFLINE.make(utilisation=util, bound=bound, compute_utilisation=u,
                         bandwidth_utilisation=bw_u, accelerators=n, hardware_key=entry.key,
                         precision=precision, peak_tops=peak_tops, work_gflop_per_sample=f / GIGA,
                         output_tokens=l_out, samples_per_second=x, latency_s=lat, line=line)
    th = work.thresholds
    flags: list[Flag] = []
    if util > th.utilisation_error:
        extra = (" — even a 2:4 sparse peak (2×) would be exceeded" if util / 2 > 1 else "")
        flags.append(FLAG.make(level="error", name="implausible-peak",
                               message=f"U = {util:.3f} > {th.utilisation_error:g}: exceeds the dense "
                                       f"peak{extra}; needs an explanation (sparsity, fast algorithm, "
                                       "spec or metadata error)"))
    elif util > th.utilisation_warning:
        flags.append(FLAG.make(level="warning", name="high-utilisation",
                               message=f"U = {util:.3f} > {th.utilisation_warning:g}"))
    return ASSESSMENT.make(**base, status="assessed", roofline=roof, per_accelerator=per_acc,
                           flags=tuple(flags))


@dataclass(frozen=True, slots=True)
class Place:
    """What :meth:`Peers.relative` needs of one result: its own key (``submission id|result key``), its
    peer group (None unless a throughput result with a known accelerator count), its value and the
    key of its Offline twin (Server results only)."""

    me: str
    group: tuple[str, str, str, str, str] | None
    value: float
    accelerators: int | None
    offline_key: tuple[str, str] | None


@dataclass(frozen=True, slots=True)
class Relative:
    """A result against its peers and its Offline twin; ``per_accelerator`` is None (and the peer terms
    unset) unless the result has a peer group."""

    per_accelerator: float | None = None
    peer_count: int = 0
    peer_ratio: float | None = None
    server_offline_ratio: float | None = None


class Peers:
    """The peer groups (per-accelerator throughput by model, scenario, units, accelerator and power mode)
    and the Offline values (by submission and model) of a set of submissions, filled one submission at a
    time (:meth:`add`), so that a caller need not hold the submissions to compare a result with them
    (:meth:`relative`)."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, str, str, str, str], list[tuple[str, float]]] = {}
        self._offline: dict[tuple[str, str], float] = {}

    @staticmethod
    def place(s: Submission, r: ScenarioResult) -> Place:
        n = s.accelerator_count
        scenario = normalise_text(r.scenario)
        group = None
        if n and scenario in THROUGHPUT_SCENARIOS and not r.is_latency:
            group = (normalise_text(r.model), scenario, r.units, s.accelerator_identity, power_mode(s))
        twin = (s.id, normalise_text(r.model)) if scenario == "server" else None
        return Place(f"{s.id}|{r.key}", group, r.value, n, twin)

    def add(self, s: Submission, reference: bool = False) -> list[Place]:
        """Add the results of ``s`` (as peers only, with ``reference``); their places, in order."""
        places = []
        for r in s.results:
            place = self.place(s, r)
            if place.group is not None:
                self._groups.setdefault(place.group, []).append((place.me, r.value / place.accelerators))
            if not reference and normalise_text(r.scenario) == "offline":
                self._offline[(s.id, normalise_text(r.model))] = r.value
            places.append(place)
        return places

    def relative(self, place: Place, thresholds: Thresholds) -> Relative:
        """The peer ratio (the result itself left out) and Server/Offline of the result at ``place``."""
        per = ratio = so = None
        count = 0
        if place.group is not None:
            peers = [v for k, v in self._groups.get(place.group, []) if k != place.me]
            per = place.value / place.accelerators
            count = len(peers)
            ratio = peer_ratio(per, peers, thresholds.peer_min_count)
        if place.offline_key is not None:
            o = self._offline.get(place.offline_key)
            if o:
                so = server_offline_ratio(place.value, o)
        return Relative(per, count, ratio, so)


def assess(submissions: Sequence[Submission], hardware: HardwareTable, work: WorkTable, *,
           reference: Sequence[Submission] = ()) -> list[Assessment]:
    """Assess every result of ``submissions``: roofline, peer ratio (peers from ``submissions`` and
    ``reference``, e.g. the previous round), Server/Offline, flags and priority score.

    Sorted by score descending (unscored last), then by submission id, model and scenario."""
    th = work.thresholds
    base = [(s, r, assess_result(s, r, hardware, work)) for s in submissions for r in s.results]
    peers = Peers()
    for s in submissions:
        peers.add(s)
    for s in reference:
        peers.add(s, reference=True)
    out: list[Assessment] = []
    for s, r, a in base:
        updates: dict[str, object] = {}
        flags = list(a.flags)
        rel = peers.relative(peers.place(s, r), th)
        if rel.per_accelerator is not None:
            pr = rel.peer_ratio
            updates.update(per_accelerator=rel.per_accelerator, peer_count=rel.peer_count, peer_ratio=pr)
            if pr is not None and pr > th.peer_ratio_warning:
                flags.append(FLAG.make(level="warning", name="above-peers",
                                       message=f"per-accelerator throughput {pr:.2f}× the median of "
                                               f"{rel.peer_count} same-SKU peers > "
                                               f"{th.peer_ratio_warning:g}"))
        so = rel.server_offline_ratio
        if so is not None:
            updates["server_offline_ratio"] = so
            if so > th.server_offline_warning:
                flags.append(FLAG.make(level="warning", name="server-exceeds-offline",
                                       message=f"Server/Offline = {so:.3f} > "
                                               f"{th.server_offline_warning:g}"))
            elif so > th.server_offline_info:
                flags.append(FLAG.make(level="info", name="server-above-offline",
                                       message=f"Server/Offline = {so:.3f} > "
                                               f"{th.server_offline_info:g}"))
        score, driver = priority_score(a.utilisation, updates.get("peer_ratio"),  # type: ignore[arg-type]
                                       updates.get("server_offline_ratio"), th)  # type: ignore[arg-type]
        updates.update(flags=tuple(flags), score=score, score_driver=driver)
        out.append(a.model_copy(update=updates))
    out.sort(key=lambda x: (x.score is None, -(x.score or 0.0), x.submission_id,
                            normalise_text(x.model), normalise_text(x.scenario)))
    return out


def summarise(assessments: Iterable[Assessment]) -> Mapping[str, int]:
    """Counts of assessed / unassessed results and of each flag name."""
    counts: dict[str, int] = {"assessed": 0, "no-assessment": 0}
    for a in assessments:
        counts[a.status] += 1
        for f in a.flags:
            counts[f.name] = counts.get(f.name, 0) + 1
    return counts
