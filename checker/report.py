"""The report: per-result summaries plus every finding, in a deterministic order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from checker.diagnostics import Finding, Severity

REPORT_VERSION = "1.0"


@dataclass(frozen=True)
class ResultSummary:
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
        return out


@dataclass
class Report:
    root: str
    round: str
    round_reason: str
    profile: str
    results: list[ResultSummary] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    checks_run: int = 0
    elapsed_s: float = 0.0

    def counts(self) -> dict[str, int]:
        sev = {s: 0 for s in ("error", "warning", "info")}
        for f in self.findings:
            if not f.waived and f.severity.value in sev:
                sev[f.severity.value] += 1
        return {
            "results": len(self.results),
            "valid": sum(1 for r in self.results if r.valid),
            "invalid": sum(1 for r in self.results if not r.valid),
            "errors": sev["error"], "warnings": sev["warning"], "infos": sev["info"],
        }

    def has_errors(self) -> bool:
        return any(f.severity == Severity.ERROR and not f.waived for f in self.findings)

    def has_warnings(self) -> bool:
        return any(f.severity == Severity.WARNING and not f.waived for f in self.findings)
