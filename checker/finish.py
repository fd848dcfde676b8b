"""The last step of a check, shared by the pipeline (``checker.pipeline.assemble``) and the warm path of the
cache (``checker.warm``): the round-scope findings counted into the result summaries, and the ``Report``
built. Light on imports on purpose: the warm path must not load the checks."""

from __future__ import annotations

import dataclasses
import time

from checker.diagnostics import Finding
from checker.report import Report, ResultSummary, counts_as


def count_round_findings(summaries: list[ResultSummary], found: list[Finding]) -> list[ResultSummary]:
    """The summaries with the round-scope findings ``found`` counted: an error makes its result invalid,
    a warning adds to its warnings (the scope of a round finding is its ``result_id``)."""
    by_id = {s.id: s for s in summaries}
    for f in found:
        target = by_id.get(f.result_id or "")
        kind = counts_as(f)
        if target is not None and kind == "error":
            by_id[target.id] = dataclasses.replace(target, valid=False, errors=target.errors + 1)
        elif target is not None and kind == "warning":
            by_id[target.id] = dataclasses.replace(target, warnings=target.warnings + 1)
    return list(by_id.values())


def new_report(root: str, round_name: str, round_reason: str, profile: str, findings, checks_run: int,
               summaries: list[ResultSummary], started: float | None) -> Report:
    """The report of a check: its results sorted by id, stamped with the checker's version and fingerprint."""
    from checker.loaders.fingerprint import checker_fingerprint, version

    report = Report(root=root, round=round_name, round_reason=round_reason, profile=profile,
                    findings=findings, checks_run=checks_run, tool_version=version(),
                    fingerprint=checker_fingerprint())
    report.results = sorted(summaries, key=lambda s: s.id)
    report.elapsed_s = time.perf_counter() - started if started is not None else 0.0
    return report
