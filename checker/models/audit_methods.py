"""What the audit inputs' models (``checker.models.audit_inputs``) and their records share, without pydantic:
the comparison form of free text, the units, the properties of ``ScenarioResult`` and ``Submission`` (mixins both
inherit), and the shapes that make their records straight from field values (``checker.models.record_build``).
The round checks build these records from the engine's summaries (``checker.audit.from_report``); a value the
shapes leave to the models is validated by them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from checker.models.record_build import (
    REQUIRED, Shape, flag, one_of, optional, positive_finite, records_of, stripped, stripped_nonempty, Refused,
)

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


def int_or_none(v: object) -> object:
    """A count of a system description as ``Submission`` reads it: numbers, numeric strings, "N/A" or "".
    Anything non-numeric is None."""
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


class ScenarioResultMethods:
    __slots__ = ()

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


class SubmissionMethods:
    __slots__ = ()

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


def _count(value: object) -> int | None:
    try:
        found = int_or_none(value)
    except ValueError:  # (a digit int() does not read: the model reports it)
        raise Refused from None
    if found is None:
        return None
    if type(found) is not int or found < 0:
        raise Refused
    return found


def _scenario_result_model() -> type:
    from checker.models.audit_inputs import ScenarioResult

    return ScenarioResult


def _submission_model() -> type:
    from checker.models.audit_inputs import Submission

    return Submission


SCENARIO_RESULT = Shape("ScenarioResult", ScenarioResultMethods, (
    ("model", stripped_nonempty, REQUIRED),
    ("scenario", stripped_nonempty, REQUIRED),
    ("value", positive_finite, REQUIRED),
    ("units", one_of("samples/s", "tokens/s", "queries/s", "ms"), REQUIRED),
    ("inferred", flag, False),
    ("power_metric", optional(positive_finite), None),
    ("has_power", flag, False),
    ("samples_per_second", optional(positive_finite), None),
), _scenario_result_model)


def _network(value: object) -> dict[str, str]:
    # (only a mapping already in its stripped form: the model strips keys and values)
    if type(value) is not dict or any(type(k) is not str or type(v) is not str or k != k.strip() or v != v.strip()
                                      for k, v in value.items()):
        raise Refused
    return dict(value)


SUBMISSION = Shape("Submission", SubmissionMethods, (
    ("division", stripped, REQUIRED),
    ("submitter", stripped_nonempty, REQUIRED),
    ("system_id", stripped_nonempty, REQUIRED),
    ("status", stripped, REQUIRED),
    ("system_type", stripped, ""),
    ("accelerator_model_name", optional(stripped), None),
    ("accelerators_per_node", _count, None),
    ("number_of_nodes", _count, 1),
    ("host_processor_model_name", optional(stripped), None),
    ("host_processors_per_node", _count, None),
    ("host_networking", optional(stripped), None),
    ("host_network_card_count", optional(stripped), None),
    ("is_network", flag, False),
    ("network_config", _network, REQUIRED),
    ("round", optional(stripped), None),
    ("results", records_of(SCENARIO_RESULT), ()),
), _submission_model)
