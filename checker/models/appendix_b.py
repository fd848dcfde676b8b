"""The strict pydantic models of ``rules/appendix_b.yaml`` (tables B.1 and B.2 of the rules).

A check holds the table as a record (``checker.metrics.bandwidth.load_appendix_b``); these models validate the
file when it changes.
"""

# (no `from __future__ import annotations`: pydantic reads the models' field types as Python made them, instead of
# evaluating the text of each annotation when the class is made, a few ms of every start-up)

from typing import Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from checker.models.record_methods import AppendixBMethods

Direction = Literal["ingress", "egress"]


class _Strict(BaseModel):
    # the validators are built where the table is validated: a check unpickles it (load_appendix_b)
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Term(_Strict):
    count: int
    dtype: Union[int, str]  # index into the declared input types, or a fixed type name


class Requirement(_Strict):
    negligible: bool = False
    symbolic: str | None = None
    numeric: str | None = None
    factor: int = 1
    terms: list[Term] = Field(default_factory=list)


class Benchmark(_Strict):
    name: str
    dataset: str
    models: list[str]
    ingress: Requirement
    egress: Requirement


class AppendixB(AppendixBMethods, _Strict):
    source: str
    dtype_sizes: dict[str, int]
    unknown_dtype_size: int
    benchmarks: dict[str, Benchmark]
