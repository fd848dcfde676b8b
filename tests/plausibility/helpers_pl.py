"""Constructed result summaries and round contexts for the PL checks (no files involved)."""

from __future__ import annotations

from checker.context import RoundCtx
from checker.diagnostics import Severity
from checker.loaders.hardware import default_tables
from checker.loaders.rules import load_rules
from checker.registry import by_code
from checker.report import ResultSummary

HW, WORK = default_tables()
TH = WORK.thresholds
RULES = load_rules("v4.1")
H200 = "NVIDIA H200-SXM-141GB"
TERA, GIGA = 1e12, 1e9
RESNET_GFLOP = 8.18
H200_TOPS = 1979.0


def resnet_rate(utilisation: float, accelerators: int = 1, tops: float = H200_TOPS) -> float:
    """ResNet50 samples/s giving that roofline utilisation: U = X * F / (n * P)."""
    return utilisation * accelerators * tops * TERA / (RESNET_GFLOP * GIGA)


def system_fields(accelerator: str = H200, count="1", **extra) -> tuple:
    fields = {"status": "available", "system_type": "datacenter", "accelerator_model_name": accelerator,
              "accelerators_per_node": count, "number_of_nodes": "1",
              "host_processor_model_name": "Example CPU", "host_processors_per_node": "2",
              "host_networking": "Ethernet", "host_network_card_count": "1"}
    fields.update(extra)
    return tuple(sorted(fields.items()))


def summary(system: str = "sys1", model: str = "resnet50", scenario: str = "Offline", value: float | None = 1000.0,
            *, division: str = "closed", submitter: str = "Acme", mlperf_model: str | None = None,
            valid: bool = True, unit: str | None = None, inferred: bool = False, accuracy: tuple = (),
            fields: tuple | None = None, power: float | None = None) -> ResultSummary:
    if unit is None:
        unit = "Latency (ms)" if scenario in ("SingleStream", "MultiStream") else "Samples/s"
    return ResultSummary(
        id=f"{division}/{submitter}/results/{system}/{model}/{scenario}", division=division, submitter=submitter,
        system=system, model=model, mlperf_model=mlperf_model or ("resnet" if model == "resnet50" else model),
        scenario=scenario, scenario_dir=scenario, valid=valid, value=value, unit=unit, inferred=inferred,
        has_power=power is not None, power_value=power, accuracy=accuracy,
        system_fields=fields if fields is not None else system_fields())


def ctx(*summaries: ResultSummary) -> RoundCtx:
    return RoundCtx(root="/nowhere", results=tuple(sorted(summaries, key=lambda s: s.id)))


def run(code: str, round_ctx: RoundCtx, rules=RULES) -> list:
    """Findings of one PL check on a constructed round (code and severity left unstamped)."""
    return list(by_code()[code].run(round_ctx, rules))


def run_all(round_ctx: RoundCtx, rules=RULES) -> dict[str, list]:
    return {code: run(code, round_ctx, rules) for code in ("PL001", "PL002", "PL003", "PL004", "PL005")}


def codes(round_ctx: RoundCtx, rules=RULES) -> set[str]:
    return {code for code, found in run_all(round_ctx, rules).items() if found}


SEVERITY = {code: Severity(RULES.severities[code]) for code in ("PL001", "PL002", "PL003", "PL004", "PL005")}
