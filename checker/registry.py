"""ALL_CHECKS: the explicit concatenation of every category's CHECKS tuple."""

from __future__ import annotations

from checker.checks import (
    accuracy, bandwidth, compliance, duplicate_keys, endpoint, log_record, measurements, nameplate, performance,
    plausibility, power, structure, system,
)

ALL_CHECKS = (
    structure.CHECKS
    + duplicate_keys.CHECKS
    + system.CHECKS
    + measurements.CHECKS
    + accuracy.CHECKS
    + performance.CHECKS
    + log_record.CHECKS
    + power.CHECKS
    + nameplate.CHECKS
    + compliance.CHECKS
    + endpoint.CHECKS
    + bandwidth.CHECKS
    + plausibility.CHECKS
)

TOOL_CODES = {
    "TL001": ("check-crashed", "A check raised an exception; the tool reports it instead of stopping."),
    "TL002": ("file-unparseable", "A file could not be parsed; reported with its location."),
    "TL003": ("waiver-unused", "A waiver of the --waivers file matched no finding (stale, or a wrong code or path)."),
    "TL004": ("cache-unusable", "The incremental cache could not be used (unreadable folder or damaged entry);"
              " that part was checked without it."),
}


def by_code() -> dict:
    return {c.code: c for c in ALL_CHECKS}
