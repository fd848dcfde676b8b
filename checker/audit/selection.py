"""The seeded two-stage random audit draw (rules §2.8), replayable by anyone.

Rules §2.8: "The process of random selection is in two stages: first a submitter is randomly
chosen from all submitters with auditable submissions, then one of those submissions is randomly
chosen." This module makes that draw reproducible and publishes everything needed to replay it.

Exact procedure (so it can be re-implemented in any language)
---------------------------------------------------------------

1. **Candidates.** The input is a list of candidates ``(submitter, submission_id)``, normally the
   eligible rows of :func:`checker.audit.eligibility.eligible`. Submission ids must be unique
   (otherwise :class:`AmbiguousCandidates`), and the set must not be empty (otherwise
   :class:`EmptyCandidateSet`). Submitters are grouped by their *exact* name; two names that
   differ only in case or whitespace are refused as ambiguous rather than silently merged.
2. **Ordering.** Submitter names are sorted ascending by Unicode code point (equivalently by their
   UTF-8 bytes). Within each submitter, submission ids are sorted the same way.
3. **Generator.** MT19937 (Matsumoto & Nishimura 1998), 32-bit, as implemented by CPython's
   ``random.Random``.
4. **Seeding.** The seed is an integer or a string.

   * A string seed ``s`` becomes the integer ``int.from_bytes(sha256(s.encode("utf-8")), "big")``
     (the 32-byte digest read as an unsigned big-endian integer).
   * A negative integer is refused. The integer ``n`` is split into 32-bit words, least
     significant first (``[0]`` for ``n == 0``), and the generator is initialised with MT19937's
     ``init_by_array(words)`` — exactly what ``random.Random(n)`` does.
5. **Uniform index below m** (``m ≥ 1``, ``m ≤ 2**32``): let ``k = max(1, bit_length(m − 1))``;
   repeat ``r = next_uint32() >> (32 − k)`` until ``r < m``; the index is ``r``. (This is
   ``random.getrandbits(k)`` for ``k ≤ 32``.) Every 32-bit output consumed, including rejected
   ones, is recorded in the log.
6. **Draws.** Stage 1 draws an index below the number of submitters and picks that submitter in
   the order of step 2. Stage 2, continuing the *same* generator stream, draws an index below that
   submitter's number of submissions and picks that submission.

The replay log (:func:`draw` returns it as ``DrawLog``; ``log.model_dump(mode="json")`` is plain
JSON) holds the seed, the generator description, the sorted candidate lists, each stage's raw
outputs and index, and the result. :func:`replay` recomputes everything from the seed and the
candidate lists and raises :class:`ReplayMismatch` if anything differs.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field

from checker.models.audit_inputs import normalise_text

LOG_FORMAT = "mlpc-audit-draw/1"
GENERATOR = "MT19937 32-bit (CPython random.Random)"
SEEDING = ("string seed -> int.from_bytes(sha256(utf8(seed)).digest(), 'big'); "
           "int -> 32-bit words least significant first -> MT19937 init_by_array")
SAMPLING = ("index below m: k = max(1, bit_length(m-1)); repeat r = next_uint32() >> (32-k) "
            "until r < m")


class SelectionError(ValueError):
    """Base class of the refusals to draw."""


class EmptyCandidateSet(SelectionError):
    pass


class AmbiguousCandidates(SelectionError):
    pass


class ReplayMismatch(SelectionError):
    pass


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Candidate(_Frozen):
    submitter: str = Field(min_length=1)
    submission_id: str = Field(min_length=1)


class StageDraw(_Frozen):
    stage: str  # "submitter" | "submission"
    population: int
    bits: int
    raw: tuple[int, ...]  # every generator output consumed (already shifted to k bits)
    index: int
    chosen: str


class DrawResult(_Frozen):
    submitter: str
    submission_id: str


class DrawLog(_Frozen):
    format: str = LOG_FORMAT
    generator: str = GENERATOR
    seeding: str = SEEDING
    sampling: str = SAMPLING
    seed: int | str
    seed_int: str  # decimal string: JSON numbers cannot carry 256-bit integers safely
    submitters: tuple[str, ...]
    submissions: dict[str, tuple[str, ...]]
    draws: tuple[StageDraw, ...]
    result: DrawResult


def seed_to_int(seed: int | str) -> int:
    """Step 4 of the procedure."""
    if isinstance(seed, bool):
        raise SelectionError("seed must be an int or a str, not a bool")
    if isinstance(seed, int):
        if seed < 0:
            raise SelectionError("seed must be a non-negative integer")
        return seed
    if isinstance(seed, str):
        return int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest(), "big")
    raise SelectionError(f"seed must be an int or a str, not {type(seed).__name__}")


def make_generator(seed: int | str) -> random.Random:
    return random.Random(seed_to_int(seed))


def uniform_index(rng: random.Random, m: int) -> tuple[int, tuple[int, ...], int]:
    """Step 5: an index uniform in ``[0, m)``; returns (index, raw outputs, k)."""
    if m < 1:
        raise EmptyCandidateSet("cannot draw from an empty population")
    if m > 2**32:
        raise SelectionError("population too large for the documented sampling method")
    k = max(1, (m - 1).bit_length())
    raw: list[int] = []
    while True:
        r = rng.getrandbits(k)
        raw.append(r)
        if r < m:
            return r, tuple(raw), k


def _prepare(candidates: Iterable[Candidate | tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    groups: dict[str, list[str]] = {}
    seen: set[str] = set()
    for c in candidates:
        if not isinstance(c, Candidate):
            c = Candidate(submitter=c[0], submission_id=c[1])
        if c.submission_id in seen:
            raise AmbiguousCandidates(f"duplicate submission id: {c.submission_id!r}")
        seen.add(c.submission_id)
        groups.setdefault(c.submitter, []).append(c.submission_id)
    if not groups:
        raise EmptyCandidateSet("no eligible submission: refusing to draw from an empty set")
    by_norm: dict[str, list[str]] = {}
    for name in groups:
        by_norm.setdefault(normalise_text(name), []).append(name)
    clashes = [sorted(v) for v in by_norm.values() if len(v) > 1]
    if clashes:
        raise AmbiguousCandidates(
            "submitter names differ only in case or whitespace: "
            + "; ".join(" / ".join(repr(n) for n in c) for c in sorted(clashes)))
    return {name: tuple(sorted(ids)) for name, ids in sorted(groups.items())}


def _run(seed: int | str, groups: dict[str, tuple[str, ...]]) -> DrawLog:
    rng = make_generator(seed)
    submitters = tuple(sorted(groups))
    i, raw, k = uniform_index(rng, len(submitters))
    who = submitters[i]
    d1 = StageDraw(stage="submitter", population=len(submitters), bits=k, raw=raw, index=i,
                   chosen=who)
    ids = groups[who]
    j, raw2, k2 = uniform_index(rng, len(ids))
    d2 = StageDraw(stage="submission", population=len(ids), bits=k2, raw=raw2, index=j,
                   chosen=ids[j])
    return DrawLog(seed=seed, seed_int=str(seed_to_int(seed)), submitters=submitters,
                   submissions={s: groups[s] for s in submitters}, draws=(d1, d2),
                   result=DrawResult(submitter=who, submission_id=ids[j]))


def draw(candidates: Iterable[Candidate | tuple[str, str]], seed: int | str) -> DrawLog:
    """Run the two-stage draw and return its replay log (``log.result`` is the selection)."""
    return _run(seed, _prepare(candidates))


def candidates_from_rows(rows: Sequence[object]) -> list[Candidate]:
    """Candidates from :class:`~checker.audit.eligibility.EligibilityRow` objects (eligible only)."""
    out: list[Candidate] = []
    for r in rows:
        if getattr(r, "eligible", False):
            out.append(Candidate(submitter=r.submitter, submission_id=r.submission_id))  # type: ignore[attr-defined]
    return out


def replay(log: DrawLog | dict) -> DrawResult:
    """Recompute the draw from the log's seed and candidate lists; verify every recorded value.

    Returns the result, or raises :class:`ReplayMismatch` naming the first difference."""
    if not isinstance(log, DrawLog):
        try:
            log = DrawLog.model_validate(log)
        except Exception as exc:  # pydantic.ValidationError
            raise ReplayMismatch(f"not a valid draw log: {exc}") from exc
    if log.format != LOG_FORMAT:
        raise ReplayMismatch(f"unknown log format {log.format!r} (expected {LOG_FORMAT!r})")
    if str(seed_to_int(log.seed)) != log.seed_int:
        raise ReplayMismatch(f"seed_int {log.seed_int} does not match seed {log.seed!r}")
    if list(log.submitters) != sorted(log.submissions) or len(set(log.submitters)) != len(
            log.submitters):
        raise ReplayMismatch("submitter list is not the sorted key set of the submissions")
    pairs = [(s, i) for s in log.submitters for i in log.submissions[s]]
    groups = _prepare(pairs)
    for s in log.submitters:
        if groups[s] != tuple(log.submissions[s]):
            raise ReplayMismatch(f"submissions of {s!r} are not sorted")
    again = _run(log.seed, groups)
    for a, b in zip(again.draws, log.draws, strict=False):
        if a != b:
            raise ReplayMismatch(f"stage {b.stage!r}: recorded {b.model_dump()} but replay gives "
                                 f"{a.model_dump()}")
    if len(again.draws) != len(log.draws):
        raise ReplayMismatch("number of draws differs")
    if again.result != log.result:
        raise ReplayMismatch(f"result differs: recorded {log.result.model_dump()}, replay gives "
                             f"{again.result.model_dump()}")
    return again.result
