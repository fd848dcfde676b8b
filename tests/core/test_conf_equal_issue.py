"""PF011 reads equal-issue mode from the conf lines that name it (found in C): the same as reading every line."""

import random
from types import SimpleNamespace

from checker.checks import performance
from checker.loaders.rules import load_rules


def _plain(ctx, rules):
    model = performance._model(ctx, rules)
    name = (model.loadgen_name if model else None) or ctx.model_dir.replace("-99.9", "").replace("-99", "")
    found = None
    for conf in ("mlperf.conf", "user.conf"):
        for line in ctx.measurements.conf_texts.get(conf, "").splitlines():
            line = line.replace(" ", "").strip()
            if not line or line.startswith("#") or line.count("=") != 1:
                continue
            key, value = line.split("=")
            parts = key.split(".")
            if len(parts) != 3 or parts[2] != "sample_concatenate_permutation":
                continue
            if parts[0] in (name, ctx.model_dir, "*") and parts[1] in (ctx.scenario_dir, ctx.scenario, "*"):
                try:
                    found = int(value) == 1
                except ValueError:
                    continue
                break
    return found


PIECES = ["llama2-70b", "gptj", "*", "mixtral-8x7b", "Offline", "Server", "offline", "sample_concatenate_permutation",
          "sample_concatenate _permutation", "min_duration", " ", ".", "=", "1", "0", "x", "#", "\t", "\r", "\x0b",
          "\u2028", "\n", "llama2-70b.Offline.sample_concatenate_permutation = 1\n",
          "*.*.sample_concatenate_permutation=0\n",
          "gptj.Server.sample_concatenate_permutation = x\n", "llama2-70b.*.sample_concatenate_permutation = 1\r\n",
          "# llama2-70b.Offline.sample_concatenate_permutation = 0\n",
          "*.Offline.sample_concatenate_permutation = 0 = 1\n"]


def test_equal_issue_reading_is_the_line_by_line_one():
    rules = load_rules("v4.1")
    rng = random.Random(11)
    seen = set()
    for _ in range(3000):
        texts = {conf: "".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 40)))
                 for conf in ("mlperf.conf", "user.conf") if rng.random() < 0.8}
        ctx = SimpleNamespace(mlperf_model="llama2-70b-99",
                              model_dir=rng.choice(["llama2-70b-99", "gptj-99", "x"]),
                              scenario=rng.choice(["Offline", "Server"]),
                              scenario_dir=rng.choice(["Offline", "offline"]),
                              measurements=SimpleNamespace(conf_texts=texts))
        found = performance._conf_equal_issue(ctx, rules)
        assert found == _plain(ctx, rules), texts
        seen.add(found)
    assert seen == {None, True, False}
    line = "llama2-70b.Offline.sample_concatenate_permutation = 1"
    ctx = SimpleNamespace(mlperf_model="llama2-70b-99", model_dir="llama2-70b-99", scenario="Offline",
                          scenario_dir="Offline", measurements=SimpleNamespace(conf_texts={"user.conf": line}))
    assert performance._conf_equal_issue(ctx, rules) is True
