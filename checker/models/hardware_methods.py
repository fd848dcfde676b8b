"""The matching logic of the hardware and work tables (``rules/hardware.yaml``, ``rules/work_per_sample.yaml``):
hardware names in their matching form, and the methods the tables' models and their records both inherit
(``checker.models.hardware_tables``, ``checker.models.record``). Nothing here imports pydantic: a check holds the
shipped tables as records (``checker.loaders.hardware.default_tables``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # (the models that inherit these methods; their records have the same fields)
    from checker.models.hardware_tables import FixedWork, HardwareEntry, LlmWork

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


class HardwareEntryMethods:
    __slots__ = ()

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


_LOOKUPS: dict[tuple, tuple] = {}  # (id of the table, name, kind) -> (the table, its entries that match)


class HardwareTableMethods:
    __slots__ = ()

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


class WorkTableMethods:
    __slots__ = ()

    def lookup(self, model: str) -> FixedWork | LlmWork | None:
        m = model.strip().casefold()
        for b in self.benchmarks:
            if m in (x.casefold() for x in b.models):
                return b
        return None
