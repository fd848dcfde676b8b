"""Waivers: findings the review committee has accepted, with the reason on record.

A waiver file is a YAML (or JSON) list of entries ``{code, path, reason}``, or a mapping with such a
list under ``waivers``::

    - code: CP005
      path: closed/ExampleCo/compliance/*/gptj-99/*/TEST01/*
      reason: "WG decision 2024-07-30: TEST01 waived for GPT-J (inference#1466)"

``path`` is a glob (fnmatch: ``*`` also crosses ``/``) matched against the finding's location path
and against its result id (the result folder, relative to the submission root). ``reason`` is
mandatory. A matching finding stays in every report, marked ``waived`` with the reason, and no
longer counts for verdicts, counts or the exit code. A waiver that matches nothing is reported as
TL003 (waiver-unused).

Parsing is :func:`parse_waivers` (text in, waivers out) and applying is :func:`apply_waivers`
(report in, new report out); both are pure. Problems with the file are :class:`WaiverError`, a
usage error (exit 2).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import re
from collections.abc import Iterable

from checker.diagnostics import Finding, Location, MlpcError, Severity
from checker.report import Report, compliance_status, counts_as, findings_in_scope, results_in_scope
from checker.loaders import yaml_text

UNUSED_CODE = "TL003"
_CODE_RE = re.compile(r"^[A-Z]{2}[0-9]{3}$")
_KEYS = {"code", "path", "reason"}


class WaiverError(MlpcError):
    """The waiver file is unreadable or an entry is incomplete (usage error)."""


@dataclasses.dataclass(frozen=True)
class Waiver:
    code: str
    path: str
    reason: str
    index: int  # position in the file, from 0

    def matches(self, finding: Finding) -> bool:
        if finding.code != self.code:
            return False
        if fnmatch.fnmatchcase(finding.location.path, self.path):
            return True
        return bool(finding.result_id) and fnmatch.fnmatchcase(finding.result_id, self.path)


def glob_problem(pattern: str) -> str | None:
    """Why ``pattern`` is not a usable path glob, or None."""
    if not pattern.strip():
        return "the path glob is empty"
    if pattern.startswith("/") or "\\" in pattern or "\x00" in pattern:
        return "paths are relative to the submission root and use '/' (no leading '/', no '\\')"
    if ".." in pattern.split("/"):
        return "'..' cannot appear in a path relative to the submission root"
    i, n = 0, len(pattern)
    while i < n:
        if pattern[i] == "[":
            j = i + 1
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                return f"unclosed '[' at position {i + 1}"
            i = j
        i += 1
    try:
        re.compile(fnmatch.translate(pattern))
    except re.error as exc:
        return f"invalid character class ({exc})"
    return None


def _load(text: str, source: str):
    try:
        if text.lstrip().startswith(("[", "{")):
            try:
                return json.loads(text)
            except ValueError:
                pass  # YAML flow style, parsed below
        return yaml_text.safe_load(text)
    except yaml_text.YAMLError as exc:  # (yaml is imported where a text is parsed)
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise WaiverError(f"{source}: not valid YAML or JSON{where}") from None
    except RecursionError:
        raise WaiverError(f"{source}: nested too deeply") from None


def parse_waivers(text: str, source: str = "waivers", known_codes: Iterable[str] | None = None) -> tuple[Waiver, ...]:
    """Parse a waiver file's text. ``known_codes``: the codes that exist (an unknown code is an error)."""
    data = _load(text, source)
    if isinstance(data, dict) and set(data) == {"waivers"}:
        data = data["waivers"]
    if data is None:
        data = []
    if not isinstance(data, list):
        raise WaiverError(f"{source}: expected a list of waivers ({{code, path, reason}}), found {type(data).__name__}")
    known = {c.upper() for c in known_codes} if known_codes is not None else None
    out = []
    for index, entry in enumerate(data):
        where = f"{source}: waiver {index + 1}"
        if not isinstance(entry, dict):
            raise WaiverError(f"{where}: expected a mapping with code, path and reason, found {type(entry).__name__}")
        unknown = sorted(str(k) for k in entry if k not in _KEYS)
        if unknown:
            raise WaiverError(f"{where}: unknown key(s) {', '.join(unknown)} (allowed: code, path, reason)")
        code, path, reason = entry.get("code"), entry.get("path"), entry.get("reason")
        if not isinstance(code, str) or not _CODE_RE.match(code.strip().upper()):
            raise WaiverError(f"{where}: 'code' must be a check code such as CP005, found {code!r}")
        code = code.strip().upper()
        if known is not None and code not in known:
            raise WaiverError(f"{where}: unknown check code {code} (see `mlpc checks`)")
        if not isinstance(reason, str) or not reason.strip():
            raise WaiverError(f"{where} ({code}): 'reason' is mandatory: say who accepted the finding and why")
        if not isinstance(path, str):
            raise WaiverError(f"{where} ({code}): 'path' must be a glob string, found {path!r}")
        problem = glob_problem(path)
        if problem:
            raise WaiverError(f"{where} ({code}): bad path glob {path!r}: {problem}")
        out.append(Waiver(code=code, path=path.strip(), reason=reason.strip(), index=index))
    return tuple(out)


def apply_waivers(report: Report, waivers: Iterable[Waiver], source: str = "waivers",
                  unused_severity: Severity = Severity.WARNING) -> Report:
    """A new report in which findings matching a waiver are marked ``waived`` (with the reason) and
    no longer count; result verdicts, counts and compliance status are re-graded accordingly.
    Waivers that match nothing become TL003 findings (severity ``unused_severity``; ``off`` drops them).
    ``source`` names the waiver file in those findings (give a relative name)."""
    waivers = tuple(waivers)
    used = [0] * len(waivers)
    findings: list[Finding] = []
    newly: list[Finding] = []
    for f in report.findings:
        if not f.waived:
            hits = [i for i, w in enumerate(waivers) if w.matches(f)]
            for i in hits:
                used[i] += 1
            if hits:  # the first matching waiver gives the reason
                f = dataclasses.replace(f, waived=waivers[hits[0]].reason)
                newly.append(f)
        findings.append(f)
    holders = results_in_scope([r.id for r in report.results])
    lifted: dict[str, list[int]] = {}  # result id -> [errors, warnings] no longer counted
    for f in newly:
        kind = counts_as(dataclasses.replace(f, waived=None))  # how it counted before it was waived
        for rid in holders(f.result_id) if kind else ():
            lifted.setdefault(rid, [0, 0])[0 if kind == "error" else 1] += 1
    by_result: dict[str, list[Finding]] | None = None
    results = []
    for r in report.results:
        if r.id not in lifted:
            results.append(r)
            continue
        errors, warnings = max(r.errors - lifted[r.id][0], 0), max(r.warnings - lifted[r.id][1], 0)
        valid = r.valid or (errors == 0 and r.value is not None and bool(r.value))
        comp, per_test = r.compliance, r.compliance_tests
        if r.compliance != "n/a":
            if by_result is None:  # the findings each result's scope holds, in report order
                by_result = findings_in_scope([r.id for r in report.results], findings)
            comp, per_test = compliance_status(r.division, tuple(t for t, _ in r.compliance_tests),
                                               by_result[r.id])
        results.append(dataclasses.replace(r, errors=errors, warnings=warnings, valid=valid, compliance=comp,
                                           compliance_tests=per_test))
    if unused_severity != Severity.OFF:
        for w, count in zip(waivers, used):
            if count:
                continue
            findings.append(Finding(
                message=f"{source}: waiver {w.index + 1} ({w.code} on '{w.path}') matched no finding",
                location=Location(source, pointer=f"/{w.index}"),
                expected=f"at least one {w.code} finding whose path or result matches '{w.path}'",
                actual="no matching finding", hint="remove the waiver, or correct its code or path glob",
                code=UNUSED_CODE, severity=unused_severity, result_id=None,
                data=(("reason", w.reason), ("waiver", w.index + 1))))
    findings.sort(key=lambda f: f.sort_key())
    return dataclasses.replace(report, findings=findings, results=results)
