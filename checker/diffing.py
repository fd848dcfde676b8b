"""Differences between two checked trees (pure: reports and path lists in, records out).

* Two commits of one submission repository: results added, removed and changed, where *changed*
  means a file the result reads differs between the commits (git's list of changed paths), or —
  when none of its own files changed — its outcome differs (a submitter-level change such as a
  removed calibration file or model mapping reaches it). Each change carries both summaries.
* Two rounds (or any two trees): results paired by division, submitter, system, model (the MLPerf
  model name) and scenario; pairs get the ratio of their values (B / A, same unit only).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from checker.report import Report, ResultSummary


def result_reads(result_id: str, path: str, ancestor_depth: int = 3) -> bool:
    """Whether the result ``result_id`` (``<div>/<sub>/results/<sys>/<model>/<scen>``) reads ``path``.

    A result reads its results, measurements and compliance folders, the files directly in the
    measurement folder's ``ancestor_depth`` parents (power measurement files), its system
    description and the pointer file ``code/<model>`` when the code folder is one. The code
    folder's content is not read (only its existence), and an inferred result's source scenario
    folder is not counted here: a change in either shows when the result's outcome changes.
    """
    parts = result_id.split("/")
    if len(parts) != 6 or parts[2] != "results":
        return path == result_id or path.startswith(result_id + "/")
    division, submitter, _, system, model, scenario = parts
    base, tail = f"{division}/{submitter}", f"{system}/{model}/{scenario}"
    meas = f"{base}/measurements/{tail}"
    for folder in (result_id, meas, f"{base}/compliance/{tail}"):
        if path == folder or path.startswith(folder + "/"):
            return True
    if path in (f"{base}/systems/{system}.json", f"{base}/code/{model}"):
        return True
    probe, parent = meas, posixpath.dirname(path)
    for _ in range(ancestor_depth):
        probe = posixpath.dirname(probe)
        if parent == probe:
            return True
    return False


@dataclass(frozen=True)
class Change:
    kind: str  # "added", "removed" or "changed"
    id: str
    before: ResultSummary | None
    after: ResultSummary | None
    paths: tuple[str, ...] = ()  # the changed paths the result reads
    outcome_changed: bool = False  # the summary differs (verdict, value, counts, ...)

    @property
    def reason(self) -> str:
        if self.kind != "changed":
            return self.kind
        return f"{len(self.paths)} file(s)" if self.paths else "outcome only"


def diff_commits(before: Report, after: Report, changed: list[str], ancestor_depth: int = 3) -> list[Change]:
    """Results added, removed and changed from ``before`` to ``after`` (``changed``: paths relative
    to the submission root, from git's tree diff)."""
    old = {r.id: r for r in before.results}
    new = {r.id: r for r in after.results}
    out: list[Change] = []
    for rid in sorted(set(old) | set(new)):
        a, b = old.get(rid), new.get(rid)
        if a is None:
            out.append(Change("added", rid, None, b))
        elif b is None:
            out.append(Change("removed", rid, a, None))
        else:
            paths = tuple(p for p in changed if result_reads(rid, p, ancestor_depth))
            if paths or a != b:
                out.append(Change("changed", rid, a, b, paths, a != b))
    return out


@dataclass(frozen=True)
class Pair:
    key: tuple[str, str, str, str, str]  # division, submitter, system, model, scenario
    a: ResultSummary | None
    b: ResultSummary | None

    @property
    def ratio(self) -> float | None:
        """B / A of the results' values, when both exist in the same unit and A is not zero."""
        if self.a is None or self.b is None or self.a.value is None or self.b.value is None:
            return None
        if not self.a.value or self.a.unit != self.b.unit:
            return None
        return self.b.value / self.a.value


def _keyed(report: Report) -> dict[tuple, ResultSummary]:
    found: dict[tuple, list[ResultSummary]] = {}
    for r in report.results:
        key = (r.division, r.submitter, r.system, r.mlperf_model or r.model, r.scenario)
        found.setdefault(key, []).append(r)
    out: dict[tuple, ResultSummary] = {}
    for key, group in found.items():
        if len(group) == 1:
            out[key] = group[0]
        else:  # two folders map to one model: keep them apart by folder name
            for r in group:
                out[key[:3] + (f"{key[3]} ({r.model})", key[4])] = r
    return out


def compare_rounds(a: Report, b: Report) -> list[Pair]:
    """Every result of either tree, paired with its counterpart in the other one when there is one;
    sorted by system and model."""
    left, right = _keyed(a), _keyed(b)
    keys = sorted(set(left) | set(right), key=lambda k: (k[2], k[3], k[0], k[1], k[4]))
    return [Pair(k, left.get(k), right.get(k)) for k in keys]
