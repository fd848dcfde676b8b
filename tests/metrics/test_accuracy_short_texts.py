"""read_accuracy reads a short accuracy.txt (a few lines, as most are) line by line instead of searching it for
the patterns' literals: the same reading as the search gives, on real files and on generated short texts."""

from __future__ import annotations

import glob
import os
import random

import pytest

from checker.loaders.rules import load_rules
from checker.metrics import accuracy_metrics
from checker.metrics.accuracy_metrics import read_accuracy
from tests.conftest import REAL


def _both(monkeypatch, text, patterns, targets, limits):
    short = read_accuracy(text, patterns, targets, limits)
    with monkeypatch.context() as patch:
        patch.setattr(accuracy_metrics, "_SHORT_LINES", 0)  # (every text searched for the literals)
        searched = read_accuracy(text, patterns, targets, limits)
    return short, searched


def _models(rules):
    for name, model in rules.models.items():
        for scenario in ("Offline", "Server", "SingleStream"):
            yield name, [(t.metric, t.target) for t in model.targets_for(scenario)], \
                [(u.metric, u.limit) for u in model.upper_limits]


def test_real_accuracy_texts_read_alike(monkeypatch):
    paths = glob.glob(os.path.join(REAL, "*", "**", "accuracy.txt"), recursive=True)[:400]
    if not paths:
        pytest.skip(f"real submission data not found at {REAL}")
    rules = load_rules("v4.1")
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        for _, targets, limits in _models(rules):
            short, searched = _both(monkeypatch, text, rules.accuracy_patterns, targets, limits)
            assert short == searched, path


def test_generated_short_texts_read_alike(monkeypatch):
    rules = load_rules("v4.1")
    rng = random.Random(13)
    pieces = ["{'rouge1': 44.1411, 'rouge2': 21.8139, 'rougeL': 28.4395, 'rougeLsum': 41.7218, 'gen_len': 28437979, "
              "'gen_num': 24576, 'tokens_per_sample': 292.9}", "{'rouge1': 10.0, 'tokens_per_sample': 999.0}",
              "accuracy=76.456%, good=38228, total=50000", "accuracy=75.0%, good=1, total=2", "mAP=37.55",
              "hash=75c11dc22ec1bf1d6a8f27c995f28d6cb2d2267e777d37afe4d6e6936df936a6", "hash=", "hash=x y", "",
              "Results", "{'exact_match': 83.5, 'f1': 90.9}", "'rouge1': abc", "AUC=80.3", "WER=2.1%", " hash=ab",
              "{'rouge1': 44.1411, 'rouge1': 1.0}"]
    for _ in range(3000):
        lines = [rng.choice(pieces) for _ in range(rng.randint(0, 12))]
        text = "\n".join(lines) + rng.choice(["", "\n", "\n\n"])
        for _, targets, limits in rng.sample(list(_models(rules)), 6):
            short, searched = _both(monkeypatch, text, rules.accuracy_patterns, targets, limits)
            assert short == searched, (text, targets, limits)
