"""Appendix B bandwidth minima: ingress and egress bytes/s a datacenter system must sustain.

    minimum bytes/s = throughput (samples/s) * factor * sum(count_i * dtype_size_i)

The per-benchmark sizes live in ``rules/appendix_b.yaml`` (a copy of tables B.1 and B.2 of the rules);
this module only does the arithmetic and explains it. Everything here is pure except
:func:`load_appendix_b`, which reads that YAML file once (it belongs in ``checker.loaders``; it is kept
here until the loaders package grows an Appendix B reader).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from checker.models.appendix_b import AppendixB, Benchmark, Direction, Requirement, Term  # noqa: F401

_MODELS = ("Term", "Requirement", "Benchmark", "AppendixB")


def __getattr__(name: str):
    # the table's validating models, where a caller asks this module for them (they import pydantic)
    if name in _MODELS:
        from checker.models import appendix_b

        return getattr(appendix_b, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@lru_cache(maxsize=1)
def load_appendix_b() -> AppendixB:
    """Read ``rules/appendix_b.yaml`` (the one IO function of this module)."""
    from checker.loaders.data_cache import cached_object, read_yaml
    from checker.loaders.data_files import data_dir

    path = os.path.join(data_dir("rules"), "appendix_b.yaml")

    def build() -> AppendixB:
        from checker.models.appendix_b import AppendixB

        return AppendixB(**read_yaml(path))

    # validated once per content of the file and of the models (kept as a record: checker.models.record)
    return cached_object("appendix-b", [path], ["checker.models.appendix_b", __name__], build, "AppendixB")


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
