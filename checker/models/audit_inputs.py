"""Inputs of the audit-selection and plausibility logic.

These models are deliberately independent of the rest of the checker: the engine (or the small
tree adapter in ``checker/audit/tree_adapter.py``, or a JSON file) builds them, and the pure logic in
``checker/audit/eligibility.py``, ``checker/audit/selection.py`` and
``checker/metrics/plausibility.py`` consumes them.

One :class:`Submission` is one *submission for audit purposes* in the sense of rules §2.8: "a
combination of a submitter and a platform (equivalent to a line in the results table)". Its
results are a list of :class:`ScenarioResult`.

JSON file format (``mlpc audit ... FILE.json``): either a list of Submission objects, or an object
``{"submissions": [...]}``. Field names are exactly the attribute names below; unknown keys are
rejected. Example::

    {"submissions": [
      {"division": "closed", "submitter": "Acme", "system_id": "box8",
       "status": "available", "system_type": "datacenter",
       "accelerator_model_name": "NVIDIA H200-SXM-141GB", "accelerators_per_node": 8,
       "number_of_nodes": 1, "host_processor_model_name": "Intel Xeon Platinum 8480C",
       "host_processors_per_node": 2, "host_networking": "Infiniband",
       "results": [{"model": "llama2-70b-99", "scenario": "Offline", "value": 31302.7,
                    "units": "tokens/s", "samples_per_second": 107.477}]}
    ]}
"""

# (no `from __future__ import annotations`: pydantic reads the models' field types as Python made them, instead of
# evaluating the text of each annotation when the class is made, a few ms of every start-up)

import re
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: Units understood by the plausibility maths. Throughput units are "higher is better",
#: latency units are "lower is better".
Units = Literal["samples/s", "tokens/s", "queries/s", "ms"]
THROUGHPUT_UNITS: frozenset[str] = frozenset({"samples/s", "tokens/s", "queries/s"})
LATENCY_UNITS: frozenset[str] = frozenset({"ms"})

_WS = re.compile(r"\s+")


def normalise_text(value: str | None) -> str:
    """The comparison form of a free-text field: Unicode casefold, whitespace runs collapsed to
    one space, leading/trailing whitespace removed. ``None`` becomes the empty string."""
    if value is None:
        return ""
    return _normalised(value if isinstance(value, str) else str(value))


@lru_cache(maxsize=65536)  # pure, and asked for the same few names thousands of times per round
def _normalised(text: str) -> str:
    return _WS.sub(" ", text).strip().casefold()


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True, defer_build=True)


class ScenarioResult(_Frozen):
    """One measured (or inferred) result of a submission: one model in one scenario."""

    model: str = Field(min_length=1)
    scenario: str = Field(min_length=1)
    value: float = Field(gt=0, allow_inf_nan=False)
    units: Units
    inferred: bool = False
    #: Power metric as reported (Watts for Offline/Server, energy per query for the latency
    #: scenarios). ``None`` when not measured or not computed.
    power_metric: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    #: True when a power measurement was submitted for this result, even if ``power_metric`` could
    #: not be computed (e.g. the tree adapter sees the power logs but does not integrate them).
    has_power: bool = False
    #: For LLM results reported in tokens/s: the samples/s of the same run, from which the mean
    #: output length ``tokens/samples`` is derived. Optional.
    samples_per_second: float | None = Field(default=None, gt=0, allow_inf_nan=False)

    @property
    def power_measured(self) -> bool:
        return self.has_power or self.power_metric is not None

    @property
    def is_latency(self) -> bool:
        return self.units in LATENCY_UNITS

    @property
    def key(self) -> tuple[str, str]:
        """(model, scenario) in comparison form."""
        return (normalise_text(self.model), normalise_text(self.scenario))


class Submission(_Frozen):
    """One row of the results table: a submitter and a platform (system id)."""

    division: str
    submitter: str = Field(min_length=1)
    system_id: str = Field(min_length=1)
    status: str
    system_type: str = ""
    accelerator_model_name: str | None = None
    accelerators_per_node: int | None = Field(default=None, ge=0)
    number_of_nodes: int | None = Field(default=1, ge=0)
    host_processor_model_name: str | None = None
    host_processors_per_node: int | None = Field(default=None, ge=0)
    host_networking: str | None = None
    host_network_card_count: str | None = None
    is_network: bool = False
    #: Networking description for LoadGen-over-Network submissions (field name → value, from the
    #: system JSON). Compared as a whole, after normalising each value.
    network_config: dict[str, str] = Field(default_factory=dict)
    #: Round label, e.g. "v4.1"; used to order audits of earlier rounds ("last audit time").
    round: str | None = None
    results: tuple[ScenarioResult, ...] = ()

    @field_validator("accelerators_per_node", "number_of_nodes", "host_processors_per_node",
                     mode="before")
    @classmethod
    def _int_or_none(cls, v: object) -> object:
        # System JSONs carry numbers, numeric strings, "N/A" or "". Anything non-numeric is None.
        if v is None or isinstance(v, bool):
            return None
        if isinstance(v, int):
            return v
        if isinstance(v, float):
            return int(v) if v.is_integer() else None
        if isinstance(v, str):
            s = v.strip()
            return int(s) if s.isdigit() else None
        return None

    @property
    def id(self) -> str:
        """Stable identifier: ``division/submitter/system_id`` exactly as given."""
        return f"{self.division}/{self.submitter}/{self.system_id}"

    @property
    def has_accelerator(self) -> bool:
        name = normalise_text(self.accelerator_model_name)
        return bool(name) and name not in {"n/a", "na", "none", "0", "-"} and bool(
            self.accelerators_per_node)

    @property
    def accelerator_count(self) -> int | None:
        """Total accelerators: ``accelerators_per_node × number_of_nodes``; for a CPU-only
        system the host processor sockets ``host_processors_per_node × number_of_nodes``.
        ``None`` when unknown."""
        nodes = self.number_of_nodes if self.number_of_nodes else 1
        if self.has_accelerator:
            return self.accelerators_per_node * nodes  # type: ignore[operator]
        if self.host_processors_per_node:
            return self.host_processors_per_node * nodes
        return None

    @property
    def accelerator_identity(self) -> str:
        """Comparison form of "the accelerator": the accelerator model name, or the host CPU
        model name for a CPU-only system."""
        if self.has_accelerator:
            return normalise_text(self.accelerator_model_name)
        return normalise_text(self.host_processor_model_name)


class SubmissionSet(_Frozen):
    """Wrapper accepted in JSON files: ``{"submissions": [...]}``."""

    submissions: tuple[Submission, ...]
