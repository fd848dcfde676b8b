"""Accuracy checks (AC) on `results/.../<scenario>/accuracy/`.

Official references: docs/official-checker.md section F. In the open division the official checker
forces an invalid accuracy to valid; mlpc reports those problems under AC009 (a warning) instead of
the closed-division codes.
"""

from __future__ import annotations

from checker.checks.base import check, finding, strict_log_problems
from checker.checks.memo import per_context
from checker.metrics.accuracy_metrics import HASH_RE, read_accuracy
from checker.metrics.rounding import format_sig


@per_context
def accuracy_reading(ctx, rules):
    """(the accuracy.txt reading of a result, its model rules); read once per result (also used by the
    engine's result summary)."""
    model = rules.models.get(ctx.mlperf_model)
    acc = ctx.accuracy
    if model is None or ctx.scenario is None or acc.accuracy_txt is None:
        return None, model
    targets = [(t.metric, t.target) for t in model.targets_for(ctx.scenario)]
    limits = [(u.metric, u.limit) for u in model.upper_limits]
    return read_accuracy(acc.accuracy_txt, rules.accuracy_patterns, targets, limits), model


# the problem kind of a failed bound, by who enforces it (models.*.accuracy[].source)
_SOURCE_KINDS = {"rules": "rules-bound", "official": "official-bound"}


def _bound_kind(model, fail) -> str:
    bounds = model.accuracy if fail.kind == "below" else model.upper_limits
    for bound in bounds:
        value = bound.target if fail.kind == "below" else bound.limit
        if bound.metric == fail.metric and value == fail.bound:
            return _SOURCE_KINDS.get(bound.source, fail.kind)
    return fail.kind


def _shown(found: str) -> str:
    """An accuracy value as people should read it: five significant figures, half to even (rules
    4.1.1), with the text of accuracy.txt in brackets when it differs. Comparisons use the float."""
    try:
        rounded = format_sig(found)
    except ValueError:
        return found
    if "e" in rounded:  # counts such as GEN_LEN (4097091) are not percentages: keep them as written
        return found
    return rounded if rounded == found else f"{rounded} (written {found})"


@per_context
def accuracy_problems(ctx, rules):
    """Every accuracy problem of a result as (kind, finding); shared by closed and open checks
    (computed once per result and remembered while that result is being checked)."""
    return list(_accuracy_problems(ctx, rules))


def _accuracy_problems(ctx, rules):
    acc = ctx.accuracy
    txt_rel = f"{acc.rel}/accuracy.txt"
    if ctx.scenario is None or not acc.listing.exists:
        return
    if acc.accuracy_txt is None:
        if acc.accuracy_txt_error and "accuracy.txt" in acc.listing.files:
            yield "unreadable", finding(txt_rel, acc.accuracy_txt_error, expected="readable text", actual="unreadable")
        return
    if rules.detail_log_strict and "\ufffd" in acc.accuracy_txt:
        yield "missing", finding(txt_rel, "accuracy.txt holds bytes that are not UTF-8", expected="UTF-8 text",
                                 actual="undecodable bytes", hint="write the accuracy script's output unchanged")
    reading, model = accuracy_reading(ctx, rules)
    if reading is not None:
        for fail in reading.failures:
            word = "below target" if fail.kind == "below" else "above upper limit"
            kind = _bound_kind(model, fail)
            if kind == "rules-bound":
                word += " (the rules' bound; the official checker's differs)"
            elif kind == "official-bound":
                word += " (the official checker's bound; the rules' differs)"
            yield kind, finding(txt_rel, f"{fail.metric} {_shown(fail.found)} {word} {fail.bound:f}",
                                     expected=(">= " if fail.kind == "below" else "<= ") + f"{fail.bound:f}",
                                     actual=fail.found, line=fail.line, metric=fail.metric)
        for metric in dict.fromkeys(reading.missing):
            yield "missing", finding(txt_rel, f"accuracy metric {metric} not found",
                                     expected=f"a line matching {rules.accuracy_patterns.get(metric)}",
                                     actual="no match", hint="write the accuracy script's output unchanged")
        for metric, found, line in reading.unparseable:
            yield "missing", finding(txt_rel, f"accuracy metric {metric} value {found!r} is not a number",
                                     expected="a number", actual=found, line=line)
        if reading.hash_value is None:
            yield "hash", finding(txt_rel, "no hash= line for mlperf_log_accuracy.json", expected="hash=<sha256>",
                                  actual="missing", hint="run `mlpc truncate` (or the official truncation script)")
    if acc.log_size is None:
        yield "log", finding(f"{acc.rel}/mlperf_log_accuracy.json", "accuracy log is missing",
                             expected="mlperf_log_accuracy.json", actual="missing")
    elif acc.log_size > rules.max_accuracy_log_bytes:
        yield "log", finding(acc.log_rel, "accuracy log is not truncated", expected=f"<= {rules.max_accuracy_log_bytes} bytes",
                             actual=f"{acc.log_size} bytes", hint="run `mlpc truncate`")
    detail = acc.detail
    if detail is None:
        yield "detail", finding(f"{acc.rel}/mlperf_log_detail.txt", "accuracy run detail log is missing",
                                expected="mlperf_log_detail.txt", actual="missing")
    elif detail.error or detail.log is None:
        yield "detail", finding(detail.rel, detail.error or "unreadable", expected="a LoadGen detail log", actual="unreadable")
    else:
        for key, value, line in detail.log.errors:
            yield "detail", finding(detail.rel, f"LoadGen error {key}: {value}", expected="no errors",
                                    actual=str(value)[:200], line=line)
        if rules.detail_log_strict:
            for item in strict_log_problems(detail.rel, detail.log):
                yield "detail", item
    if model is not None and model.extra_accuracy_images:
        names = acc.image_names or ()
        stems = [n.split(".")[0] for n in names]
        missing = [i for i in model.extra_accuracy_images if not any(i in s for s in stems)]
        if acc.image_names is None or missing:
            yield "images", finding(f"{acc.rel}/images", "required sample images are missing",
                                    expected=", ".join(model.extra_accuracy_images),
                                    actual="no images folder" if acc.image_names is None else f"missing {', '.join(missing)}",
                                    hint="keep accuracy/images/ with the listed generated images")


def _closed_problems(ctx, rules) -> bool:
    """``when`` of the checks that report a kind of accuracy problem in closed and network results."""
    return ctx.division != "open" and bool(accuracy_problems(ctx, rules))


def _open_problems(ctx, rules) -> bool:
    """``when`` of AC008: an open result with an accuracy problem."""
    return ctx.division == "open" and bool(accuracy_problems(ctx, rules))


def _closed(kinds):
    def run(ctx, rules):
        if ctx.division == "open":
            return
        for kind, item in accuracy_problems(ctx, rules):
            if kind in kinds:
                yield item
    return run


@check("AC001", "accuracy-below-target", "result", when=_closed_problems)
def accuracy_below_target(ctx, rules):
    """An accuracy metric is below the benchmark's target (closed and network).

    What it checks: every occurrence of every target metric in `accuracy.txt` (until all are seen and
    the hash line is found) is >= the target (99% / 99.9% of the reference, per the round file).
    Why: official checker F3; rules accuracy table.
    Failing example: `accuracy=75.500%` for resnet (target 75.6954).
    How to fix: improve accuracy or submit under open.
    Data used: `models.*.accuracy`, `accuracy_patterns`.
    """
    yield from _closed({"below"})(ctx, rules)


@check("AC002", "accuracy-above-limit", "result", when=_closed_problems)
def accuracy_above_limit(ctx, rules):
    """An accuracy metric exceeds the benchmark's upper limit (closed and network).

    What it checks: metrics with an upper limit (tokens per sample, SDXL scores) stay <= the limit.
    Why: official checker F4.
    Failing example: llama2-70b `tokens_per_sample` of 330 (limit 323.895).
    How to fix: fix generation length settings.
    Data used: `models.*.upper_limits`.
    """
    yield from _closed({"above"})(ctx, rules)


@check("AC003", "accuracy-metric-missing", "result")
def accuracy_metric_missing(ctx, rules):
    """`accuracy.txt` lacks a target metric, or it is unreadable (closed and network; open from v5.1
    when no metric at all is found).

    What it checks: each target metric of the model matches its regex on some line. In the open
    division, for rounds with `open_accuracy_needs_metric` (v5.1+), at least one target metric must
    be found: the official checker forces an invalid open accuracy to valid only if some metric was found.
    Why: official checker F3 and F9 (v5.1).
    Failing example: a gptj accuracy.txt without `'rouge2'`; an open accuracy.txt holding only `hash=`.
    How to fix: write the accuracy script's output unchanged.
    In rounds with `detail_log_strict` (v6.0: the official checker crashes on it) accuracy.txt must be UTF-8.
    Data used: `accuracy_patterns`, `models.*.accuracy`, `open_accuracy_needs_metric`, `detail_log_strict`.
    """
    if ctx.division == "open":
        yield from _open_without_metric(ctx, rules)
        return
    yield from _closed({"missing", "unreadable"})(ctx, rules)


def _open_without_metric(ctx, rules):
    if not rules.open_accuracy_needs_metric or ctx.scenario is None or not ctx.accuracy.listing.exists:
        return
    txt_rel = f"{ctx.accuracy.rel}/accuracy.txt"
    if ctx.accuracy.accuracy_txt is None:
        if ctx.accuracy.accuracy_txt_error and "accuracy.txt" in ctx.accuracy.listing.files:
            yield finding(txt_rel, f"no accuracy metric can be read: {ctx.accuracy.accuracy_txt_error}",
                          expected="readable text", actual="unreadable")
        return
    reading, model = accuracy_reading(ctx, rules)
    if reading is None or reading.values:
        return
    yield finding(txt_rel, f"no accuracy metric of {ctx.mlperf_model} found; open accuracy is accepted only "
                  f"when a metric was found", expected=", ".join(t.metric for t in model.accuracy),
                  actual="no match", hint="write the accuracy script's output unchanged")


@check("AC004", "accuracy-hash-missing", "result", when=_closed_problems)
def accuracy_hash_missing(ctx, rules):
    """`accuracy.txt` has no `hash=` line (closed and network).

    What it checks: a line `hash=<hex>` exists.
    Why: official checker F5; the hash identifies the untruncated accuracy log.
    Failing example: accuracy.txt written before truncation.
    How to fix: run `mlpc truncate`.
    Data used: none.
    """
    yield from _closed({"hash"})(ctx, rules)


@check("AC005", "accuracy-log-invalid", "result", when=_closed_problems)
def accuracy_log_invalid(ctx, rules):
    """`mlperf_log_accuracy.json` is missing or larger than the truncation limit (closed and network).

    What it checks: the log exists and is <= 10240 bytes.
    Why: official checker F6.
    Failing example: an untruncated 300 MB accuracy log.
    How to fix: run `mlpc truncate`.
    Data used: `max_accuracy_log_bytes`.
    """
    yield from _closed({"log"})(ctx, rules)


@check("AC006", "accuracy-run-errors", "result", when=_closed_problems)
def accuracy_run_errors(ctx, rules):
    """The accuracy run's detail log is missing or contains LoadGen errors (closed and network).

    What it checks: `accuracy/mlperf_log_detail.txt` exists, parses, and has no error entries.
    Why: official checker F7.
    In rounds with `detail_log_strict` (v6.0) the log must also be UTF-8 with the marker on every line.
    Failing example: `error_runtime` in the accuracy run.
    How to fix: rerun the accuracy run cleanly.
    Data used: `detail_log_strict`.
    """
    yield from _closed({"detail"})(ctx, rules)


@check("AC007", "accuracy-images-missing", "result", when=_closed_problems)
def accuracy_images_missing(ctx, rules):
    """The sample images a benchmark must ship with its accuracy run are missing (closed and network).

    What it checks: for benchmarks with a list of image IDs in the round (SDXL in v4.1), `accuracy/images/`
    holds a file for each ID.
    Why: official checker F8. Published result repositories strip these images, so published trees
    fail this check exactly as they fail the official one.
    Failing example: SDXL without `accuracy/images/`.
    How to fix: keep the generated images listed in the round.
    Data used: `models.*.extra_accuracy_images`.
    """
    yield from _closed({"images"})(ctx, rules)


@check("AC008", "accuracy-invalid-open", "result", when=_open_problems)
def accuracy_invalid_open(ctx, rules):
    """An open-division result has an accuracy problem.

    What it checks: every accuracy rule of AC001-AC007, for the open division.
    Why: the official checker computes open accuracy but forces it valid (warning only).
    Failing example: an open pruned BERT at 88.4 F1 (closed target 89.97).
    How to fix: nothing is required in open; the report shows the measured accuracy.
    Data used: as AC001-AC007.
    """
    if ctx.division != "open":
        return
    for kind, item in accuracy_problems(ctx, rules):
        if kind != "official-bound":
            yield item


@check("AC009", "dataset-not-covered", "result")
def dataset_not_covered(ctx, rules):
    """The accuracy run did not cover the whole dataset (or the round's accuracy sample count).

    What it checks: the number of samples the accuracy run covered equals the model's accuracy sample count
    (v6.0+: gpt-oss-120b 4395, wan-2.2-t2v-a14b 248), else its dataset size. The covered count is
    `effective_accuracy_sample_count` of the accuracy detail log when LoadGen writes it (6.0.6+), else
    `qsl_reported_total_count`.
    Why: official checker F10 (v5.1 logs it; v6.0 rejects it); rules require the full data set.
    Failing example: an accuracy run over 4761 of 5000 samples.
    How to fix: run the accuracy mode over every sample (do not set accuracy_sample_count_override).
    Data used: `models.*.accuracy_sample_count`, `models.*.dataset_size`, `dataset_coverage_logged`.
    """
    if not rules.dataset_coverage_logged:
        return
    model = rules.models.get(ctx.mlperf_model)
    detail = ctx.accuracy.detail
    if model is None or detail is None or detail.log is None:
        return
    expected = model.accuracy_sample_count if model.accuracy_sample_count is not None else model.dataset_size
    if expected is None:
        return
    key = "effective_accuracy_sample_count"
    if detail.log.get(key) is None:
        key = "qsl_reported_total_count"
    found = detail.log.get(key)
    if found != expected:
        shown = f" ({key})" if key == "effective_accuracy_sample_count" else ""
        yield finding(detail.rel, f"accuracy run does not cover the whole dataset{shown}", expected=expected,
                      actual=found, hint="run the accuracy mode over every sample")


@check("AC012", "accuracy-outside-official-bound", "result", when=_closed_problems)
def accuracy_outside_official_bound(ctx, rules):
    """An accuracy metric fails a bound that only the official checker applies, where it contradicts the
    rules (closed and network; graded by the `official` profile only).

    What it checks: the round's accuracy bounds marked `source: official`: v6.0 dlrm-v3 `DLRM_NE` >= 0.866003
    (a lower bound on a normalised entropy, for which lower is better) and the rgat fraction target 0.721314.
    Why: rounds-v6.md 3.2 and 4-L (defect 9): the official v6.0 checker rejects a dlrm-v3 run whose NE is
    better than 99.9 % of the reference. mlpc grades by the rules (AC013) and keeps this bound so that
    `--profile official` gives the official verdict; by default it is off.
    Failing example: a dlrm-v3 accuracy.txt with `metric/lifetime_ne/rating: 0.8601`.
    How to fix: nothing, under the rules; the official checker would reject it.
    Data used: `models.*.accuracy` and `models.*.upper_limits` with `source: official`, `profiles.official`.
    """
    yield from _closed({"official-bound"})(ctx, rules)


@check("AC013", "accuracy-outside-rules-bound", "result", stricter=True, when=_closed_problems)
def accuracy_outside_rules_bound(ctx, rules):
    """An accuracy metric fails the rules' bound where the official checker applies a wrong one (closed and
    network; stricter than official).

    What it checks: the round's accuracy bounds marked `source: rules`: v6.0 rgat accuracy >= 72.1314 %
    (99 % of 72.86 %, compared with the percentage accuracy.txt prints, where the official checker compares it
    with the fraction 0.721314) and dlrm-v3 `DLRM_NE` <= 0.86687 / 0.999 (lower NE is better; the official
    checker bounds it from below).
    Why: rules accuracy table (99 % / 99.9 % of the reference); rounds-v6.md 3.2 and 4-L (defects 9 and the
    fraction-versus-percent target). `--profile official` turns this check off.
    Failing example: a closed rgat accuracy.txt with `accuracy=71.803%` (the real Cisco v6.0 result).
    How to fix: reach the accuracy target; the official checker's verdict is not the rule.
    Data used: `models.*.accuracy` and `models.*.upper_limits` with `source: rules`.
    """
    yield from _closed({"rules-bound"})(ctx, rules)


def _hash_lines(text: str) -> list[tuple[str, int]]:
    found = []
    for number, raw in enumerate(text.splitlines(), start=1):
        match = HASH_RE.match(raw.rstrip("\r"))
        if match:
            found.append((match.group(1), number))
    return found


@check("AC010", "accuracy-hash-mismatch", "result", stricter=True)
def accuracy_hash_mismatch(ctx, rules):
    r"""The `hash=` of accuracy.txt is not the sha256 of the untruncated accuracy log next to it.

    What it checks: when `mlperf_log_accuracy.json` was never truncated (no `\n\n...\n\n` separator
    after its first 4096 characters: every log under 4096 bytes, and any complete log of any size),
    its sha256 (streamed, constant memory) equals a `hash=<hex>` line of `accuracy.txt` (case-insensitive
    hex). A truncated log cannot be checked: its original is gone. All divisions.
    Why: official-checker.md F (truncation contract): `hash=` is the sha256 of the full original log,
    and logs under 4096 bytes are left unchanged, so their hash is verifiable. The official checker only
    tests that a hash line exists (F5); a mismatch means accuracy.txt was not produced from this log
    (stricter than official).
    Failing example: a 60-byte log whose accuracy.txt says `hash=` of another run's log.
    How to fix: recompute accuracy.txt from the submitted log, then run `mlpc truncate` (or the official
    truncate_accuracy_log.py) to write the hash.
    Data used: none (the 4096-character truncation contract is the official tool's).
    """
    acc = ctx.accuracy
    if ctx.scenario is None or acc.log_full_sha256 is None or acc.accuracy_txt is None:
        return
    hashes = _hash_lines(acc.accuracy_txt)
    if not hashes:
        return  # AC004 reports the missing hash line
    if any(value.lower() == acc.log_full_sha256 for value, _ in hashes):
        return
    shown = ", ".join(f"{value[:16]}... (line {line})" if len(value) > 16 else f"{value} (line {line})"
                      for value, line in hashes)
    yield finding(f"{acc.rel}/accuracy.txt", f"hash= does not match the sha256 of the untruncated "
                  f"mlperf_log_accuracy.json ({acc.log_size} bytes)", expected=f"hash={acc.log_full_sha256}",
                  actual=shown, line=hashes[0][1], sha256=acc.log_full_sha256,
                  hint="recompute accuracy.txt from this log and rerun `mlpc truncate`")


@check("AC011", "accuracy-log-shape-invalid", "result", stricter=True)
def accuracy_log_shape_invalid(ctx, rules):
    r"""The accuracy log is neither the complete JSON list LoadGen wrote nor the official truncated form.

    What it checks: a `mlperf_log_accuracy.json` within the size limit (10240 bytes) is either the
    official truncated form (its first 4096 characters, `\n\n...\n\n`, its last 4096 characters:
    8199 bytes; the same with CRLF line ends, 8208 bytes, as in real v5.1 logs truncated on Windows) or
    a complete JSON list of `{"seq_id", "qsl_idx", "data"}` entries. Below 4096 bytes only the complete
    list is possible (the official tool leaves such logs unchanged). Larger logs are AC005's. All divisions.
    Why: official-checker.md F (truncation contract, "a truncated log has a recognisable shape"); the
    official checker accepts any file up to 10240 bytes (stricter than official).
    Failing example: a log cut at 9000 bytes by hand; an empty file; `[{"seq_id": 0, "qsl_idx"`.
    How to fix: keep the log LoadGen wrote and truncate it with `mlpc truncate` (or the official
    truncate_accuracy_log.py).
    Data used: `max_accuracy_log_bytes`.
    """
    acc = ctx.accuracy
    if ctx.scenario is None or acc.log_size is None:
        return
    if acc.log_read_error:
        yield finding(acc.log_rel, acc.log_read_error, expected="a readable accuracy log", actual="unreadable")
        return
    if acc.log_size > rules.max_accuracy_log_bytes or acc.log_truncated_shape or acc.log_list_error is None:
        return
    if acc.log_truncation_marker:
        actual = f"{acc.log_size} bytes with the truncation separator but not the official head/tail sizes"
    else:
        actual = f"{acc.log_size} bytes: {acc.log_list_error}"
    yield finding(acc.log_rel, "accuracy log is neither a complete JSON list nor the official truncated form",
                  expected="a complete LoadGen JSON list, or head + \"\\n\\n...\\n\\n\" + tail (8199 bytes)",
                  actual=actual, hint="submit the log LoadGen wrote, truncated with `mlpc truncate`")


@check("AC014", "accuracy-test-mode", "result", stricter=True)
def accuracy_test_mode(ctx, rules):
    """The accuracy run was not run in AccuracyOnly mode.

    What it checks: `effective_test_mode` of `accuracy/mlperf_log_detail.txt` is `AccuracyOnly`.
    Why: accuracy.txt must be computed from an accuracy run, which logs every sample; the logs of a
    performance run hold no outputs to score. The official checker does not look (stricter).
    Failing example: the performance run's logs copied into `accuracy/`.
    How to fix: copy the accuracy run's logs.
    Data used: none.
    """
    detail = ctx.accuracy.detail
    if ctx.scenario is None or detail is None or detail.log is None:
        return
    mode = detail.log.get("effective_test_mode")
    if mode is not None and mode != "AccuracyOnly":
        yield finding(detail.rel, "accuracy run not in AccuracyOnly mode", expected="AccuracyOnly", actual=mode,
                      hint="copy the accuracy run's logs into accuracy/")


def _covered(ctx, model) -> tuple[str | None, int | None]:
    """The sample count the accuracy run covered (its detail log), as AC009 reads it."""
    detail = ctx.accuracy.detail
    if detail is None or detail.log is None:
        return None, None
    for key in ("effective_accuracy_sample_count", "qsl_reported_total_count"):
        value = detail.log.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return key, value
    return None, None


@check("AC015", "accuracy-log-contradicts-score", "result", stricter=True)
def accuracy_log_contradicts_score(ctx, rules):
    """accuracy.txt reports a score that the accuracy log next to it cannot have produced.

    What it checks: when accuracy.txt reports a value for a metric of the benchmark, its
    `mlperf_log_accuracy.json` is not empty, is a complete JSON list or the official truncated form
    (not cut elsewhere), and, when it is a complete list, holds exactly as many entries as the samples the
    accuracy run covered (`effective_accuracy_sample_count`, else `qsl_reported_total_count` of the
    accuracy detail log; without a readable one, the model's accuracy sample count): LoadGen logs each sample of an accuracy run once (every real LoadGen 4.1-6.0
    accuracy log of fixtures/loadgen holds one entry per sample), so more entries were added and fewer
    were removed. All divisions.
    Why: the score is computed from the log (rules: the accuracy script's output on the accuracy log);
    an empty, cut or short log means the score was not computed from it; a log closed early as a valid
    list (instead of the official truncation) hides the samples it dropped. The official checker only
    looks at the log's size (stricter).
    Failing example: an empty `mlperf_log_accuracy.json` next to an accuracy.txt that says
    `Accuracy = 76.5`.
    How to fix: submit the log the accuracy run wrote (truncated with `mlpc truncate`) and the
    accuracy.txt computed from it.
    Data used: the models' accuracy metrics and `accuracy_patterns`, `max_accuracy_log_bytes`,
    `models.*.accuracy_sample_count`, `models.*.dataset_size`.
    """
    acc = ctx.accuracy
    reading, model = accuracy_reading(ctx, rules)
    if reading is None or not reading.values or acc.log_size is None or acc.log_read_error:
        return
    scored = ", ".join(f"{m} {v}" for m, v in sorted(reading.values.items()))
    where = f"{acc.rel}/accuracy.txt reports {scored}"
    if acc.log_size == 0:
        yield finding(acc.log_rel, f"accuracy log is empty while {where}", expected="the accuracy run's log",
                      actual="0 bytes", hint="submit the log the accuracy run wrote")
        return
    if acc.log_size > rules.max_accuracy_log_bytes or acc.log_truncated_shape:
        return  # not truncated (AC005) or truncated the official way: its entries cannot be counted
    if acc.log_list_error is not None:
        yield finding(acc.log_rel, f"accuracy log is cut or malformed ({acc.log_list_error}) while {where}",
                      expected="a complete LoadGen JSON list or the official truncated form",
                      actual=f"{acc.log_size} bytes: {acc.log_list_error}",
                      hint="submit the log the accuracy run wrote, truncated with `mlpc truncate`")
        return
    key, covered = _covered(ctx, model)
    if covered is None and model is not None:  # no readable accuracy detail log: the count the run had to cover
        key, covered = (("models.*.accuracy_sample_count", model.accuracy_sample_count)
                        if model.accuracy_sample_count is not None else ("models.*.dataset_size", model.dataset_size))
    if covered is not None and acc.log_entries is not None and acc.log_entries != covered:
        fewer = acc.log_entries < covered
        yield finding(acc.log_rel, f"accuracy log holds {acc.log_entries} entries while the accuracy run covered "
                      f"{covered} samples ({key}) and {where}", expected=f"{covered} entries, one per sample",
                      actual=f"{acc.log_entries} entries",
                      hint=("entries were removed from the log: submit the log the accuracy run wrote, truncated "
                            "with `mlpc truncate` if it is too large") if fewer else "submit the log the accuracy run wrote")


CHECKS = (
    accuracy_below_target, accuracy_above_limit, accuracy_metric_missing, accuracy_hash_missing,
    accuracy_log_invalid, accuracy_run_errors, accuracy_images_missing, accuracy_invalid_open, dataset_not_covered,
    accuracy_hash_mismatch, accuracy_log_shape_invalid, accuracy_outside_official_bound, accuracy_outside_rules_bound,
    accuracy_test_mode, accuracy_log_contradicts_score,
)
