"""Value types shared by every part of mlpc: severities, locations, findings and reports.

Everything here is frozen so that checks stay pure and reports are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Severity(str, Enum):
    """How a finding is graded. The round file decides; checks never set it."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    OFF = "off"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1, "off": 0}[self.value]


@dataclass(frozen=True, order=True)
class Location:
    """Where a finding points: a path relative to the submission root, plus an
    optional line number or JSON pointer inside that file."""

    path: str
    line: int | None = None
    pointer: str | None = None

    def __str__(self) -> str:
        text = self.path
        if self.line is not None:
            text += f":{self.line}"
        if self.pointer:
            text += f"#{self.pointer}"
        return text


@dataclass(frozen=True)
class Finding:
    """What a check yields: a message with where / expected / actual / hint.

    ``code`` and ``severity`` are stamped by the engine from the check and the
    round file; a check leaves them empty. So are ``scope`` (the level the finding is about: root,
    division, submitter, system, model, result or round) and ``invalidates`` (whether an error here makes
    the results below ``result_id`` invalid; a root or division error fails the run but leaves the
    results valid, a system error invalidates only when the round says the description is unusable).
    """

    message: str
    location: Location
    expected: str | None = None
    actual: str | None = None
    hint: str | None = None
    code: str = ""
    severity: Severity = Severity.ERROR
    result_id: str | None = None
    waived: str | None = None
    data: tuple[tuple[str, Any], ...] = field(default=())
    scope: str = ""
    invalidates: bool = True

    def sort_key(self) -> tuple:
        return (self.result_id or "", self.location.path, self.code, self.message)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "location": {"path": self.location.path},
        }
        if self.location.line is not None:
            out["location"]["line"] = self.location.line
        if self.location.pointer:
            out["location"]["pointer"] = self.location.pointer
        for name in ("expected", "actual", "hint", "result_id", "waived"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.scope:
            out["scope"] = self.scope
        out["invalidates"] = self.invalidates
        if self.data:
            out["data"] = {k: v for k, v in self.data}
        return out


class MlpcError(Exception):
    """A user-facing failure of the tool itself (bad arguments, unknown round).

    The CLI turns it into a one-line message and exit code 2, never a traceback.
    """
