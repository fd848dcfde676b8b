"""The strict pydantic models of ``rules/hardware.yaml`` and ``rules/work_per_sample.yaml``. An unknown key, a
missing ``source`` or a wrong type is a hard error (``pydantic.ValidationError`` / ``ValueError``). A check holds
the shipped tables as records of these models (``checker.loaders.hardware.default_tables``); their matching
logic is in ``checker.models.hardware_methods``.
"""

# (no `from __future__ import annotations`: pydantic reads the models' field types as Python made them, instead of
# evaluating the text of each annotation when the class is made, a few ms of every start-up)

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from checker.models.hardware_methods import (
    HardwareEntryMethods, HardwareTableMethods, Precision, WorkTableMethods,
)


class _Strict(BaseModel):
    # the validators are built where a table is validated: a check unpickles the shipped ones (default_tables)
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class HardwareEntry(HardwareEntryMethods, _Strict):
    key: str = Field(min_length=1)
    kind: Literal["accelerator", "cpu"]
    match_all: tuple[str, ...] = Field(min_length=1)
    match_none: tuple[str, ...] = ()
    peak_tops: dict[Precision, float]
    memory_bandwidth_gbps: float | None = Field(default=None, gt=0)
    memory_gb: float | None = Field(default=None, gt=0)
    source: str = Field(min_length=1)
    notes: str | None = None

    @field_validator("match_all", "match_none", mode="before")
    @classmethod
    def _strs(cls, v: object) -> object:
        if isinstance(v, (list, tuple)):
            return tuple(str(x) for x in v)
        return v

    @field_validator("peak_tops")
    @classmethod
    def _positive(cls, v: dict[str, float]) -> dict[str, float]:
        if any(x <= 0 for x in v.values()):
            raise ValueError("peak figures must be positive")
        return v


class HardwareTable(HardwareTableMethods, _Strict):
    format: Literal["mlpc-hardware/1"]
    entries: tuple[HardwareEntry, ...]

    @model_validator(mode="after")
    def _unique(self) -> "HardwareTable":
        keys = [e.key for e in self.entries]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate hardware key")
        return self


class FixedWork(_Strict):
    key: str
    models: tuple[str, ...] = Field(min_length=1)
    kind: Literal["fixed"]
    gflop_per_sample: float = Field(gt=0)
    source: str = Field(min_length=1)
    notes: str | None = None


class LlmWork(_Strict):
    key: str
    models: tuple[str, ...] = Field(min_length=1)
    kind: Literal["llm"]
    matmul_params: float = Field(gt=0)
    total_params: float = Field(gt=0)
    input_tokens: float = Field(gt=0)
    reference_output_tokens: float = Field(gt=0)
    beams: int = Field(ge=1)
    layers: int = Field(ge=1)
    attention_dim: int = Field(ge=1)
    source: str = Field(min_length=1)
    notes: str | None = None


class Assumptions(_Strict):
    min_weight_bytes_per_param: float = Field(gt=0)
    multistream_samples_per_query: int = Field(ge=1)


class Thresholds(_Strict):
    utilisation_error: float = Field(gt=0)
    utilisation_warning: float = Field(gt=0)
    peer_ratio_warning: float = Field(gt=0)
    peer_min_count: int = Field(ge=1)
    server_offline_warning: float = Field(gt=0)
    server_offline_info: float = Field(gt=0)


class WorkTable(WorkTableMethods, _Strict):
    format: Literal["mlpc-work-per-sample/1"]
    benchmarks: tuple[FixedWork | LlmWork, ...]
    assumptions: Assumptions
    thresholds: Thresholds

    @model_validator(mode="after")
    def _unique(self) -> "WorkTable":
        names = [m.casefold() for b in self.benchmarks for m in b.models]
        if len(set(names)) != len(names):
            raise ValueError("a model name is listed under two benchmarks")
        return self
