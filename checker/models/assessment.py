"""The strict pydantic models of a plausibility assessment (``checker.metrics.plausibility``): what a value the
shapes of ``checker.models.assessment_shapes`` leave to validation is validated by, and what their records are held
to (``tests/plausibility/test_record_shapes.py``). The assessment itself builds records.
"""

# (no `from __future__ import annotations`: pydantic reads the models' field types as Python made them, instead of
# evaluating the text of each annotation when the class is made, a few ms of every start-up)

from typing import Literal

from pydantic import BaseModel, ConfigDict

from checker.models.assessment_shapes import AssessmentMethods


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Flag(_Frozen):
    level: Literal["error", "warning", "info"]
    name: str
    message: str


class Roofline(_Frozen):
    utilisation: float
    bound: Literal["compute", "decode-bandwidth"]
    compute_utilisation: float
    bandwidth_utilisation: float | None = None
    accelerators: int
    hardware_key: str
    precision: str
    peak_tops: float
    work_gflop_per_sample: float
    output_tokens: float | None = None
    samples_per_second: float | None = None
    latency_s: float | None = None
    line: str


class Assessment(AssessmentMethods, _Frozen):
    submission_id: str
    submitter: str
    system_id: str
    accelerator: str
    model: str
    scenario: str
    value: float
    units: str
    status: Literal["assessed", "no-assessment"]
    reason: str | None = None
    roofline: Roofline | None = None
    per_accelerator: float | None = None
    peer_ratio: float | None = None
    peer_count: int = 0
    server_offline_ratio: float | None = None
    flags: tuple[Flag, ...] = ()
    score: float | None = None
    score_driver: str | None = None
