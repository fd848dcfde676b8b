"""Builders for constructed rounds, and a small independent parser of the real trees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.models.audit_inputs import ScenarioResult, Submission
from tests.conftest import REAL

SHARED = Path(REAL)  # the shared real data (tests/conftest.py; MLPC_SHARED moves it)
V41 = SHARED / "v4.1"
V51 = SHARED / "v5.1"


def need(path: Path) -> Path:
    if not path.is_dir():
        pytest.skip(f"real submission data not available at {path} (../shared is absent in a "
                    "fresh clone)")
    return path


def res(model: str = "resnet50", scenario: str = "Offline", value: float = 1000.0,
        units: str = "samples/s", **kw) -> ScenarioResult:
    return ScenarioResult(model=model, scenario=scenario, value=value, units=units, **kw)


def sub(submitter: str = "Acme", system_id: str = "box", *results: ScenarioResult,
        **kw) -> Submission:
    base = dict(division="closed", status="available", system_type="datacenter",
                accelerator_model_name="NVIDIA H100-SXM-80GB", accelerators_per_node=8,
                number_of_nodes=1, host_processor_model_name="Intel Xeon Platinum 8480C",
                host_processors_per_node=2, host_networking="Infiniband")
    base.update(kw)
    return Submission(submitter=submitter, system_id=system_id,
                      results=results or (res(),), **base)


# ---------------------------------------------------------------- independent real-tree parser

_SCEN = {"offline": "Offline", "server": "Server", "singlestream": "SingleStream",
         "multistream": "MultiStream", "interactive": "Interactive"}


def _detail(path: Path) -> dict:
    out = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith(":::MLLOG "):
            rec = json.loads(line[len(":::MLLOG "):])
            out[rec["key"]] = rec["value"]
    return out


def parse_real_tree(root: Path) -> list[Submission]:
    """Closed and open systems of a real round with their throughput results only (Offline and
    Server), straight from ``systems/*.json`` and the ``result_*`` keys of the detail logs."""
    subs = []
    for js in sorted(root.glob("*/*/systems/*.json")):
        d = json.loads(js.read_text())
        sdir = js.parent.parent
        results = []
        for scen_dir in sorted((sdir / "results" / js.stem).glob("*/*")):
            scen = _SCEN.get(scen_dir.name.lower())
            log = scen_dir / "performance" / "run_1" / "mlperf_log_detail.txt"
            if scen not in ("Offline", "Server") or not log.is_file():
                continue
            k = _detail(log)
            if scen == "Offline":
                tok = k.get("result_tokens_per_second") or k.get("result_inferred_tokens_per_second")
                smp = k["result_samples_per_second"]
            else:
                tok = (k.get("result_completed_tokens_per_second")
                       or k.get("result_inferred_completed_tokens_per_second"))
                smp = k["result_completed_samples_per_sec"]
            if tok:
                results.append(res(scen_dir.parent.name, scen, float(tok), "tokens/s",
                                   samples_per_second=float(smp)))
            else:
                results.append(res(scen_dir.parent.name, scen, float(smp), "samples/s"))
        subs.append(Submission(
            division=d["division"], submitter=d["submitter"], system_id=js.stem,
            status=d["status"], system_type=d["system_type"],
            accelerator_model_name=d["accelerator_model_name"],
            accelerators_per_node=d["accelerators_per_node"],
            number_of_nodes=d["number_of_nodes"],
            host_processor_model_name=d["host_processor_model_name"],
            host_processors_per_node=d["host_processors_per_node"],
            host_networking=d["host_networking"],
            host_network_card_count=str(d.get("host_network_card_count")),
            results=tuple(results)))
    return subs
