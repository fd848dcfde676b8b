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

from pydantic import BaseModel, ConfigDict, Field, field_validator

from checker.models.audit_methods import (  # noqa: F401  (imported from here too)
    LATENCY_UNITS, THROUGHPUT_UNITS, ScenarioResultMethods, SubmissionMethods, Units, int_or_none, normalise_text,
)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True, defer_build=True)


class ScenarioResult(ScenarioResultMethods, _Frozen):
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


class Submission(SubmissionMethods, _Frozen):
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
        return int_or_none(v)


class SubmissionSet(_Frozen):
    """Wrapper accepted in JSON files: ``{"submissions": [...]}``."""

    submissions: tuple[Submission, ...]
