"""read_accuracy matches each pattern with its compiled regex and literal taken once per call: the same reading as
trying every line with _match, on every real accuracy.txt and on made texts."""

import glob
import os
from dataclasses import asdict

from checker.loaders.rules import load_rules
from checker.metrics import accuracy_metrics as am
from tests.conftest import REAL


def _plain(text, patterns, targets, limits):
    """read_accuracy as it read every line (no filter) through _match."""
    reading = am.AccuracyReading()
    seen = [False] * len(targets)
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r")
        for index, (metric, target) in enumerate(targets):
            pattern = patterns.get(metric)
            match = am._match(pattern, line) if pattern else None
            if not match:
                continue
            found = match.group(1)
            reading.values.setdefault(metric, found)
            value = am._float(found)
            if value is None:
                reading.unparseable.append((metric, found, number))
            elif value >= target:
                seen[index] = True
            else:
                reading.failures.append(am.MetricFailure(metric, target, found, "below", number))
        for metric, limit in limits:
            pattern = patterns.get(metric)
            match = am._match(pattern, line) if pattern else None
            if not match:
                continue
            value = am._float(match.group(1))
            if value is not None and value > limit:
                reading.failures.append(am.MetricFailure(metric, limit, match.group(1), "above", number))
        hash_match = am.HASH_RE.match(line)
        if hash_match:
            reading.hash_value = hash_match.group(1)
        if all(seen) and reading.hash_value is not None:
            break
    failed = {f.metric for f in reading.failures if f.kind == "below"}
    reading.missing = [m for (m, _), ok in zip(targets, seen) if not ok and m not in failed
                       and m not in {u[0] for u in reading.unparseable}]
    return reading


MADE = ["accuracy=76.1%\nhash=ab\n", "hash=ab\naccuracy=70%\naccuracy=x\naccuracy=80\n", "Accuracy: mean = 0.8617\n",
        "{'rouge1': 45.1, 'rouge2': 23.2, 'rougeL': 30.0, 'tokens_per_sample': 300.0, 'gen_len': 4000000}\r\nhash=1",
        "BLEU: 23.9\nBLEU: 1\n", "noise\n" * 50 + "mAP=37.5%\n", "", "'rouge1':\x0b 2.5\nhash=ff\u2028accuracy=1\n"]


def test_readings_are_the_line_by_line_ones():
    cases = []
    for path in glob.glob(os.path.join(REAL, "v*", "*", "*", "results", "*", "*", "*", "accuracy", "accuracy.txt")):
        round_name = path[len(REAL) + 1:].split(os.sep)[0]
        if round_name in ("v4.1", "v5.1", "v6.0", "v6.1"):
            with open(path, encoding="utf-8", errors="replace") as handle:
                cases.append((round_name, handle.read()))
    cases += [(name, text) for name in ("v4.1", "v6.0") for text in MADE]
    checked = 0
    for round_name, text in cases:
        rules = load_rules(round_name)
        for model in rules.models.values():
            targets = [(t.metric, t.target) for t in model.accuracy]
            limits = [(u.metric, u.limit) for u in model.upper_limits]
            patterns = {**rules.accuracy_patterns, "NONE": ""}
            targets += [("NONE", 1.0)] if checked % 7 == 0 else []
            assert asdict(am.read_accuracy(text, patterns, targets, limits)) == \
                asdict(_plain(text, patterns, targets, limits)), (round_name, model, text[:200])
            checked += 1
    assert checked > 100


def test_plain_breaks_is_no_other_line_break():
    import random
    rng = random.Random(3)
    alphabet = ["a", "\n", "é", " ", *am._OTHER_BREAKS]
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 8)))
        pieces = text.split("\n")
        if text.endswith("\n"):
            pieces.pop()
        assert am._plain_breaks(text) == (text.splitlines() == pieces if text else True), repr(text)
