"""Which submissions are candidates for the random audit (rules §2.8, "Audit Process").

Pure logic: no IO. Input is :class:`~checker.models.audit_inputs.Submission` rows; output is one
:class:`EligibilityRow` per row, each with its verdict, the reason in words and every number
that was compared, so that the audit chairs can check the decision by hand.

The rule text (seed 000, §2.8) and how it is applied here, clause by clause
------------------------------------------------------------------------------

1. "Only Available submissions in Closed division are auditable."
   ``division`` must equal ``closed`` and ``status`` must equal ``available`` (after
   normalisation, see below). Anything else is ``not-auditable``.

2. "A submission is not a candidate for the randomly chosen audit if the system is equivalent to
   a system audited in the previous round. [...] equivalent systems have the same CPU, NIC,
   accelerator, and accelerator count, with the same configuration of those components as per the
   system configuration JSON. For LoadGen Over Network submission the Networking must be the same."
   Compared against ``previous_audited`` only (the *previous* round), field by field:

   * CPU: ``host_processor_model_name`` and its configuration ``host_processors_per_node``;
   * NIC: ``host_networking`` and its configuration ``host_network_card_count``;
   * accelerator: ``accelerator_model_name`` (a CPU-only system — name empty, ``N/A``, ``0`` or a
     zero count — has the accelerator "none");
   * accelerator count: ``accelerators_per_node`` *and* ``number_of_nodes`` (8×1 and 4×2 are
     different configurations even though both total 8);
   * networking: if either side ``is_network``, both must be network submissions and their
     ``network_config`` mappings must be equal.

   Verdict ``excluded-equivalent``. **Choice:** the rule speaks of "the system", not of the
   submitter, so an equivalent system of *another* submitter is excluded too. A field missing on
   both sides counts as equal; missing on one side only counts as different.

3. The guidance exemption: "if an accelerator is audited in one of the previous rounds, then the
   systems using the same accelerator can be excluded from random audit, if the aggregate system
   performance and the performance per accelerator are not more than 10% from those submitted
   during last audit time. For systems with power metrics, [...] power efficiency must also be
   within 10% [...]. If any new result like a new model, an additional non-inferred scenario
   measurement or a new power measurement is submitted from the last audit time, then the
   exclusion is not applicable unless the review committee decides otherwise."

   * "one of the previous rounds": audits of the previous round (``previous_audited``) *and* of
     older rounds (``earlier_audited``) are used.
   * "same accelerator": same normalised ``accelerator_model_name`` (for CPU-only systems the host
     CPU model stands in for the accelerator, and the socket count for the accelerator count).
     **Choice:** as in (2), the audited submission may belong to another submitter.
   * "last audit time": the most recent round in which that accelerator was audited. Tiers are
     searched in order: ``previous_audited``; then ``earlier_audited`` grouped by ``round`` and
     ordered newest first (round labels such as ``v4.1`` are compared as version numbers; rows
     without a parseable label come last). If several submissions with that accelerator were
     audited in that round, the exemption applies when it holds against **any one** of them.
   * Compared results: every (model, scenario) present in both the candidate and the audited
     submission. Model names and scenarios are compared after normalisation, and the model name
     includes its accuracy target (``llama2-70b-99`` and ``llama2-70b-99.9`` are different
     models, as they are different lines of the results table).
   * Performance is put in "higher is better" form: throughput as reported, latency as its
     reciprocal. Per-accelerator performance divides by the total accelerator count.
     Power efficiency is throughput / Watts for Offline and Server, and 1 / (energy per query)
     for the latency scenarios (constant factors cancel because only the same scenario is
     compared).
   * "not more than 10% from": ``|current / audited − 1| ≤ 0.10`` (inclusive, both directions:
     a system 10% *slower* is as different as one 10% faster). Computed in ``Decimal`` from the
     shortest decimal representation of each float, so 110 vs 100 is exactly 10% and passes.
   * Voiding: a (model) of the candidate absent from the audited submission is "a new model"; a
     non-inferred (model, scenario) whose model was audited but not that scenario is "an
     additional non-inferred scenario measurement" (a new *inferred* scenario does not void);
     any result of the candidate with a power measurement where the audited submission had none
     for that (model, scenario) is "a new power measurement".
   * **Choice — missing evidence:** the exemption needs positive evidence. If no result is
     common, if an accelerator count is unknown, or if a power efficiency cannot be computed
     because a power metric is missing on either side while the candidate has power, the
     exemption is not applied and the row stays ``eligible`` (the reason says why).
   * The guidance is guidance: ``apply_guidance=False`` turns it off.

4. "The review committee may determine that additional systems are equivalent [...]" and
   "unless the review committee decides otherwise": ``committee_exempt`` (submission ids) forces
   ``excluded-committee``; ``committee_not_exempt`` keeps a row eligible even if (2) or (3) would
   exclude it (the row records what would have applied).

Normalisation: every free-text field is compared in the form given by
:func:`~checker.models.audit_inputs.normalise_text` — Unicode casefold, whitespace runs collapsed to
one space, trimmed. ``"Intel(R) Xeon(R)  Platinum 8480C"`` equals ``"intel(r) xeon(r) platinum
8480c"``; no other rewriting (no vendor-prefix stripping) is done.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from decimal import Decimal, localcontext
from typing import Literal

from pydantic import BaseModel, ConfigDict

from checker.models.audit_inputs import ScenarioResult, Submission, normalise_text

#: "not more than 10% from those submitted during last audit time" (rules §2.8).
GUIDANCE_TOLERANCE = Decimal("0.10")

Verdict = Literal[
    "eligible", "not-auditable", "excluded-equivalent", "excluded-guidance", "excluded-committee"
]
Metric = Literal["aggregate performance", "performance per accelerator", "power efficiency"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Comparison(_Frozen):
    """One number of the guidance test: candidate vs audited, in "higher is better" form."""

    audited_id: str
    model: str
    scenario: str
    metric: Metric
    current: float
    audited: float
    deviation: float  # current / audited − 1
    within: bool


class EquivalenceCheck(_Frozen):
    """The field-by-field equivalence test against one audited system of the previous round."""

    audited_id: str
    equivalent: bool
    differences: tuple[str, ...]  # e.g. "accelerator count: 8×1 vs 4×1"


class EligibilityRow(_Frozen):
    submission_id: str
    submitter: str
    system_id: str
    verdict: Verdict
    reason: str
    matched_audit: str | None = None
    equivalence: tuple[EquivalenceCheck, ...] = ()
    comparisons: tuple[Comparison, ...] = ()
    voiding: tuple[str, ...] = ()

    @property
    def eligible(self) -> bool:
        return self.verdict == "eligible"


# --------------------------------------------------------------------------------------------
# equivalence


def _accel_name(s: Submission) -> str:
    return normalise_text(s.accelerator_model_name) if s.has_accelerator else "none"


def _accel_config(s: Submission) -> str:
    if not s.has_accelerator:
        return "0"
    return f"{s.accelerators_per_node}×{s.number_of_nodes if s.number_of_nodes else 1}"


def _fmt(v: object) -> str:
    return "missing" if v is None or v == "" else repr(v) if isinstance(v, str) else str(v)


def equivalence_differences(current: Submission, audited: Submission) -> tuple[str, ...]:
    """The fields on which two systems differ for the rules' equivalence test (empty ⇒ equivalent)."""
    diffs: list[str] = []
    pairs: list[tuple[str, object, object]] = [
        ("CPU", normalise_text(current.host_processor_model_name),
         normalise_text(audited.host_processor_model_name)),
        ("CPU count per node", current.host_processors_per_node, audited.host_processors_per_node),
        ("NIC", normalise_text(current.host_networking), normalise_text(audited.host_networking)),
        ("NIC count", normalise_text(current.host_network_card_count),
         normalise_text(audited.host_network_card_count)),
        ("accelerator", _accel_name(current), _accel_name(audited)),
        ("accelerator count", _accel_config(current), _accel_config(audited)),
    ]
    for label, a, b in pairs:
        if a != b:
            diffs.append(f"{label}: {_fmt(a)} vs {_fmt(b)}")
    if current.is_network or audited.is_network:
        if current.is_network != audited.is_network:
            diffs.append(f"network submission: {current.is_network} vs {audited.is_network}")
        else:
            ca = {normalise_text(k): normalise_text(v) for k, v in current.network_config.items()}
            cb = {normalise_text(k): normalise_text(v) for k, v in audited.network_config.items()}
            for k in sorted(set(ca) | set(cb)):
                if ca.get(k) != cb.get(k):
                    diffs.append(f"networking {k}: {_fmt(ca.get(k))} vs {_fmt(cb.get(k))}")
    return tuple(diffs)


# --------------------------------------------------------------------------------------------
# guidance exemption


def _dec(x: float | int) -> Decimal:
    return Decimal(repr(x)) if isinstance(x, float) else Decimal(x)


def _perf(r: ScenarioResult) -> Decimal:
    """Performance in higher-is-better form."""
    with localcontext() as ctx:
        ctx.prec = 34
        return Decimal(1) / _dec(r.value) if r.is_latency else _dec(r.value)


def _efficiency(r: ScenarioResult) -> Decimal | None:
    if r.power_metric is None:
        return None
    with localcontext() as ctx:
        ctx.prec = 34
        if r.is_latency:  # power metric = energy per query
            return Decimal(1) / _dec(r.power_metric)
        return _dec(r.value) / _dec(r.power_metric)


def _compare(audited_id: str, model: str, scenario: str, metric: Metric, cur: Decimal,
             aud: Decimal, tolerance: Decimal) -> Comparison:
    with localcontext() as ctx:
        ctx.prec = 34
        dev = cur / aud - 1
    return Comparison(audited_id=audited_id, model=model, scenario=scenario, metric=metric,
                      current=float(cur), audited=float(aud), deviation=float(dev),
                      within=abs(dev) <= tolerance)


class _GuidanceOutcome(_Frozen):
    audited_id: str
    exempt: bool
    comparisons: tuple[Comparison, ...]
    voiding: tuple[str, ...]
    missing: tuple[str, ...]


def _guidance(current: Submission, audited: Submission, tolerance: Decimal) -> _GuidanceOutcome:
    aud_by_key = {r.key: r for r in audited.results}
    aud_models = {k[0] for k in aud_by_key}
    voiding: list[str] = []
    missing: list[str] = []
    comps: list[Comparison] = []
    n_cur, n_aud = current.accelerator_count, audited.accelerator_count
    for r in sorted(current.results, key=lambda r: r.key):
        model, scen = r.key
        a = aud_by_key.get(r.key)
        if model not in aud_models:
            if f"new model {r.model}" not in voiding:  # once per model, not once per scenario
                voiding.append(f"new model {r.model}")
        elif a is None and not r.inferred:
            voiding.append(f"additional non-inferred scenario {r.model}/{r.scenario}")
        if r.power_measured and (a is None or not a.power_measured):
            voiding.append(f"new power measurement {r.model}/{r.scenario}")
        if a is None:
            continue
        if r.is_latency != a.is_latency:
            missing.append(f"{r.model}/{r.scenario}: units {r.units} vs {a.units} not comparable")
            continue
        cp, ap = _perf(r), _perf(a)
        comps.append(_compare(audited.id, r.model, r.scenario, "aggregate performance", cp, ap,
                              tolerance))
        if n_cur and n_aud:
            comps.append(_compare(audited.id, r.model, r.scenario, "performance per accelerator",
                                  cp / n_cur, ap / n_aud, tolerance))
        else:
            missing.append(f"{r.model}/{r.scenario}: accelerator count unknown "
                           f"({_fmt(n_cur)} vs {_fmt(n_aud)})")
        if r.power_measured or a.power_measured:
            ce, ae = _efficiency(r), _efficiency(a)
            if ce is None or ae is None:
                missing.append(f"{r.model}/{r.scenario}: power efficiency not computable "
                               f"(power metric missing)")
            else:
                comps.append(_compare(audited.id, r.model, r.scenario, "power efficiency", ce, ae,
                                      tolerance))
    if not comps and not missing:
        missing.append("no result in common with the audited submission")
    exempt = not voiding and not missing and all(c.within for c in comps)
    return _GuidanceOutcome(audited_id=audited.id, exempt=exempt, comparisons=tuple(comps),
                            voiding=tuple(voiding), missing=tuple(missing))


_VERSION = re.compile(r"(\d+(?:\.\d+)*)")


def _round_key(label: str | None) -> tuple[int, tuple[int, ...], str]:
    """Sort key, newest first when sorted ascending: parseable versions before the rest."""
    if label:
        m = _VERSION.search(label)
        if m:
            return (0, tuple(-int(p) for p in m.group(1).split(".")), label)
    return (1, (), label or "")


def _audit_tiers(previous: Sequence[Submission],
                 earlier: Sequence[Submission]) -> list[tuple[str, list[Submission]]]:
    tiers: list[tuple[str, list[Submission]]] = []
    if previous:
        tiers.append(("previous round", list(previous)))
    groups: dict[str | None, list[Submission]] = {}
    for s in earlier:
        groups.setdefault(s.round, []).append(s)
    for label in sorted(groups, key=_round_key):
        tiers.append((f"round {label}" if label else "an earlier round (unlabelled)",
                      groups[label]))
    return tiers


# --------------------------------------------------------------------------------------------
# public entry point


def _check_unique(rows: Iterable[Submission], what: str) -> None:
    seen: set[str] = set()
    for s in rows:
        if s.id in seen:
            raise ValueError(f"duplicate submission id in {what}: {s.id}")
        seen.add(s.id)


def eligible(
    current: Sequence[Submission],
    previous_audited: Sequence[Submission],
    earlier_audited: Sequence[Submission] = (),
    *,
    apply_guidance: bool = True,
    committee_exempt: Collection[str] = (),
    committee_not_exempt: Collection[str] = (),
    tolerance: Decimal = GUIDANCE_TOLERANCE,
) -> list[EligibilityRow]:
    """One :class:`EligibilityRow` per submission of ``current``, sorted by submission id.

    ``previous_audited``: the submissions audited in the previous round (equivalence test and
    guidance). ``earlier_audited``: submissions audited in older rounds (guidance only; set
    ``round`` on them so "last audit time" can be ordered). Raises ``ValueError`` on duplicate ids.
    """
    _check_unique(current, "the current round")
    tiers = _audit_tiers(previous_audited, earlier_audited)
    rows: list[EligibilityRow] = []
    for s in sorted(current, key=lambda x: x.id):
        rows.append(_one(s, previous_audited, tiers, apply_guidance, set(committee_exempt),
                         set(committee_not_exempt), tolerance))
    return rows


def _one(s: Submission, previous: Sequence[Submission],
         tiers: list[tuple[str, list[Submission]]], apply_guidance: bool, exempt_ids: set[str],
         keep_ids: set[str], tolerance: Decimal) -> EligibilityRow:
    base = dict(submission_id=s.id, submitter=s.submitter, system_id=s.system_id)
    div, status = normalise_text(s.division), normalise_text(s.status)
    if div != "closed":
        return EligibilityRow(**base, verdict="not-auditable",
                              reason=f"division is {s.division!r}; only Closed is auditable "
                                     "(rules §2.8)")
    if status != "available":
        return EligibilityRow(**base, verdict="not-auditable",
                              reason=f"status is {s.status!r}; only Available is auditable "
                                     "(rules §2.8)")
    if s.id in exempt_ids and s.id not in keep_ids:
        return EligibilityRow(**base, verdict="excluded-committee",
                              reason="exempted by review committee decision (rules §2.8)")
    overridden = s.id in keep_ids
    override_note = "; kept eligible by review committee decision" if overridden else ""

    checks = tuple(
        EquivalenceCheck(audited_id=a.id, equivalent=not d, differences=d)
        for a in sorted(previous, key=lambda x: x.id)
        for d in [equivalence_differences(s, a)]
    )
    equiv = [c for c in checks if c.equivalent]
    if equiv:
        reason = (f"equivalent to {equiv[0].audited_id}, audited in the previous round: same CPU, "
                  "NIC, accelerator and accelerator count" + (", same networking" if s.is_network
                                                              else ""))
        if not overridden:
            return EligibilityRow(**base, verdict="excluded-equivalent", reason=reason,
                                  matched_audit=equiv[0].audited_id, equivalence=checks)
        return EligibilityRow(**base, verdict="eligible", reason=reason + override_note,
                              matched_audit=equiv[0].audited_id, equivalence=checks)

    if not apply_guidance:
        return EligibilityRow(**base, verdict="eligible",
                              reason="not equivalent to a system audited in the previous round; "
                                     "guidance exemption not applied" + override_note,
                              equivalence=checks)

    ident = s.accelerator_identity
    tier_label, same = "", []
    for label, audited in tiers:
        same = [a for a in audited if ident and a.accelerator_identity == ident]
        if same:
            tier_label = label
            break
    if not same:
        return EligibilityRow(**base, verdict="eligible",
                              reason="not equivalent to a system audited in the previous round, "
                                     "and its accelerator was not audited before" + override_note,
                              equivalence=checks)
    outcomes = [_guidance(s, a, tolerance) for a in sorted(same, key=lambda x: x.id)]
    hit = next((o for o in outcomes if o.exempt), None)
    if hit is not None:
        reason = (f"same accelerator as {hit.audited_id} (last audited in {tier_label}); "
                  f"all {len(hit.comparisons)} compared figures within "
                  f"{float(tolerance):.0%} and no new model, non-inferred scenario or power "
                  "measurement (guidance, rules §2.8)")
        verdict: Verdict = "eligible" if overridden else "excluded-guidance"
        return EligibilityRow(**base, verdict=verdict, reason=reason + override_note,
                              matched_audit=hit.audited_id, equivalence=checks,
                              comparisons=hit.comparisons)
    o = outcomes[0]
    why: list[str] = []
    if o.voiding:
        why.append("exemption void: " + ", ".join(o.voiding))
    outside = [c for c in o.comparisons if not c.within]
    if outside:
        why.append("outside " + f"{float(tolerance):.0%}: " + ", ".join(
            f"{c.model}/{c.scenario} {c.metric} {c.deviation:+.1%}" for c in outside))
    if o.missing:
        why.append("not enough evidence: " + ", ".join(o.missing))
    reason = (f"same accelerator as {o.audited_id} (last audited in {tier_label}) but the "
              "guidance exemption does not apply: " + "; ".join(why))
    return EligibilityRow(**base, verdict="eligible", reason=reason + override_note,
                          matched_audit=o.audited_id, equivalence=checks,
                          comparisons=o.comparisons, voiding=o.voiding)
