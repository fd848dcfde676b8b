"""Load ``rules/hardware.yaml`` and ``rules/work_per_sample.yaml``: validated by the strict models of
``checker.models.hardware_tables``; the shipped tables are held as their records (``default_tables``, no pydantic).

IO lives here; the models and the matching logic they carry (``checker.models.hardware_methods``) are pure.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import TYPE_CHECKING

from checker.loaders import data_cache
from checker.loaders.rules import data_dir
from checker.models.hardware_methods import (  # noqa: F401  (imported from here too)
    ROOFLINE_PRECISIONS, Precision, normalise_hw_name,
)

if TYPE_CHECKING:
    from checker.models.hardware_tables import HardwareTable, WorkTable

RULES_DIR = data_dir("rules")
HARDWARE_FILE = os.path.join(RULES_DIR, "hardware.yaml")
WORK_FILE = os.path.join(RULES_DIR, "work_per_sample.yaml")
_MODELS = ("HardwareEntry", "HardwareTable", "FixedWork", "LlmWork", "Assumptions", "Thresholds", "WorkTable")


def __getattr__(name: str):
    # the tables' validating models, where a caller asks this module for them (they import pydantic)
    if name in _MODELS:
        from checker.models import hardware_tables

        return getattr(hardware_tables, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _read_yaml(path: str | os.PathLike[str]) -> object:
    return data_cache.read_yaml(path, stream=True)  # (the parse of the open file, cached for the shipped tables)


def load_hardware(path: str | os.PathLike[str] = HARDWARE_FILE) -> HardwareTable:
    from checker.models.hardware_tables import HardwareTable

    return HardwareTable.model_validate(_read_yaml(path))


def load_work(path: str | os.PathLike[str] = WORK_FILE) -> WorkTable:
    from checker.models.hardware_tables import WorkTable

    return WorkTable.model_validate(_read_yaml(path))


@lru_cache(maxsize=1)
def default_tables() -> tuple[HardwareTable, WorkTable]:
    """The shipped tables, loaded once, as records (validated once per content of the files and of the code that
    reads them: their validators are then never built, and pydantic is not imported)."""
    return data_cache.cached_object("hardware-tables", [HARDWARE_FILE, WORK_FILE],
                                    [__name__, "checker.models.hardware_tables", "checker.models.hardware_methods"],
                                    lambda: (load_hardware(), load_work()), ("HardwareTable", "WorkTable"))
