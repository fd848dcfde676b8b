"""Pure verification of the compliance tests TEST01, TEST04, TEST05 and TEST06 from raw inputs.

No IO here: callers pass parsed summary logs (``dict`` from ``parse_summary_log``), detail-log
values, accuracy-log entries and file texts. Each function returns a frozen verdict that carries
the figures it compared and the reasons for a failure, so that callers can turn it into findings
or print it.

Where the official tools are lenient or buggy, the verdict carries both readings:

- TEST01 outputs: ``passed`` compares whole output arrays; ``official_passed`` compares only the
  first decoded element, like ``verify_accuracy.py``.
- TEST01 fallback: ``passed`` uses the documented per-metric deltas; ``official_passed`` looks the
  delta up the way the round's checker does (v5.0/v5.1 pass only the metric's first character,
  so the SDXL overrides never apply).
- TEST06: ``passed`` scans every sample for repeated trailing EOS and accepts a skipped
  first-token check only in Offline; ``official_passed`` reproduces ``run_verification.py``
  (EOS scan returns for the whole log at the first repeated-EOS sample; "Skipped" anywhere).
"""

from __future__ import annotations

import hashlib
import re
from binascii import unhexlify
from itertools import compress, filterfalse, repeat
from operator import is_not, itemgetter, ne
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.audit_spec import AccuracyRule, LlmOutputRule, PerformanceRule


LATENCY_SCENARIOS = ("SingleStream", "MultiStream")
SEED_KEYS = ("qsl_rng_seed", "sample_index_rng_seed", "schedule_rng_seed")


# --------------------------------------------------------------------------- performance


@dataclass(frozen=True)
class PerfVerdict:
    """TEST01/04/05 performance comparison of a test run against the submission run."""

    test: str
    scenario: str | None
    passed: bool
    reference_score: float | None = None  # as read from the summary (latency in ns or throughput)
    test_score: float | None = None
    compared_reference: float | None = None  # after the latency -> throughput conversion, if any
    compared_test: float | None = None
    threshold_pct: float | None = None
    lower_bound: float | None = None
    upper_bound: float | None = None
    score_key: str | None = None
    reasons: tuple[str, ...] = ()


def summary_score(summary: Mapping[str, str], scenario: str, rule: PerformanceRule) -> tuple[float | None, str | None]:
    """The score the official ``verify_performance.py`` reads for ``scenario`` (first key present)."""
    for key in rule.score_keys.get(scenario, []):
        raw = summary.get(key)
        if raw is None:
            continue
        try:
            return float(raw.split()[0]), key
        except (ValueError, IndexError):
            return None, key
    return None, None


def _summary_scenario(summary: Mapping[str, str]) -> str | None:
    value = summary.get("Scenario")
    return value.strip() if isinstance(value, str) and value.strip() else None


def verify_performance(
    test: str,
    rule: PerformanceRule,
    reference_summary: Mapping[str, str],
    test_summary: Mapping[str, str],
    scenario: str | None = None,
) -> PerfVerdict:
    """Compare the test run's score with the submission run's score under ``rule``.

    ``scenario`` defaults to the reference summary's ``Scenario`` line.
    """
    reasons: list[str] = []
    ref_scenario = _summary_scenario(reference_summary)
    test_scenario = _summary_scenario(test_summary)
    scenario = scenario or ref_scenario or test_scenario
    if ref_scenario and test_scenario and ref_scenario != test_scenario:
        reasons.append(f"scenario differs: reference {ref_scenario}, test {test_scenario}")
    if rule.require_valid:
        for label, summary in (("test", test_summary), ("reference", reference_summary)):
            validity = (summary.get("Result is") or "").strip()
            if validity != "VALID":
                reasons.append(f"{label} run is {validity or 'without a result line'} (must be VALID)")
    if scenario is None or scenario not in rule.score_keys:
        reasons.append(f"no score defined for scenario {scenario!r}")
        return PerfVerdict(test, scenario, False, reasons=tuple(reasons))
    ref, key = summary_score(reference_summary, scenario, rule)
    value, test_key = summary_score(test_summary, scenario, rule)
    if ref is None or value is None or ref <= 0 or value <= 0:
        if ref is None or ref <= 0:
            reasons.append(f"reference score missing or not positive ({', '.join(rule.score_keys[scenario])})")
        if value is None or value <= 0:
            reasons.append(f"test score missing or not positive ({', '.join(rule.score_keys[scenario])})")
        return PerfVerdict(test, scenario, False, ref, value, score_key=key or test_key, reasons=tuple(reasons))

    latency = scenario in LATENCY_SCENARIOS
    cref, ctest = ref, value
    if rule.latency_as_throughput and latency:
        cref, ctest = 1e9 / ref, 1e9 / value
        latency = False
    threshold = rule.threshold_pct
    limit = rule.relax_when_reference_at_most.get(scenario)
    if limit is not None:
        probe = cref if rule.relax_after_conversion else ref
        if probe <= limit:
            threshold = rule.relaxed_threshold_pct
    t = threshold / 100.0

    def below(a: float, b: float) -> bool:
        return a <= b if rule.inclusive_bounds else a < b

    lower = upper = None
    if rule.direction == "two-sided":
        lower, upper = cref * (1 - t), cref * (1 + t)
        ok = below(lower, ctest) and below(ctest, upper)
    elif rule.direction == "not-faster":
        upper = cref * (1 + t)
        ok = below(ctest, upper)
    else:  # not-worse
        if latency:
            upper = cref * (1 + t)
            ok = below(ctest, upper)
        else:
            lower = cref * (1 - t)
            ok = below(lower, ctest)
    if not ok:
        bounds = []
        if lower is not None:
            bounds.append(f"> {lower:.6g}")
        if upper is not None:
            bounds.append(f"< {upper:.6g}")
        reasons.append(
            f"test score {ctest:.6g} outside {' and '.join(bounds)} "
            f"(reference {cref:.6g}, threshold {threshold:g}%, {rule.direction})"
        )
    return PerfVerdict(
        test=test,
        scenario=scenario,
        passed=not reasons,
        reference_score=ref,
        test_score=value,
        compared_reference=cref,
        compared_test=ctest,
        threshold_pct=threshold,
        lower_bound=lower,
        upper_bound=upper,
        score_key=key,
        reasons=tuple(reasons),
    )


# --------------------------------------------------------------------------- seeds and settings


@dataclass(frozen=True)
class SettingMismatch:
    """A LoadGen setting of a test run that differs from what its audit.config asks."""

    key: str
    expected: object
    actual: object


def compare_seeds(detail_values: Mapping[str, object], expected: Mapping[str, int]) -> list[SettingMismatch]:
    """``effective_<seed>`` of a detail log against the expected seed triple."""
    out = []
    for name in SEED_KEYS:
        if name not in expected:
            continue
        actual = detail_values.get(f"effective_{name}")
        if actual != expected[name]:
            out.append(SettingMismatch(f"effective_{name}", expected[name], actual))
    return out


def compare_settings(detail_values: Mapping[str, object], expected: Mapping[str, object]) -> list[SettingMismatch]:
    """Audit settings (``effective_*`` keys) that the test run must show."""
    out = []
    for key, value in sorted(expected.items()):
        actual = detail_values.get(key)
        if isinstance(value, bool) or isinstance(actual, bool):
            same = actual is not None and bool(actual) == bool(value)
        else:
            same = actual == value
        if not same:
            out.append(SettingMismatch(key, value, actual))
    return out


# --------------------------------------------------------------------------- accuracy-log entries


@dataclass(frozen=True)
class OutputEntry:
    """One accuracy-log entry reduced to what the checks need (constant size except ``data``).

    ``data`` and ``token_data`` are hex as the log writes them (either case); ``raw`` is ``data``
    decoded, when the reader already decoded it (outputs are compared as bytes, never as text)."""

    qsl_idx: int
    data: str
    token_data: str | None = None
    token_count: int | None = None
    raw: bytes | None = field(default=None, compare=False, repr=False)


def _payload(entry: OutputEntry) -> bytes | str:
    """The output as bytes; the upper-cased text when ``data`` is not hex (never equal to bytes)."""
    if entry.raw is not None:
        return entry.raw
    try:
        return bytes.fromhex(entry.data)
    except ValueError:
        return entry.data.upper()


_FIRST, _SECOND, _THIRD, _FOURTH, _FIFTH = map(itemgetter, range(5))

#: outputs up to this many hex digits are kept as they are; longer ones as their first element and a digest
KEY_INLINE_DIGITS = 64


def output_key(digits: bytes | memoryview, width: int) -> bytes:
    """A stand-in of constant size for an output written as hex ``digits``: two keys are equal exactly
    when the outputs are (the digits in either case; long outputs through a 128-bit digest), the key is
    empty exactly when the output is, and ``key[:2 * width]`` is the output's first element."""
    digits = bytes(digits).upper()
    if len(digits) <= max(KEY_INLINE_DIGITS, 2 * width):
        return digits
    return digits[: 2 * width] + b"#" + hashlib.blake2b(digits, digest_size=16).digest()  # never hex only


def output_keys(rows: list, width: int) -> list[tuple[int, bytes]]:
    """``(qsl_idx, output_key)`` of rows ``(qsl_idx, hex digits, ...)`` (those of one block of a log; the
    digits as bytes or as a memoryview)."""
    limit = max(KEY_INLINE_DIGITS, 2 * width)
    digits = list(map(_SECOND, rows))
    if digits and max(map(len, digits)) <= limit:
        try:  # short outputs, all bytes (a block of short lines): their own digits, upper-cased, in C
            return list(zip(map(_FIRST, rows), map(bytes.upper, digits)))
        except TypeError:  # a memoryview among them
            pass
    return [(row[0], row[1].upper()) if len(row[1]) <= limit and row[1].__class__ is bytes
            else (row[0], output_key(row[1], width)) for row in rows]


def _entry_key(entry: OutputEntry, width: int) -> bytes | tuple:
    """The output key of an entry; data that is not hex is compared as text (never equal to hex data)."""
    payload = _payload(entry)
    if isinstance(payload, bytes):
        return output_key(payload.hex().encode("ascii"), width)
    return ("text", payload[: 2 * width], _digest(payload))


def _first_of_key(key: bytes | tuple, width: int) -> bytes | str:
    return key[: 2 * width] if isinstance(key, bytes) else key[1]


def _digest(payload: str) -> bytes:
    return hashlib.blake2b(b"\xff" + payload.encode("ascii", "replace"), digest_size=16).digest()


# --------------------------------------------------------------------------- TEST01 outputs


@dataclass(frozen=True)
class Test01OutputVerdict:
    """TEST01's comparison of the logged accuracy samples, strictly and as the official script reads it."""

    passed: bool  # strict: whole arrays equal, >= min_matched matches, consistent accuracy log
    official_passed: bool  # verify_accuracy.py: first element only, >= 1 match
    num_acc_log_entries: int
    num_acc_log_duplicate_keys: int
    num_acc_log_data_mismatch: int
    num_perf_log_entries: int
    num_perf_log_qsl_idx_match: int
    num_perf_log_data_mismatch: int  # first-element mismatches (the official figure)
    num_perf_log_full_mismatch: int  # whole-array mismatches (mlpc)
    num_missing_qsl_idxs: int
    mismatched_qsl_idxs: tuple[int, ...] = ()  # whole-array mismatches, first 20
    reasons: tuple[str, ...] = ()


def verify_test01_outputs(
    accuracy_entries: Iterable[OutputEntry],
    performance_entries: Iterable[OutputEntry],
    element_bytes: int = 1,
    min_matched: int = 1,
) -> Test01OutputVerdict:
    """Compare performance-mode outputs with accuracy-mode outputs for every logged qsl_idx."""
    return verify_test01_keys(((e.qsl_idx, _entry_key(e, element_bytes)) for e in accuracy_entries),
                              ((e.qsl_idx, _entry_key(e, element_bytes)) for e in performance_entries),
                              element_bytes, min_matched)


@dataclass(frozen=True)
class ReferenceKeys:
    """What TEST01 compares of the accuracy-mode log: its entry count, how many of its qsl_idx were logged
    again and how many of those again with other data, and the first output key of each qsl_idx (of those
    asked for, when the log was reduced to the samples the performance-mode log holds)."""

    entries: int
    duplicates: int
    mismatches: int
    keys: dict


def reference_keys(accuracy: Iterable[tuple[int, bytes | tuple]], wanted: set | None = None) -> ReferenceKeys:
    """:class:`ReferenceKeys` of ``(qsl_idx, output key)`` pairs in log order (the first output logged for a
    qsl_idx is the reference); ``keys`` holds only the qsl_idx in ``wanted`` when it is given."""
    builder = ReferenceKeysBuilder()
    builder.add(accuracy)
    return builder.result(wanted)


class ReferenceKeysBuilder:
    """:func:`reference_keys` fed a block of pairs at a time: the load stage reads a result's accuracy log
    once, in one pass that TEST01's reference outputs share with TEST08's and with the log's digest."""

    _UNSEEN = object()

    def __init__(self) -> None:
        self.first: dict = {}
        self.entries = self.mismatches = 0

    def add(self, accuracy: Iterable[tuple[int, bytes | tuple]]) -> None:
        first = self.first
        pairs = accuracy if accuracy.__class__ is list else list(accuracy)
        block = dict(pairs)
        if len(block) == len(pairs) and first.keys().isdisjoint(block.keys()):
            # every qsl_idx is new (the usual log: each sample once): the pairs are the first outputs, in C
            first.update(block)
            self.entries += len(pairs)
            return
        get = first.get
        unseen = self._UNSEEN
        n = mismatch = 0
        for qsl, key in pairs:
            n += 1
            ref = get(qsl, unseen)
            if ref is unseen:
                first[qsl] = key
            elif ref != key:
                mismatch += 1
        self.entries += n
        self.mismatches += mismatch

    def result(self, wanted: set | None = None) -> ReferenceKeys:
        first = self.first
        if wanted is None:
            keys = first
        else:
            common = first.keys() & wanted
            keys = dict(zip(common, map(first.__getitem__, common)))
        return ReferenceKeys(self.entries, self.entries - len(first), self.mismatches, keys)


def verify_test01_keys(
    accuracy: Iterable[tuple[int, bytes | tuple]] | ReferenceKeys,
    performance: Iterable[tuple[int, bytes | tuple]],
    element_bytes: int = 1,
    min_matched: int = 1,
) -> Test01OutputVerdict:
    """:func:`verify_test01_outputs` on ``(qsl_idx, output key)`` pairs (:func:`output_key`), or on the
    accuracy log's :class:`ReferenceKeys`: equal keys are equal outputs, so only the pairs whose keys
    differ are looked at one by one."""
    reference = accuracy if isinstance(accuracy, ReferenceKeys) else reference_keys(accuracy)
    acc = reference.keys
    n_acc, dup, acc_mismatch = reference.entries, reference.duplicates, reference.mismatches
    pairs = performance if performance.__class__ is list else list(performance)
    # the pairs whose output is the accuracy log's (the usual case for a whole log: all of them) are matched
    # and equal: they are told apart in C, and so are those whose qsl_idx the accuracy log does not hold (a
    # truncated log: most of them); only the others, outputs that differ, are looked at one by one, in order
    others = list(filterfalse(acc.items().__contains__, pairs))
    differing = list(compress(others, map(acc.__contains__, map(_FIRST, others))))
    n_perf = len(pairs)
    missing = len(others) - len(differing)
    matched = n_perf - missing
    first_mismatch = full_mismatch = 0
    examples: list[int] = []
    for qsl, key in differing:
        ref = acc[qsl]
        if ref == key:
            continue
        full_mismatch += 1
        if len(examples) < 20:
            examples.append(qsl)
        # the official comparison: the first element, or both empty (which two different outputs are not)
        if not key or not ref or _first_of_key(key, element_bytes) != _first_of_key(ref, element_bytes):
            first_mismatch += 1
    reasons = []
    if matched == 0:
        reasons.append("no logged qsl_idx of the performance run is in the accuracy log")
    elif matched < min_matched:
        reasons.append(f"only {matched} matched qsl_idx (at least {min_matched} required)")
    if first_mismatch:
        reasons.append(f"{first_mismatch} of {matched} outputs differ in the first element")
    if full_mismatch > first_mismatch:
        reasons.append(f"{full_mismatch} of {matched} outputs differ (whole-array comparison)")
    if acc_mismatch:
        reasons.append(f"accuracy log has {acc_mismatch} duplicated qsl_idx with different data")
    official = first_mismatch == 0 and matched >= 1
    strict = official and full_mismatch == 0 and matched >= min_matched and acc_mismatch == 0
    return Test01OutputVerdict(
        passed=strict,
        official_passed=official,
        num_acc_log_entries=n_acc,
        num_acc_log_duplicate_keys=dup,
        num_acc_log_data_mismatch=acc_mismatch,
        num_perf_log_entries=n_perf,
        num_perf_log_qsl_idx_match=matched,
        num_perf_log_data_mismatch=first_mismatch,
        num_perf_log_full_mismatch=full_mismatch,
        num_missing_qsl_idxs=missing,
        mismatched_qsl_idxs=tuple(examples),
        reasons=tuple(reasons),
    )


def render_test01_accuracy(verdict: Test01OutputVerdict) -> str:
    """A ``verify_accuracy.txt`` in the official layout (plus mlpc's whole-array figure)."""
    lines = [
        "Verifying accuracy. This might take a while...",
        "Reading accuracy mode results...",
        "Reading performance mode results...",
        f"num_acc_log_entries = {verdict.num_acc_log_entries}",
        f"num_acc_log_duplicate_keys = {verdict.num_acc_log_duplicate_keys}",
        f"num_acc_log_data_mismatch = {verdict.num_acc_log_data_mismatch}",
        f"num_perf_log_entries = {verdict.num_perf_log_entries}",
        f"num_perf_log_qsl_idx_match = {verdict.num_perf_log_qsl_idx_match}",
        f"num_perf_log_data_mismatch = {verdict.num_perf_log_data_mismatch}",
        f"num_missing_qsl_idxs = {verdict.num_missing_qsl_idxs}",
        f"mlpc_num_perf_log_full_data_mismatch = {verdict.num_perf_log_full_mismatch}",
        "TEST PASS" if verdict.passed else "TEST FAIL",
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- TEST01 fallback


@dataclass(frozen=True)
class MetricDelta:
    """One accuracy metric of TEST01's fallback: the submission's, the test's and their difference."""

    metric: str
    baseline: float | None
    compliance: float | None
    delta_pct: float | None
    allowed_pct: float
    official_allowed_pct: float
    passed: bool
    official_passed: bool


@dataclass(frozen=True)
class FallbackVerdict:
    """TEST01's non-deterministic fallback: the accuracy metrics compared within their allowed deltas."""

    passed: bool
    official_passed: bool
    metrics: tuple[MetricDelta, ...]
    reasons: tuple[str, ...] = ()


def parse_metric(text: str, pattern: str) -> float | None:
    """Last line matching ``pattern`` (``re.match``, anchored) wins, like the official loop."""
    regex = re.compile(pattern)
    value = None
    for line in text.splitlines():
        match = regex.match(line)
        if match:
            try:
                value = float(match.group(1))
            except (ValueError, IndexError):
                continue
    return value


def allowed_delta_pct(rule: AccuracyRule, model: str, metric_key: str) -> float:
    override = rule.delta_pct_overrides.get(model, {})
    if metric_key in override:
        return override[metric_key]
    return rule.delta_pct_99_9 if "99.9" in model else rule.default_delta_pct


def verify_test01_fallback(model: str, baseline_text: str, compliance_text: str, rule: AccuracyRule) -> FallbackVerdict:
    """Non-deterministic fallback: |1 - baseline/compliance| x 100 within the allowed delta."""
    metrics = rule.metrics.get(model)
    if not metrics:
        return FallbackVerdict(False, False, (), (f"no accuracy metric known for model {model!r}",))
    rows = []
    reasons = []
    for metric in metrics:
        pattern = rule.patterns.get(metric)
        base = parse_metric(baseline_text, pattern) if pattern else None
        comp = parse_metric(compliance_text, pattern) if pattern else None
        allowed = allowed_delta_pct(rule, model, metric)
        key = metric[0] if rule.metric_lookup == "first-character" else metric
        official_allowed = allowed_delta_pct(rule, model, key)
        if not base or not comp:
            rows.append(MetricDelta(metric, base, comp, None, allowed, official_allowed, False, False))
            reasons.append(f"{metric}: value missing or zero (baseline {base}, compliance {comp})")
            continue
        delta = abs(1 - base / comp) * 100
        ok, official_ok = delta <= allowed, delta <= official_allowed
        rows.append(MetricDelta(metric, base, comp, delta, allowed, official_allowed, ok, official_ok))
        if not ok:
            reasons.append(f"{metric}: delta {delta:.4f}% > {allowed:g}% (baseline {base}, compliance {comp})")
        elif not official_ok:
            reasons.append(
                f"{metric}: delta {delta:.4f}% within {allowed:g}% but above the {official_allowed:g}% "
                f"the official checker applies (metric-name lookup bug)"
            )
    return FallbackVerdict(
        passed=all(r.passed for r in rows),
        official_passed=all(r.official_passed for r in rows),
        metrics=tuple(rows),
        reasons=tuple(reasons),
    )


# --------------------------------------------------------------------------- TEST06


@dataclass(frozen=True)
class Test06Verdict:
    """TEST06's verdict on an LLM's outputs: EOS, first token and output lengths."""

    passed: bool
    official_passed: bool
    num_samples: int
    element_bytes: int
    first_token_official: str  # "True" | "False" | "Skipped"
    first_token_strict: str
    eos_official: bool
    eos_strict: bool
    length_ok: bool
    num_eos_violations: int = 0
    num_first_token_violations: int = 0
    num_length_violations: int = 0
    eos_violations: tuple[int, ...] = ()  # qsl_idx, first 20
    first_token_violations: tuple[int, ...] = ()
    length_violations: tuple[int, ...] = ()
    reasons: tuple[str, ...] = ()


def _token_bytes(data, width: int) -> bytes | None:
    """The bytes of hex digits (``str``, ``bytes`` or a ``memoryview``) that are whole ``width``-byte tokens;
    None otherwise (anything but hex digits in pairs: white space, a sign, an odd digit; or a partial token)."""
    try:
        raw = unhexlify(data)
    except (ValueError, TypeError):  # (binascii.Error is a ValueError; so is a non-ASCII str)
        return None
    if len(raw) % width:
        return None
    return raw


def _token_of(token: int, width: int) -> bytes | None:
    """The ``width`` bytes a token id is written as (little-endian, signed); None when no token of that width
    is that id."""
    try:
        return token.to_bytes(width, "little", signed=True)
    except OverflowError:
        return None


def _infer_width(rows: list, default: int) -> int:
    """The token width of rows ``(qsl_idx, data, token_data, token_count, raw)``: bytes per token of the first
    row whose ``token_count`` tells (4 or 8), else ``default``."""
    for row in rows:
        count, data = row[3], row[1]
        if count and len(data):
            nbytes = len(data) // 2
            if nbytes % count == 0 and nbytes // count in (4, 8):
                return nbytes // count
    return default


def _test06_rows(rows: list, width: int, eos2: bytes | None) -> tuple[list, list, list, int, bool | None]:
    """(qsl_idx of the samples with a trailing EOS run, with a first token that disagrees, with a token count
    that differs; samples without a first token; the official EOS verdict, None: undecided) of ``rows``, one
    sample at a time: every sample, whatever its fields hold."""
    eos_official: bool | None = None
    eos_bad: list[int] = []
    first_bad: list[int] = []
    len_bad: list[int] = []
    first_missing = 0
    for qsl, data, token_data, token_count, raw in rows:
        if raw is None or len(raw) % width:
            raw = _token_bytes(data, width)
            if raw is None:
                len_bad.append(qsl)
                eos_bad.append(qsl)
                continue
        elif raw.__class__ is not bytes:
            raw = bytes(raw)
        size = len(raw)
        count = size // width
        # a trailing run of two EOS or more is a violation (strict: every sample) unless the output is exactly
        # those two tokens; the official scan looks from the end down to index 1 only (at most count - 1
        # tokens), so it sees a run of two or more only in a longer output, and the first such sample decides
        # it: a failure
        if eos2 is not None and count != 2 and raw.endswith(eos2):
            eos_bad.append(qsl)
            if eos_official is None:
                eos_official = False
        # length
        if token_count is None or token_count != count:
            len_bad.append(qsl)
        # first token(s): token_data must agree with the start of the output
        if token_data is None:
            first_missing += 1
            continue
        first = _token_bytes(token_data, width)
        if first is None or not _same_start(first, raw):
            first_bad.append(qsl)
    return eos_bad, first_bad, len_bad, first_missing, eos_official


def _same_start(first: bytes, raw: bytes) -> bool:
    """Whether the reported first token(s) and the output agree over the shorter of them (an empty report:
    only with an empty output)."""
    if len(first) <= len(raw):
        return raw.startswith(first) and (bool(first) or not raw)
    return first.startswith(raw)


def _test06_columns(rows: list, width: int, eos2: bytes | None) -> tuple[list, list, list, int, bool | None] | None:
    """:func:`_test06_rows` of the usual rows (outputs of whole tokens, decoded by the reader or decodable, and
    first tokens that are whole tokens), a field at a time across the rows, in C; None for any other rows."""
    raws = list(map(_FIFTH, rows))
    try:
        if None in raws:
            if raws.count(None) != len(raws):
                return None
            raws = list(map(unhexlify, map(_SECOND, rows)))
        elif set(map(type, raws)) != {bytes}:
            return None
        sizes = list(map(len, raws))
        if any(map(width.__rmod__, sizes)):
            return None
        counts = list(map(width.__rfloordiv__, sizes))
        qsls = list(map(_FIRST, rows))
        eos_bad: list[int] = []
        eos_official: bool | None = None
        if eos2 is not None:
            for i in compress(range(len(raws)), map(bytes.endswith, raws, repeat(eos2))):
                if counts[i] != 2:
                    eos_bad.append(qsls[i])
                    eos_official = False
        len_bad = list(compress(qsls, map(ne, map(_FOURTH, rows), counts)))
        tokens = list(map(_THIRD, rows))
        first_missing = tokens.count(None)
        if first_missing:
            told = list(map(is_not, tokens, repeat(None)))
            qsls, raws, tokens = list(compress(qsls, told)), list(compress(raws, told)), list(compress(tokens, told))
        firsts = list(map(unhexlify, tokens))
        if any(map(width.__rmod__, map(len, firsts))):
            return None
        if all(map(bytes.startswith, raws, firsts)) and b"" not in firsts:
            first_bad: list[int] = []
        else:
            first_bad = [qsl for qsl, first, raw in zip(qsls, firsts, raws) if not _same_start(first, raw)]
    except (ValueError, TypeError):  # (not hex: binascii.Error is a ValueError; a token that is not bytes or str)
        return None
    return eos_bad, first_bad, len_bad, first_missing, eos_official


def verify_test06(
    entries: Iterable[OutputEntry],
    scenario: str,
    eos_token_id: int,
    rule: LlmOutputRule,
    element_bytes: int | None = None,
) -> Test06Verdict:
    """The TEST06 verdict of accuracy-log entries (see :func:`verify_test06_rows`)."""
    return verify_test06_rows([(e.qsl_idx, e.data, e.token_data, e.token_count, e.raw) for e in entries], scenario,
                              eos_token_id, rule, element_bytes)


def verify_test06_rows(
    rows: list,
    scenario: str,
    eos_token_id: int,
    rule: LlmOutputRule,
    element_bytes: int | None = None,
) -> Test06Verdict:
    """The TEST06 verdict of rows ``(qsl_idx, data, token_data, token_count, raw)``, as the accuracy-log reader
    gives them (:mod:`checker.loaders.accuracy_entries`; ``data`` and ``token_data`` hex digits as ``str``,
    ``bytes`` or a ``memoryview``, ``raw`` the decoded data or None): no entry object is made, and only the ends
    of an output are looked at (its trailing EOS run and its first tokens; an LLM output has hundreds)."""
    width = element_bytes or _infer_width(rows, rule.default_dtype_bytes)
    eos = _token_of(eos_token_id, width)
    eos2 = eos * 2 if eos is not None else None  # an output ending with this has a trailing EOS run of 2 or more
    found = _test06_columns(rows, width, eos2)
    if found is None:  # an output or a first token that is not whole tokens of hex digits, or not bytes
        found = _test06_rows(rows, width, eos2)
    eos_bad, first_bad, len_bad, first_missing, eos_official = found
    eos_official_ok = True if eos_official is None else eos_official
    if scenario == "Offline":
        first_official = "Skipped"
        if first_bad:
            first_strict = "False"
        else:
            first_strict = "Skipped" if first_missing == len(rows) else "True"
    else:
        first_official = "False" if (first_bad or first_missing) else "True"
        first_strict = first_official
    reasons = []
    if not rows:
        reasons.append("accuracy log has no samples: nothing was verified")
    if eos_bad:
        reasons.append(f"{len(eos_bad)} sample(s) end with repeated EOS ({eos_token_id}) tokens")
    if first_bad:
        reasons.append(f"{len(first_bad)} sample(s) report a first token different from the output")
    if first_missing and scenario != "Offline":
        reasons.append(f"{first_missing} sample(s) have no first token logged (token_data) in {scenario}")
    if len_bad:
        reasons.append(f"{len(len_bad)} sample(s) have token_count different from the output length")
    length_ok = not len_bad
    official = first_official in ("True", "Skipped") and eos_official_ok and length_ok
    strict = bool(rows) and first_strict in ("True", "Skipped") and not eos_bad and length_ok
    if scenario != "Offline" and first_strict == "Skipped":
        strict = False
    return Test06Verdict(
        passed=strict,
        official_passed=official,
        num_samples=len(rows),
        element_bytes=width,
        first_token_official=first_official,
        first_token_strict=first_strict,
        eos_official=eos_official_ok,
        eos_strict=not eos_bad,
        length_ok=length_ok,
        num_eos_violations=len(eos_bad),
        num_first_token_violations=len(first_bad),
        num_length_violations=len(len_bad),
        eos_violations=tuple(eos_bad[:20]),
        first_token_violations=tuple(first_bad[:20]),
        length_violations=tuple(len_bad[:20]),
        reasons=tuple(reasons),
    )


def render_test06_accuracy(verdict: Test06Verdict) -> str:
    ok = verdict.passed
    return (
        f"First token check pass: {verdict.first_token_strict}\n"
        f"EOS check pass: {verdict.eos_strict}\n"
        f"Sample length check pass: {verdict.length_ok}\n"
        f"TEST06 verification {'complete' if ok else 'failed'}\n"
    )


# --------------------------------------------------------------------------- submitted verify_*.txt


@dataclass(frozen=True)
class SubmittedVerdict:
    """What a submitted ``verify_*.txt`` says, read the way the official checker reads it."""

    passed: bool
    figures: dict = field(default_factory=dict)


_NUM = r"([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"


def reports_pass(text: str, how: str) -> bool:
    """Whether a verify file reports TEST PASS, read as the official checker reads it.

    ``how`` is ``substring`` ("TEST PASS" anywhere in a line) or ``exact`` (a stripped line equal
    to "TEST PASS")."""
    if "TEST PASS" not in text:  # (no line break inside it: in the text exactly when in one of its lines)
        return False
    if how == "exact":
        return any(line.strip() == "TEST PASS" for line in text.splitlines())
    return True


_PERF_FIGURES = tuple((re.compile(rf"^{name}\s*=\s*{_NUM}", re.MULTILINE), key)
                      for name, key in (("reference score", "reference_score"), ("test score", "test_score")))
_TEST01_FIGURES = re.compile(r"^(num_[a-z_]+)\s*=\s*(\d+)", re.MULTILINE)


def read_verify_performance(text: str) -> SubmittedVerdict:
    figures = {}
    for pattern, key in _PERF_FIGURES:
        match = pattern.search(text)
        if match:
            figures[key] = float(match.group(1))
    return SubmittedVerdict(reports_pass(text, "substring"), figures)


def read_verify_accuracy_test01(text: str, pass_line: str = "substring") -> SubmittedVerdict:
    """``pass_line``: ``substring`` (v4.1-v5.1: 'TEST PASS' anywhere) or ``exact`` (v6.0 J6: a stripped line)."""
    figures = {k: int(v) for k, v in _TEST01_FIGURES.findall(text)}
    return SubmittedVerdict(reports_pass(text, pass_line), figures)


def read_verify_test06(text: str, scenario: str, rule: LlmOutputRule) -> tuple[SubmittedVerdict, bool]:
    """(official J9 reading, strict reading where 'Skipped' is accepted only in ``strict`` scenarios)."""
    lines = [line.strip() for line in text.splitlines()]
    figures = {}
    for label, key in (
        ("First token check pass", "first_token"),
        ("EOS check pass", "eos"),
        ("Sample length check pass", "length"),
    ):
        for line in lines:
            if line.startswith(label + ":"):
                figures[key] = line.split(":", 1)[1].strip()
    first = figures.get("first_token")
    official = (
        first in ("True", "Skipped") and figures.get("eos") == "True" and figures.get("length") == "True"
    )
    strict = official and (first == "True" or scenario in rule.strict_first_token_skip_scenarios)
    return SubmittedVerdict(official, figures), strict
