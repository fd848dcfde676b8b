"""Appendix B bandwidth minima: ingress and egress bytes/s a datacenter system must sustain.

    minimum bytes/s = throughput (samples/s) * factor * sum(count_i * dtype_size_i)

The per-benchmark sizes live in ``rules/appendix_b.yaml`` (a copy of tables B.1 and B.2 of the rules);
this module only does the arithmetic and explains it. Everything here is pure except
:func:`load_appendix_b`, which reads that YAML file once (it belongs in ``checker.loaders``; it is kept
here until the loaders package grows an Appendix B reader).
"""

# (no `from __future__ import annotations`: pydantic reads the models' field types as Python made them, instead of
# evaluating the text of each annotation when the class is made, a few ms of every start-up)

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Union

from pydantic import BaseModel, ConfigDict, Field


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


class AppendixB(_Strict):
    source: str
    dtype_sizes: dict[str, int]
    unknown_dtype_size: int
    benchmarks: dict[str, Benchmark]

    def for_model(self, mlperf_model: str) -> tuple[str, Benchmark] | None:
        for key, bench in self.benchmarks.items():
            if mlperf_model in bench.models or mlperf_model == key:
                return key, bench
        return None


@lru_cache(maxsize=1)
def load_appendix_b() -> AppendixB:
    """Read ``rules/appendix_b.yaml`` (the one IO function of this module)."""
    import sys

    from checker.loaders.data_cache import cached_object, read_yaml
    from checker.loaders.rules import data_dir

    path = data_dir("rules") / "appendix_b.yaml"
    # validated once per content of the file and of this module (its validator is then never built)
    return cached_object("appendix-b", [path], [sys.modules[__name__]], lambda: AppendixB(**read_yaml(path)),
                         AppendixB)


@dataclass(frozen=True)
class DeclaredTypes:
    """The data types read from ``input_data_types``, in order, with their sizes."""

    names: tuple[str, ...]
    sizes: tuple[int, ...]
    text: str
    assumed: bool  # True when no known type was found and the unknown size is used

    def size(self, index: int, fallback: int) -> tuple[str, int]:
        if not self.sizes:
            return "unknown", fallback
        i = min(index, len(self.sizes) - 1)
        return self.names[i], self.sizes[i]


def declared_types(value: object, table: AppendixB) -> DeclaredTypes:
    """Known type names in the implementation JSON's ``input_data_types`` (a string or a list)."""
    if isinstance(value, (list, tuple)):
        text = ", ".join(str(v) for v in value)
    elif isinstance(value, dict):
        text = ", ".join(str(v) for v in value.values())
    else:
        text = "" if value is None else str(value)
    names: list[str] = []
    lowered = text.lower()
    words = sorted(table.dtype_sizes, key=len, reverse=True)
    pattern = re.compile(r"(?<![a-z0-9])(" + "|".join(re.escape(w) for w in words) + r")(?![a-z0-9])")
    for match in pattern.finditer(lowered):
        names.append(match.group(1))
    sizes = tuple(table.dtype_sizes[n] for n in names)
    return DeclaredTypes(tuple(names), sizes, text, assumed=not names)


@dataclass(frozen=True)
class Minimum:
    """One Appendix B minimum with the formula and inputs that produced it."""

    direction: str
    benchmark: str
    bytes_per_s: float  # 0.0 for a negligible requirement ("> 0")
    negligible: bool
    bytes_per_sample: float
    formula: str  # e.g. "throughput*150528*dtype_size"
    inputs: str  # e.g. "throughput=100 samples/s, dtype_size=4 (fp32)"
    assumed: tuple[str, ...] = ()  # assumptions made (unknown dtype, assumed output type)

    @property
    def explanation(self) -> str:
        if self.negligible:
            return f"{self.direction} ({self.benchmark}): negligible, minimum > 0 B/s"
        text = (f"{self.direction} ({self.benchmark}): {self.formula} with {self.inputs} "
                f"= {self.bytes_per_s:.6g} B/s ({self.bytes_per_s * 8 / 1e9:.6g} Gb/s)")
        if self.assumed:
            text += " [assumed: " + "; ".join(self.assumed) + "]"
        return text


def minimum(table: AppendixB, benchmark: str, direction: Direction, throughput: float,
            types: DeclaredTypes) -> Minimum:
    """The Appendix B minimum for ``throughput`` samples/s of ``benchmark`` (a key of the table)."""
    bench = table.benchmarks[benchmark]
    req: Requirement = getattr(bench, direction)
    if req.negligible:
        return Minimum(direction, bench.name, 0.0, True, 0.0, "> 0", f"throughput={throughput:g} samples/s")
    per_sample = 0
    inputs = [f"throughput={throughput:g} samples/s"]
    assumed: list[str] = []
    parts = []
    for n, term in enumerate(req.terms):
        suffix = "" if len(req.terms) == 1 else str(n + 1)
        if isinstance(term.dtype, int):
            name, size = types.size(term.dtype, table.unknown_dtype_size)
            if types.assumed:
                assumed.append(f"input_data_types {types.text!r} names no known type: "
                               f"{table.unknown_dtype_size} byte(s) per element")
        else:
            name, size = term.dtype, table.dtype_sizes[term.dtype]
            assumed.append(f"output type {term.dtype} (the rules name none)")
        per_sample += term.count * size
        parts.append(f"{term.count}*dtype_size{suffix}")
        inputs.append(f"dtype_size{suffix}={size} ({name})")
    per_sample *= req.factor
    body = "+".join(parts)
    formula = (f"throughput*{req.factor}*({body})" if req.factor != 1
               else f"throughput*{body}")
    return Minimum(direction, bench.name, throughput * per_sample, False, float(per_sample), formula,
                   ", ".join(inputs), tuple(dict.fromkeys(assumed)))


def minima(table: AppendixB, benchmark: str, throughput: float, types: DeclaredTypes) -> tuple[Minimum, Minimum]:
    return (minimum(table, benchmark, "ingress", throughput, types),
            minimum(table, benchmark, "egress", throughput, types))
