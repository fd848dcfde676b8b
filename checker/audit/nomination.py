"""The audit nomination table: one row per submission (submitter × platform), ranked by audit priority.

Rules §2.8: nominations for the committee-selected audit each carry a reason ("new HW or SW, unusual or
interesting features, performance outside of expectations"), and "any systems with new accelerators
are added to the list by the chairs". Rules FAQ §9.6 names performance "not consistent with the known
or expected characteristics of the hardware" as the first audit trigger. This table gives the chairs
that evidence per submission. Pure: Submissions and plausibility assessments in, rows and text out.

Ranking: the submission's priority score is the highest score of its results
(``max(U/0.75, R/1.3, S/O/1.10)``, checker/metrics/plausibility.py; ≥ 1 means a flag fired), highest
first; submissions without any score come last, those with a new accelerator first among them; ties
are broken by submission id. The reason names the driving figure and result, every flag, a new
accelerator (when a reference round is given) and the results that could not be assessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from checker.metrics.plausibility import Assessment
from checker.models.audit_inputs import Submission, normalise_text


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ResultLine(_Frozen):
    model: str
    scenario: str
    value: float
    units: str
    inferred: bool = False
    status: str
    utilisation: float | None = None
    peer_ratio: float | None = None
    peer_count: int = 0
    server_offline_ratio: float | None = None
    score: float | None = None
    score_driver: str | None = None
    flags: tuple[str, ...] = ()
    reason: str | None = None
    roofline: str | None = None


class NominationRow(_Frozen):
    rank: int
    submission_id: str
    division: str
    submitter: str
    system_id: str
    status: str
    accelerator: str
    accelerators: int | None
    score: float | None
    driver: str | None
    max_utilisation: float | None
    max_peer_ratio: float | None
    max_server_offline_ratio: float | None
    new_accelerator: bool
    reason: str
    results: tuple[ResultLine, ...]


def _max(values: Iterable[float | None]) -> float | None:
    got = [v for v in values if v is not None]
    return max(got) if got else None


def _line(a: Assessment, inferred: bool) -> ResultLine:
    return ResultLine(model=a.model, scenario=a.scenario, value=a.value, units=a.units, inferred=inferred,
                      status=a.status, utilisation=a.utilisation, peer_ratio=a.peer_ratio,
                      peer_count=a.peer_count, server_offline_ratio=a.server_offline_ratio, score=a.score,
                      score_driver=a.score_driver,
                      flags=tuple(f"{f.level}: {f.name}" for f in a.flags),
                      reason=a.reason, roofline=a.roofline.line if a.roofline else None)


_TERM = {"utilisation": ("U", "utilisation"), "peer ratio": ("R", "peer_ratio"),
         "server/offline": ("S/O", "server_offline_ratio")}


def _reason(sub: Submission, lines: Sequence[ResultLine], new_acc: bool) -> tuple[str, str | None]:
    parts: list[str] = []
    scored = [r for r in lines if r.score is not None]
    driver = None
    if scored:
        top = max(scored, key=lambda r: (r.score, r.model, r.scenario))
        short, attr = _TERM.get(top.score_driver or "", (top.score_driver or "?", ""))
        figure = getattr(top, attr, None) if attr else None
        driver = f"{top.score_driver} {figure:.3f} ({top.model} {top.scenario})" if figure is not None else None
        flagged = [f"{r.model} {r.scenario} {f}" for r in lines for f in r.flags
                   if f.startswith(("error", "warning"))]
        if flagged:
            parts.append("performance outside expectations: " + "; ".join(flagged))
        else:
            parts.append(f"no plausibility flag; highest term {short} = {figure:.3f} ({top.model} {top.scenario})"
                         if figure is not None else "no plausibility flag")
    if new_acc:
        parts.append("new accelerator: absent from the reference round (rules §2.8: added to the list)")
    missing = [r for r in lines if r.status != "assessed"]
    if missing:
        why = sorted({r.reason or "no assessment" for r in missing})
        parts.append(f"no assessment for {len(missing)} of {len(lines)} results: " + "; ".join(why))
    if normalise_text(sub.status) != "available":
        parts.append(f"status {sub.status!r}: not auditable (rules §2.8: Available only)")
    return ("; ".join(parts) or "no result"), driver


def nominations(submissions: Sequence[Submission], assessments: Sequence[Assessment],
                reference: Sequence[Submission] | None = None) -> list[NominationRow]:
    """Rows for ``submissions`` ranked by audit priority. ``reference`` (a previous round) decides
    which accelerators are new; without it no accelerator is called new."""
    by_sub: dict[str, list[Assessment]] = {}
    for a in assessments:
        by_sub.setdefault(a.submission_id, []).append(a)
    known = {s.accelerator_identity for s in reference} if reference else None
    rows: list[tuple[tuple, dict]] = []
    for s in submissions:
        inferred = {r.key: r.inferred for r in s.results}
        mine = sorted(by_sub.get(s.id, []), key=lambda a: (normalise_text(a.model), normalise_text(a.scenario)))
        lines = [_line(a, inferred.get((normalise_text(a.model), normalise_text(a.scenario)), False)) for a in mine]
        new_acc = known is not None and bool(s.accelerator_identity) and s.accelerator_identity not in known
        reason, driver = _reason(s, lines, new_acc)
        score = _max(r.score for r in lines)
        fields = dict(submission_id=s.id, division=s.division, submitter=s.submitter, system_id=s.system_id,
                      status=s.status,
                      accelerator=(s.accelerator_model_name if s.has_accelerator else s.host_processor_model_name)
                      or "", accelerators=s.accelerator_count, score=score, driver=driver,
                      max_utilisation=_max(r.utilisation for r in lines),
                      max_peer_ratio=_max(r.peer_ratio for r in lines),
                      max_server_offline_ratio=_max(r.server_offline_ratio for r in lines),
                      new_accelerator=new_acc, reason=reason, results=tuple(lines))
        rows.append(((score is None, -(score or 0.0), not new_acc, s.id), fields))
    rows.sort(key=lambda item: item[0])
    return [NominationRow(rank=i, **fields) for i, (_, fields) in enumerate(rows, 1)]


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def render_text(rows: Sequence[NominationRow]) -> str:
    """A plain, deterministic text table: one block per submission, one line per result."""
    out: list[str] = []
    for r in rows:
        count = f" ×{r.accelerators}" if r.accelerators else ""
        out.append(f"#{r.rank} score {_fmt(r.score, 2)}  {r.submission_id}  (submitter {r.submitter}, system "
                   f"{r.system_id}, {r.accelerator or 'accelerator unknown'}{count})")
        out.append(f"    max U {_fmt(r.max_utilisation)}  max peer ratio {_fmt(r.max_peer_ratio, 2)}  "
                   f"max Server/Offline {_fmt(r.max_server_offline_ratio)}")
        out.append(f"    reason: {r.reason}")
        for x in r.results:
            figures = [f"U {_fmt(x.utilisation)}"]
            if x.peer_ratio is not None:
                figures.append(f"R {x.peer_ratio:.2f} (n={x.peer_count})")
            if x.server_offline_ratio is not None:
                figures.append(f"S/O {x.server_offline_ratio:.3f}")
            tag = " (inferred)" if x.inferred else ""
            flags = "".join(f" [{f}]" for f in x.flags)
            out.append(f"      {x.model} {x.scenario}{tag}: {x.value:g} {x.units}  " + "  ".join(figures) + flags)
    return "\n".join(out) + ("\n" if out else "")


__all__ = ["NominationRow", "ResultLine", "nominations", "render_text"]
