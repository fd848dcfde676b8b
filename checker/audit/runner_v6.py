"""The verification files of a live TEST07, TEST08 or TEST09 run, written from the run's logs.

Each file is laid out as the official script writes it (rounds-v6.md section 5) and computed by
the same functions ``mlpc check`` uses (:mod:`checker.audit.verify_tests_v6`), so a folder the
runner wrote and a submitted folder are judged alike.
"""

from __future__ import annotations

import os
from dataclasses import asdict

from checker.audit import verify_tests_v6 as v6
from checker.audit.compliance import ACC_LOG, AccuracyLogReader


def _outputs(path: str) -> list[tuple[int, bytes]]:
    """(qsl_idx, output) of each distinct sample of an accuracy log, first entry wins."""
    seen: dict[int, bytes] = {}
    for entry in AccuracyLogReader(path):
        if entry.qsl_idx not in seen:
            seen[entry.qsl_idx] = entry.raw if entry.raw is not None else bytes.fromhex(entry.data)
    return sorted(seen.items())


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def write_test07(sut, rule, model: str, results: str, test_dir: str) -> dict:
    """Score the TEST07 run with the SUT's accuracy script; also record the main accuracy run's score
    (``results``: the folder holding the accuracy run, ``accuracy/``)."""
    from checker.audit.runner import RunnerError

    score_rule = rule.score.get(model)
    if score_rule is None:
        raise RunnerError(f"TEST07 has no threshold for {model}")
    if not callable(getattr(sut, "score", None)):
        raise RunnerError("TEST07 needs the dataset's accuracy script: the SUT must have a "
                          "score(outputs, dataset) method returning (correct, evaluated)")
    correct, evaluated = sut.score(_outputs(os.path.join(test_dir, "accuracy", ACC_LOG)), "compliance")
    score = 100.0 * correct / evaluated if evaluated else None
    _write(os.path.join(test_dir, "verify_accuracy.txt"), v6.render_test07(score, correct, evaluated, score_rule))
    main_correct, main_total = sut.score(_outputs(os.path.join(results, "accuracy", ACC_LOG)), "main")
    main = 100.0 * main_correct / main_total if main_total else 0.0
    _write(os.path.join(results, "accuracy", "accuracy.txt"),
           f"'{score_rule.metric}': {main:.3f}\n")  # the accuracy run's score, for comparison
    return {"score": score, "correct": correct, "evaluated": evaluated, "threshold": score_rule.threshold,
            "accuracy_run_score": main}


def write_test08(rule, results: str, test_dir: str) -> dict:
    acc = AccuracyLogReader(os.path.join(results, "accuracy", ACC_LOG))
    perf = AccuracyLogReader(os.path.join(test_dir, "accuracy", ACC_LOG))
    verdict = v6.verify_test08(acc, perf, rule.ne_match)
    _write(os.path.join(test_dir, "verify_accuracy.txt"), v6.render_test08(verdict, rule.ne_match))
    return asdict(verdict)


def write_test09(rule, model: str, test_dir: str) -> dict:
    from checker.audit.runner import RunnerError

    bounds = rule.output_length.get(model)
    if bounds is None:
        raise RunnerError(f"TEST09 has no output-length bounds for {model}")
    stats = v6.output_length_stats(AccuracyLogReader(os.path.join(test_dir, "accuracy", ACC_LOG)), rule.token_bytes)
    _write(os.path.join(test_dir, "verify_output_len.txt"), v6.render_test09(stats, bounds))
    return {**asdict(stats), "min_bound": bounds.min, "max_bound": bounds.max}
