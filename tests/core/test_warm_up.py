"""What the parallel check builds once before forking its workers (``pipeline.warm_up``): each worker must find
it built, and a round whose tests are verified by the v6.0 module must have it imported; a round without them must not
pay for it (numpy, which power results need, is always imported). Run in a fresh interpreter, since this test process imports everything anyway."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROGRAM = """
import sys
from checker.loaders import audit_spec
from checker.loaders.rules import load_rules
from checker.models import system
from checker.pipeline import warm_up
rules = load_rules(sys.argv[1])
warm_up(rules)
print(audit_spec.load_round_spec.cache_info().currsize, len(system._MODELS),
      "numpy" in sys.modules, "checker.audit.verify_tests_v6" in sys.modules)
"""


@pytest.mark.parametrize("round_name, heavy", [("v4.1", False), ("v5.1", False), ("v6.0", True), ("v6.1", True)])
def test_warm_up_builds_what_workers_need(round_name, heavy):
    out = subprocess.run([sys.executable, "-c", PROGRAM, round_name], capture_output=True, text=True, check=True)
    specs, models, numpy, v6 = out.stdout.split()
    assert (specs, models) == ("1", "1")
    assert (numpy, v6) == ("True", str(heavy))
