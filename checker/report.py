"""The report: per-result summaries plus every finding, in a deterministic order."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from checker.diagnostics import Finding, Severity

REPORT_VERSION = "1.2"


@dataclass(frozen=True)
class ResultSummary:
    """What the report says of one result: its identity, value, verdict and the fields of its system."""

    id: str
    division: str
    submitter: str
    system: str
    model: str
    mlperf_model: str
    scenario: str
    scenario_dir: str
    valid: bool
    value: float | None
    unit: str | None
    inferred: bool
    has_power: bool
    power_value: float | None = None
    power_unit: str | None = None
    power_efficiency: float | None = None
    accuracy: tuple[tuple[str, str], ...] = ()
    errors: int = 0
    warnings: int = 0
    compliance: str = "n/a"
    system_fields: tuple[tuple[str, Any], ...] = ()
    weight_data_types: str | None = None
    # per compliance test of the round: (TEST0x, passed | failed | warning); empty when none applies
    compliance_tests: tuple[tuple[str, str], ...] = ()
    # per accuracy metric of the benchmark: (metric, lower target or None, upper limit or None)
    accuracy_targets: tuple[tuple[str, float | None, float | None], ...] = ()
    log_scenario: str | None = None  # effective_scenario of the performance log, as written
    endpoint: bool = False  # measured through an inference endpoint (v6.1), not with LoadGen
    # where an endpoint result's files were found (the round's `endpoint.layouts` names); None for LoadGen
    layout: str | None = None

    def official_result(self) -> str:
        """The value as the official checker writes it (verdicts.csv `result`)."""
        if self.value is None:
            return ""
        if self.has_power and self.power_value is not None:
            eff = self.power_efficiency if self.power_efficiency is not None else 0.0
            return (f"{self.value:f} with power_metric = {self.power_value:f} and power_efficiency "
                    f"(samples/J) = {eff:f}")
        return repr(float(self.value)) if self.value != int(self.value) else str(float(self.value))

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in (
            "id", "division", "submitter", "system", "model", "mlperf_model", "scenario", "scenario_dir",
            "valid", "value", "unit", "inferred", "has_power", "power_value", "power_unit", "power_efficiency",
            "errors", "warnings", "compliance")}
        out["accuracy"] = dict(self.accuracy)
        if self.layout is not None:  # endpoint results only: other results' records are unchanged
            out["layout"] = self.layout
        return out


# fields of a ResultSummary whose values repeat across results (folder, model, scenario names, units)
_REPEATED = ("division", "submitter", "system", "model", "mlperf_model", "scenario", "scenario_dir", "unit",
             "power_unit", "compliance", "weight_data_types", "log_scenario")


def shared(summaries: list[ResultSummary], tables: dict) -> list[ResultSummary]:
    """The summaries, made to hold shared objects where values repeat: names and units as interned
    strings, the system description's field names interned (one tuple per system, as the summary stage
    made it), and the per-test compliance verdicts and accuracy bounds (few distinct values, set by the
    rules) one tuple per distinct value in ``tables`` (bounds by their text, so 75 and 75.0 stay apart).
    Summaries that arrive pickled from a worker or the cache otherwise hold copies of all of these: about
    4 KB per system and 1 KB per result in the process that keeps the round's summaries.

    Each value is replaced in place by an equal one (the summaries stay equal, and hash alike): the
    summaries are those just unpickled or made, which only their caller holds."""
    systems: dict[int, tuple] = {}
    intern, setdefault = sys.intern, tables.setdefault
    for s in summaries:
        held = s.__dict__
        fields = systems.get(id(s.system_fields))
        if fields is None:
            fields = systems[id(s.system_fields)] = tuple((intern(k), v) for k, v in s.system_fields)
        for name in _REPEATED:
            if type(value := held[name]) is str:
                held[name] = intern(value)
        held["system_fields"] = fields
        held["compliance_tests"] = setdefault(s.compliance_tests, s.compliance_tests)
        held["accuracy_targets"] = setdefault(repr(s.accuracy_targets), s.accuracy_targets)
    return summaries


def compliance_status(division: str, tests: tuple[str, ...] | list[str],
                      findings) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Overall and per-TEST compliance of one result from its (non-waived) CP findings.

    A finding names its test in ``data['test']`` or in its path (``.../TEST04/...``); one that names
    no test (e.g. the compliance folder is missing) counts against every test. Open results need no
    compliance tests: ``("n/a", ())``.
    """
    if division == "open":
        return "n/a", ()
    worst: dict[str, int] = {t: 0 for t in tests}
    for f in findings:
        if not f.code.startswith("CP") or f.waived or f.severity not in (Severity.ERROR, Severity.WARNING):
            continue
        rank = 2 if f.severity == Severity.ERROR else 1
        test = dict(f.data).get("test") if f.data else None
        if not test:
            test = next((part for part in f.location.path.split("/") if part in worst), None)
        for name in ([test] if test else list(worst)):
            if name not in worst:
                worst[name] = 0
            worst[name] = max(worst[name], rank)
    per_test = tuple((t, ("passed", "warning", "failed")[r]) for t, r in sorted(worst.items()))
    overall = "failed" if any(r == 2 for r in worst.values()) else "passed"
    return overall, per_test


#: the scopes whose findings count for the run only, not for the results they hold (``counts_as``)
RUN_ONLY_SCOPES = ("root", "division")


def counts_as(f: Finding) -> str | None:
    """How a finding counts for each result its scope holds: "error" (the result is invalid), "warning",
    or None. Waived findings, root and division findings, and errors that do not invalidate (see
    ``Finding.invalidates``) do not count per result; they still count for the run's exit status."""
    if f.waived or f.scope in RUN_ONLY_SCOPES:
        return None
    if f.severity == Severity.ERROR:
        return "error" if f.invalidates else None
    return "warning" if f.severity == Severity.WARNING else None


def scope_note(f: Finding) -> str:
    """The scope of a finding as reporters show it: ``root``, ``system``, ... with ", results unaffected"
    for an error that fails the run without invalidating the results below it; "" when unknown."""
    if not f.scope:
        return ""
    return f.scope + (", results unaffected" if f.severity == Severity.ERROR and not f.invalidates else "")


def results_in_scope(ids) -> Callable[[str | None], list[str]]:
    """For result ids (paths such as ``closed/Acme/results/sys/resnet50/Offline``), a function giving
    the ids a finding scope contains, in the order of ``ids``: the root scope "" holds every result, a
    folder the results below it, a result itself. Built once, so that matching many findings to many
    results does not compare each pair."""
    below: dict[str, list[str]] = {}
    for rid in ids:
        parts = rid.split("/")
        for scope in {"", *("/".join(parts[:end]) for end in range(1, len(parts) + 1))}:
            below.setdefault(scope, []).append(rid)

    def holders(scope: str | None) -> list[str]:
        return below.get(scope, []) if scope is not None else []

    return holders


def findings_in_scope(ids, findings) -> dict[str, list]:
    """For each result id, the findings whose scope contains it, in the order of ``findings``."""
    mine: dict[str, list] = {rid: [] for rid in ids}
    holders = results_in_scope(mine)
    for f in findings:
        for rid in holders(f.result_id):
            mine[rid].append(f)
    return mine


COMPLIANT_PROFILES = ("default", "official")


@dataclass
class Report:
    """A checked tree's report: its results, findings, round and how they were made."""

    root: str
    round: str
    round_reason: str
    profile: str
    results: list[ResultSummary] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    checks_run: int = 0
    elapsed_s: float = 0.0
    tool_version: str = ""  # checker.loaders.fingerprint: which mlpc, and which source and data files, made it
    fingerprint: str = ""

    @property
    def compliant_profile(self) -> bool:
        """Results were checked by the rules (default) or by the official checker's verdicts (official);
        a smoke check is not a compliance check."""
        return self.profile in COMPLIANT_PROFILES

    def severities(self) -> dict[str, int]:
        """How many findings that are not waived there are per severity value (a spool tallies them as
        they are written, so they are not read back for this)."""
        tally = getattr(self.findings, "tally", None)
        if tally is not None:
            return tally()
        sev: dict[str, int] = {}
        for f in self.findings:
            if not f.waived:
                sev[f.severity.value] = sev.get(f.severity.value, 0) + 1
        return sev

    def counts(self) -> dict[str, int]:
        tally = self.severities()
        sev = {s: tally.get(s, 0) for s in ("error", "warning", "info")}
        return {
            "results": len(self.results),
            "valid": sum(1 for r in self.results if r.valid),
            "invalid": sum(1 for r in self.results if not r.valid),
            "errors": sev["error"], "warnings": sev["warning"], "infos": sev["info"],
        }

    def has_errors(self) -> bool:
        return self.severities().get(Severity.ERROR.value, 0) > 0

    def has_warnings(self) -> bool:
        return self.severities().get(Severity.WARNING.value, 0) > 0

    def ok(self, strict: bool = False) -> bool:
        """The verdict of ``mlpc check`` (exit 0): no error finding counts and every result is valid;
        with ``strict``, no warning counts either."""
        return not (self.has_errors() or any(not r.valid for r in self.results) or (strict and self.has_warnings()))
