"""Records of a plausibility assessment (``Flag``, ``Roofline``, ``Assessment``), made without pydantic.

``checker.metrics.plausibility`` builds thousands per round; each shape checks its values as the model of
``checker.models.assessment`` would and leaves any other value to it (``checker.models.record_build``).
"""

from __future__ import annotations

from checker.models.record_build import (
    REQUIRED, Shape, integer, number, one_of, optional, record_of, records_of, text,
)


class AssessmentMethods:
    __slots__ = ()

    @property
    def utilisation(self) -> float | None:
        return self.roofline.utilisation if self.roofline else None


def _model(name: str):
    def model() -> type:
        from checker.models import assessment

        return getattr(assessment, name)

    return model


FLAG = Shape("Flag", None, (
    ("level", one_of("error", "warning", "info"), REQUIRED),
    ("name", text, REQUIRED),
    ("message", text, REQUIRED),
), _model("Flag"))

ROOFLINE = Shape("Roofline", None, (
    ("utilisation", number, REQUIRED),
    ("bound", one_of("compute", "decode-bandwidth"), REQUIRED),
    ("compute_utilisation", number, REQUIRED),
    ("bandwidth_utilisation", optional(number), None),
    ("accelerators", integer, REQUIRED),
    ("hardware_key", text, REQUIRED),
    ("precision", text, REQUIRED),
    ("peak_tops", number, REQUIRED),
    ("work_gflop_per_sample", number, REQUIRED),
    ("output_tokens", optional(number), None),
    ("samples_per_second", optional(number), None),
    ("latency_s", optional(number), None),
    ("line", text, REQUIRED),
), _model("Roofline"))

ASSESSMENT = Shape("Assessment", AssessmentMethods, (
    ("submission_id", text, REQUIRED),
    ("submitter", text, REQUIRED),
    ("system_id", text, REQUIRED),
    ("accelerator", text, REQUIRED),
    ("model", text, REQUIRED),
    ("scenario", text, REQUIRED),
    ("value", number, REQUIRED),
    ("units", text, REQUIRED),
    ("status", one_of("assessed", "no-assessment"), REQUIRED),
    ("reason", optional(text), None),
    ("roofline", optional(record_of(ROOFLINE)), None),
    ("per_accelerator", optional(number), None),
    ("peer_ratio", optional(number), None),
    ("peer_count", integer, 0),
    ("server_offline_ratio", optional(number), None),
    ("flags", records_of(FLAG), ()),
    ("score", optional(number), None),
    ("score_driver", optional(text), None),
), _model("Assessment"))
