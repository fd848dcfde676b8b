"""Pure verification of the compliance tests TEST07, TEST08 and TEST09 (rounds v6.0 and later).

No IO here: callers pass file texts and accuracy-log entries. Each ``read_*`` function reads a
submitted verification file into figures; each ``verify_*`` function recomputes a verdict from the
data (the accuracy logs, where the tree holds them) under the round's rule. Facts from
rounds-v6.md section 5:

- TEST07: the accuracy script's score (first match of the round's score pattern) must be at least
  the round's threshold; the script scores every sample of the compliance dataset.
- TEST08: outputs of the performance run are matched to the accuracy run by (ts_idx, query_idx)
  (the first two float32 values of each output); the normalised entropy of each matched sample must
  agree within the tolerance. PASS iff no NE mismatch, at least one match and nothing unmatched.
- TEST09: each output is a sequence of little-endian token ids (4 bytes); the mean number of tokens
  over all logged samples must lie within the round's bounds (inclusive).
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:  # numpy is imported where TEST08's normalised entropy or an output-length spread is computed
    import numpy as np

from checker.audit.verify_tests import OutputEntry, reports_pass  # noqa: F401  (re-exported)

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.audit_spec import LengthBounds, NeMatchRule, ScoreRule

_NUM = r"([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"


def _float(pattern: str, text: str) -> float | None:
    match = re.search(pattern, text, re.MULTILINE)
    if not match:
        return None
    try:
        return float(match.group(1))
    except (ValueError, IndexError):
        return None


# --------------------------------------------------------------------------- TEST07


@dataclass(frozen=True)
class Test07Figures:
    """What a TEST07 ``verify_accuracy.txt`` says."""

    score: float | None  # the accuracy script's output (the round's score pattern, first match)
    reported_score: float | None  # "Accuracy score: X" of the verification summary
    reported_threshold: float | None  # "Accuracy threshold: X"
    check_pass: bool | None  # "Accuracy check pass: True|False"
    correct: int | None  # "Overall raw accuracy: 61.82% (612/990)"
    evaluated: int | None  # "Total samples evaluated: 990" (or the raw-accuracy denominator)


def read_verify_test07(text: str, rule: ScoreRule) -> Test07Figures:
    match = re.search(rule.pattern, text)
    score = None
    if match:
        try:
            score = float(match.group(1))
        except (ValueError, IndexError):
            score = None
    check = re.search(r"^\s*Accuracy check pass:\s*(True|False)\s*$", text, re.MULTILINE)
    raw = re.search(r"Overall raw accuracy:\s*[\d.]+%\s*\((\d+)\s*/\s*(\d+)\)", text)
    evaluated = re.search(r"Total samples evaluated:\s*(\d+)", text)
    return Test07Figures(
        score=score,
        reported_score=_float(rf"^\s*Accuracy score:\s*{_NUM}", text),
        reported_threshold=_float(rf"^\s*Accuracy threshold:\s*{_NUM}", text),
        check_pass=None if check is None else check.group(1) == "True",
        correct=int(raw.group(1)) if raw else None,
        evaluated=int(evaluated.group(1)) if evaluated else (int(raw.group(2)) if raw else None),
    )


@dataclass(frozen=True)
class FigureIssue:
    """A figure of a verify file that differs from the recomputation or from the round's rules."""

    name: str
    expected: object
    actual: object


@dataclass(frozen=True)
class Test07Verdict:
    passed: bool  # score >= the round's threshold
    score: float | None
    threshold: float
    issues: tuple[FigureIssue, ...] = ()
    reasons: tuple[str, ...] = ()


def verify_test07(figures: Test07Figures, rule: ScoreRule, logged_samples: int | None = None) -> Test07Verdict:
    """The TEST07 verdict from the score the accuracy script printed, against the round's threshold.

    ``logged_samples`` is the number of distinct samples in the TEST07 accuracy log, when the tree
    holds it untruncated."""
    issues: list[FigureIssue] = []
    reasons: list[str] = []
    score = figures.score
    if score is None:
        reasons.append(f"no {rule.metric} score in the accuracy script's output")
    elif score < rule.threshold:
        reasons.append(f"{rule.metric} {score:g} below the threshold {rule.threshold:g}")
    if figures.reported_threshold is not None and not math.isclose(figures.reported_threshold, rule.threshold,
                                                                   rel_tol=1e-9, abs_tol=1e-9):
        issues.append(FigureIssue("accuracy threshold", rule.threshold, figures.reported_threshold))
    if score is not None and figures.reported_score is not None and not math.isclose(
            figures.reported_score, score, abs_tol=1e-3 + 1e-6 * abs(score)):
        issues.append(FigureIssue("accuracy score", score, figures.reported_score))
    if score is not None and figures.check_pass is not None and figures.check_pass != (score >= rule.threshold):
        issues.append(FigureIssue("accuracy check pass", score >= rule.threshold, figures.check_pass))
    if figures.correct is not None and figures.evaluated and score is not None:
        ratio = 100.0 * figures.correct / figures.evaluated
        if abs(ratio - score) > 0.01:
            issues.append(FigureIssue(f"{rule.metric} from the raw counts ({figures.correct}/{figures.evaluated})",
                                      round(ratio, 3), score))
    if figures.evaluated is not None and figures.evaluated != rule.samples:
        issues.append(FigureIssue("samples evaluated", rule.samples, figures.evaluated))
    if logged_samples is not None and logged_samples != rule.samples:
        issues.append(FigureIssue("distinct samples in the accuracy log", rule.samples, logged_samples))
    passed = score is not None and score >= rule.threshold
    return Test07Verdict(passed, score, rule.threshold, tuple(issues), tuple(reasons))


def render_test07(score: float | None, correct: int, evaluated: int, rule: ScoreRule) -> str:
    """A TEST07 ``verify_accuracy.txt`` in the layout of the official script (accuracy output + summary)."""
    passed = score is not None and score >= rule.threshold
    pct = 100.0 * correct / evaluated if evaluated else 0.0
    lines = [
        f"Total samples evaluated: {evaluated}",
        f"Overall raw accuracy: {pct:.2f}% ({correct}/{evaluated})",
        "",
        "Printing for submission_checker:",
        "",
        f"'{rule.metric}': {score:.3f}" if score is not None else "Error: Could not parse accuracy score",
        "",
        "=" * 80,
        "TEST07 Verification Summary",
        "=" * 80,
        f"Accuracy score: {score:.3f}" if score is not None else "Accuracy score: None",
        f"Accuracy threshold: {rule.threshold:g}",
        f"Accuracy check pass: {passed}",
        "TEST PASS" if passed else "TEST FAIL",
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- TEST08

TEST08_COUNTS = ("num_acc_log_entries", "num_perf_log_entries", "num_matched", "num_unmatched", "num_ne_mismatch")


@dataclass(frozen=True)
class Test08Figures:
    counts: dict = field(default_factory=dict)  # the TEST08_COUNTS present in the file
    tolerance_pct: float | None = None


def read_verify_test08(text: str) -> Test08Figures:
    counts = {k: int(v) for k, v in re.findall(r"^\s*(num_[a-z_]+)\s*=\s*(\d+)\s*$", text, re.MULTILINE)
              if k in TEST08_COUNTS}
    return Test08Figures(counts, _float(rf"^\s*tolerance\s*=\s*{_NUM}\s*%", text))


def test08_rule_passes(counts: dict) -> bool | None:
    """The official pass rule on the counts; None when a count is missing."""
    needed = ("num_matched", "num_unmatched", "num_ne_mismatch")
    if any(k not in counts for k in needed):
        return None
    return counts["num_ne_mismatch"] == 0 and counts["num_matched"] > 0 and counts["num_unmatched"] == 0


def normalized_entropy(pred: np.ndarray, label: np.ndarray, weight: np.ndarray, clip: float) -> float:
    """Weighted cross-entropy divided by the entropy of the weighted mean label times the total weight."""
    import numpy as np

    p = np.clip(pred, clip, 1 - clip)
    y = np.clip(label, clip, 1 - clip)
    total = float(weight.sum())
    if total == 0:
        return 0.0
    ce = -float((weight * (y * np.log(p) + (1 - y) * np.log(1 - p))).sum())
    mean = float((weight * y).sum()) / total
    base = -(mean * math.log(mean) + (1 - mean) * math.log(1 - mean)) if 0 < mean < 1 else 0.0
    if base == 0:
        return 0.0
    return ce / (base * total)


@dataclass(frozen=True)
class Test08Verdict:
    passed: bool
    counts: dict
    malformed: int = 0  # entries whose data is not a float32 array of the expected shape
    mismatched: tuple[tuple[int, int], ...] = ()  # (ts_idx, query_idx), first 20
    reasons: tuple[str, ...] = ()


def _key(values_head: bytes) -> tuple[int, int] | None:
    if len(values_head) < 8:
        return None
    ts, query = struct.unpack("<2f", values_head[:8])
    if not (math.isfinite(ts) and math.isfinite(query)):
        return None
    return int(ts), int(query)


def _raw(entry: OutputEntry) -> bytes | None:
    if entry.raw is not None:
        return entry.raw
    try:
        return bytes.fromhex(entry.data)
    except ValueError:
        return None


def verify_test08(accuracy_entries: Iterable[OutputEntry], performance_entries: Iterable[OutputEntry],
                  rule: NeMatchRule) -> Test08Verdict:
    """Recompute TEST08 from the accuracy run's log and the performance run's log.

    The performance log (a sample of a few thousand outputs) is read first; the accuracy log (every
    sample of the dataset) is then streamed and only the entries a performance output matches are
    decoded as float32 arrays."""
    import numpy as np

    perf: dict[tuple[int, int], list[bytes]] = {}
    n_perf = malformed = 0
    for entry in performance_entries:
        n_perf += 1
        raw = _raw(entry)
        key = _key(raw) if raw is not None and len(raw) % 4 == 0 and len(raw) >= 12 else None
        if key is None:
            malformed += 1
            perf.setdefault((-1, -1), []).append(b"")  # counted unmatched below
            continue
        perf.setdefault(key, []).append(raw)
    n_acc = 0
    acc: dict[tuple[int, int], tuple[float, int, np.ndarray]] = {}  # NE, candidate size, labels+weights
    for entry in accuracy_entries:
        n_acc += 1
        raw = _raw(entry)
        key = _key(raw) if raw is not None else None
        if key is None or key not in perf or key in acc:
            if key is None:
                malformed += 1
            continue
        values = np.frombuffer(raw, dtype="<f4").astype(np.float64) if len(raw) % 4 == 0 else None
        if values is None or len(values) < 6 or (len(values) - 3) % 3:
            malformed += 1
            continue
        n = (len(values) - 3) // 3
        acc[key] = (normalized_entropy(values[2:2 + n], values[2 + n:2 + 2 * n], values[2 + 2 * n:2 + 3 * n],
                                       rule.clip), n, values[2 + n:2 + 3 * n])
    matched = unmatched = mismatch = 0
    bad: list[tuple[int, int]] = []
    tol = rule.tolerance_pct / 100.0
    for key, outputs in perf.items():
        ref = acc.get(key)
        if ref is None:
            unmatched += len(outputs)
            continue
        ref_ne, n, labels_weights = ref
        for raw in outputs:
            matched += 1
            preds = np.frombuffer(raw, dtype="<f4").astype(np.float64)[2:]
            ne = normalized_entropy(preds, labels_weights[:n], labels_weights[n:], rule.clip) if len(preds) == n else None
            if ne is None or not (math.isfinite(ne) and math.isfinite(ref_ne)) or (ne == 0) != (ref_ne == 0) or (
                    ref_ne != 0 and abs(ne - ref_ne) / abs(ref_ne) > tol):  # a NaN output never matches
                mismatch += 1
                if len(bad) < 20:
                    bad.append(key)
    counts = dict(num_acc_log_entries=n_acc, num_perf_log_entries=n_perf, num_matched=matched,
                  num_unmatched=unmatched, num_ne_mismatch=mismatch)
    reasons = []
    if mismatch:
        reasons.append(f"{mismatch} of {matched} matched samples differ in normalised entropy by more than "
                       f"{rule.tolerance_pct:g}%")
    if unmatched:
        reasons.append(f"{unmatched} performance-run samples have no (ts_idx, query_idx) in the accuracy run")
    if not matched:
        reasons.append("no performance-run sample matches the accuracy run")
    return Test08Verdict(bool(test08_rule_passes(counts)), counts, malformed, tuple(bad), tuple(reasons))


def render_test08(verdict: Test08Verdict, rule: NeMatchRule) -> str:
    """A TEST08 ``verify_accuracy.txt`` in the layout of the official script's output."""
    c = verdict.counts
    lines = ["Verifying accuracy. This might take a while...", "Reading accuracy mode results...",
             "Reading performance mode results...", ""]
    lines += [f"{k} = {c[k]}" for k in TEST08_COUNTS]
    lines += [f"tolerance = {rule.tolerance_pct:.2f}%", "", "TEST PASS" if verdict.passed else "TEST FAIL",
              "TEST08 verification complete"]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- TEST09


@dataclass(frozen=True)
class LengthStats:
    total: int
    mean: float | None
    min: int | None
    max: int | None
    std: float | None


def output_length_stats(entries: Iterable[OutputEntry], token_bytes: int) -> LengthStats:
    """Token counts of every logged output (0 for an output that is not whole token ids), with their spread."""
    sizes: list[int] = []
    for entry in entries:
        if entry.raw is not None:
            sizes.append(len(entry.raw))
        else:
            data = entry.data
            sizes.append(len(data) // 2 if len(data) % 2 == 0 else -1)
    return length_stats(sizes, token_bytes, spread=True)


def length_stats(sizes: list[int], token_bytes: int, spread: bool = False) -> LengthStats:
    """:class:`LengthStats` of outputs of ``sizes`` bytes (-1: not whole bytes; an output that is not whole
    token ids counts 0 tokens); the standard deviation (numpy's) only with ``spread`` (the verify file the
    live runner writes shows it; the checks read count, mean, min and max).

    The mean is numpy's to the bit without numpy: the counts are integers, so every partial sum of numpy's
    float64 summation is exact while the total stays below 2**53, and the total over the count is the same
    division."""
    lengths = [n // token_bytes if n >= 0 and n % token_bytes == 0 else 0 for n in sizes]
    if not lengths:
        return LengthStats(0, None, None, None, None)
    total = sum(lengths)
    std = None
    if spread or total >= 2 ** 53:
        import numpy as np

        arr = np.asarray(lengths, dtype=np.float64)
        mean = float(arr.mean())
        std = float(arr.std()) if spread else None
    else:
        mean = float(total) / len(lengths)
    return LengthStats(len(lengths), mean, min(lengths), max(lengths), std)


@dataclass(frozen=True)
class Test09Figures:
    total: int | None
    mean: float | None
    min: int | None
    max: int | None
    min_threshold: float | None
    max_threshold: float | None


def read_verify_test09(text: str) -> Test09Figures:
    def whole(label: str) -> int | None:
        value = _float(rf"^\s*{label}:\s*{_NUM}", text)
        return None if value is None else int(value)

    return Test09Figures(
        total=whole("Total samples"),
        mean=_float(rf"^\s*Mean output tokens:\s*{_NUM}", text),
        min=whole("Min output tokens"),
        max=whole("Max output tokens"),
        min_threshold=_float(rf"^\s*Min threshold:\s*{_NUM}", text),
        max_threshold=_float(rf"^\s*Max threshold:\s*{_NUM}", text),
    )


def mean_in_bounds(mean: float | None, bounds: LengthBounds) -> bool:
    return mean is not None and bounds.min <= mean <= bounds.max


@dataclass(frozen=True)
class Test09Verdict:
    passed: bool
    mean: float | None  # recomputed when stats were given, else as reported
    recomputed: bool
    issues: tuple[FigureIssue, ...] = ()
    reasons: tuple[str, ...] = ()


def verify_test09(figures: Test09Figures | None, bounds: LengthBounds, stats: LengthStats | None) -> Test09Verdict:
    """The TEST09 verdict: from ``stats`` (recomputed from the log) when given, else from the file's figures."""
    issues: list[FigureIssue] = []
    if figures is not None:
        for name, expected, actual in (("min threshold", bounds.min, figures.min_threshold),
                                       ("max threshold", bounds.max, figures.max_threshold)):
            if actual is not None and not math.isclose(actual, expected, abs_tol=1e-6):
                issues.append(FigureIssue(name, expected, actual))
        if stats is not None:
            for name, expected, actual, tol in (("total samples", stats.total, figures.total, 0),
                                                ("mean output tokens", stats.mean, figures.mean, 0.006),
                                                ("min output tokens", stats.min, figures.min, 0),
                                                ("max output tokens", stats.max, figures.max, 0)):
                if actual is None or expected is None:
                    continue
                if abs(actual - expected) > tol:
                    issues.append(FigureIssue(name, round(expected, 2) if isinstance(expected, float) else expected,
                                              actual))
    mean = stats.mean if stats is not None else (figures.mean if figures is not None else None)
    reasons = []
    if mean is None:
        reasons.append("no mean output length")
    elif not mean_in_bounds(mean, bounds):
        reasons.append(f"mean output length {mean:.2f} outside [{bounds.min:g}, {bounds.max:g}]")
    return Test09Verdict(mean_in_bounds(mean, bounds), mean, stats is not None, tuple(issues), tuple(reasons))


def render_test09(stats: LengthStats, bounds: LengthBounds) -> str:
    """A TEST09 ``verify_output_len.txt`` in the layout of the official script."""
    ok_min = stats.mean is not None and stats.mean >= bounds.min
    ok_max = stats.mean is not None and stats.mean <= bounds.max
    mean = f"{stats.mean:.2f}" if stats.mean is not None else "None"
    bar = "=" * 80
    lines = [
        bar, "TEST09: Verify Output Token Length in Performance Mode", bar, "",
        "Output Token Length Statistics", "-" * 40,
        f"Total samples: {stats.total}",
        f"Mean output tokens: {mean}",
        f"Min output tokens: {stats.min}",
        f"Max output tokens: {stats.max}",
        f"Std deviation: {stats.std:.2f}" if stats.std is not None else "Std deviation: None",
        "", bar, "Verification Results", bar,
        f"Mean output tokens: {mean}",
        f"Min threshold: {bounds.min}",
        f"Max threshold: {bounds.max}",
        f"Min check pass: {ok_min}",
        f"Max check pass: {ok_max}",
        "",
        "TEST PASS" if ok_min and ok_max else "TEST FAIL",
    ]
    return "\n".join(lines) + "\n"
