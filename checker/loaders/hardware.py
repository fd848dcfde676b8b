"""Load ``rules/hardware.yaml`` and ``rules/work_per_sample.yaml`` into strict, frozen models.

IO lives here; the models and the matching logic they carry are pure. An unknown key, a missing
``source`` or a wrong type is a hard error (``pydantic.ValidationError`` / ``ValueError``).
"""

# (no `from __future__ import annotations`: pydantic reads the models' field types as Python made them, instead of
# evaluating the text of each annotation when the class is made, a few ms of every start-up)

from checker.loaders.rules import data_dir

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from checker.loaders import data_cache

RULES_DIR = data_dir("rules")
HARDWARE_FILE = RULES_DIR / "hardware.yaml"
WORK_FILE = RULES_DIR / "work_per_sample.yaml"

Precision = Literal["fp4", "fp8", "int8", "fp16"]
#: Precisions admissible as the roofline reference (plausibility.md §2.1: best of FP4 where
#: supported, FP8, INT8). FP16/BF16 is informational only.
ROOFLINE_PRECISIONS: tuple[Precision, ...] = ("fp4", "fp8", "int8")

_DROP = re.compile(r"\(r\)|\(tm\)|[\s\-_]+")


def normalise_hw_name(name: str | None) -> str:
    """Matching form of a hardware name: casefold, drop "(r)", "(tm)", spaces, hyphens and
    underscores. ``"NVIDIA H200-SXM-141GB"`` → ``"nvidiah200sxm141gb"``."""
    return _hw_key(name or "")


@lru_cache(maxsize=65536)  # pure, and asked for the same few names thousands of times per round
def _hw_key(name: str) -> str:
    return _DROP.sub("", name.casefold())


class _Strict(BaseModel):
    # the validators are built where a table is validated: a check unpickles the shipped ones (default_tables)
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class HardwareEntry(_Strict):
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

    def matches(self, name: str) -> bool:
        n = normalise_hw_name(name)
        return all(normalise_hw_name(p) in n for p in self.match_all) and not any(
            normalise_hw_name(p) in n for p in self.match_none)

    def roofline_peak(self) -> tuple[Precision, float] | None:
        """Best dense peak among the admissible precisions, in TOPS; None if none is listed."""
        best: tuple[Precision, float] | None = None
        for p in ROOFLINE_PRECISIONS:
            v = self.peak_tops.get(p)
            if v is not None and (best is None or v > best[1]):
                best = (p, v)
        return best


class HardwareTable(_Strict):
    format: Literal["mlpc-hardware/1"]
    entries: tuple[HardwareEntry, ...]

    @model_validator(mode="after")
    def _unique(self) -> "HardwareTable":
        keys = [e.key for e in self.entries]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate hardware key")
        return self

    def lookup(self, name: str | None, kind: str | None = None) -> list[HardwareEntry]:
        """Every entry matching ``name`` (0: unknown, 1: found, more: ambiguous). Remembered per table,
        name and kind: a round names the same few accelerators on thousands of results."""
        key = (id(self), name, kind)
        hit = _LOOKUPS.get(key)
        if hit is not None and hit[0] is self:
            return list(hit[1])
        if not normalise_hw_name(name):
            found: list[HardwareEntry] = []
        else:
            found = [e for e in self.entries if (kind is None or e.kind == kind) and e.matches(name or "")]
        if len(_LOOKUPS) > 4096:
            _LOOKUPS.clear()
        _LOOKUPS[key] = (self, tuple(found))
        return found


_LOOKUPS: dict[tuple, tuple[HardwareTable, tuple[HardwareEntry, ...]]] = {}


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


class WorkTable(_Strict):
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

    def lookup(self, model: str) -> FixedWork | LlmWork | None:
        m = model.strip().casefold()
        for b in self.benchmarks:
            if m in (x.casefold() for x in b.models):
                return b
        return None


def _read_yaml(path: Path) -> object:
    return data_cache.read_yaml(path, stream=True)  # (the parse of the open file, cached for the shipped tables)


def load_hardware(path: Path | str = HARDWARE_FILE) -> HardwareTable:
    return HardwareTable.model_validate(_read_yaml(Path(path)))


def load_work(path: Path | str = WORK_FILE) -> WorkTable:
    return WorkTable.model_validate(_read_yaml(Path(path)))


@lru_cache(maxsize=1)
def default_tables() -> tuple[HardwareTable, WorkTable]:
    """The shipped tables, loaded once (validated once per content of the files and of this module: their
    validators are then never built)."""
    import sys

    return data_cache.cached_object("hardware-tables", [HARDWARE_FILE, WORK_FILE], [sys.modules[__name__]],
                                    lambda: (load_hardware(), load_work()), tuple)
