"""What the parallel check builds once before forking its workers (``pipeline.warm_up``): each worker must find
it built, and a round whose tests are verified by the v6.0 module must have it imported; a round without them must not
pay for it. Neither needs numpy: power results are read in C where the extensions are built, and the v6.0 module
imports numpy only to compute TEST08's entropy. Run in a fresh
interpreter, since this test process imports everything anyway."""

from __future__ import annotations

import subprocess
import sys

import pytest

from checker.loaders.compiled import compiled
from tests.conftest import real_tree

PROGRAM = """
import sys
from checker.loaders import audit_spec
from checker.loaders.rules import load_rules
from checker.models import system, system_core
from checker.pipeline import warm_up
rules = load_rules(sys.argv[1])
warm_up(rules)
from checker.metrics.bandwidth import load_appendix_b
from pydantic._internal._mock_val_ser import MockValSer
built = [not isinstance(m.__pydantic_validator__, MockValSer) for m in sys.modules["checker.models.endpoint"].SCHEMA_MODELS.values()] if "checker.models.endpoint" in sys.modules else [False]
print(audit_spec.load_round_spec.cache_info().currsize + load_appendix_b.cache_info().currsize,
      f"{len(system_core._VALIDATORS)}/{len(system._MODELS)}",
      "numpy" in sys.modules, "checker.audit.verify_tests_v6" in sys.modules, "checker.models.endpoint" in sys.modules,
      "checker.audit.compliance_v6" in sys.modules, all(built))
"""


@pytest.mark.parametrize("round_name, heavy, endpoints", [("v4.1", False, False), ("v5.1", False, False),
                                                         ("v6.0", True, False), ("v6.1", True, True)])
def test_warm_up_builds_what_workers_need(round_name, heavy, endpoints):
    out = subprocess.run([sys.executable, "-c", PROGRAM, round_name], capture_output=True, text=True, check=True)
    specs, models, numpy, v6, endpoint_models, v6_compliance, endpoint_built = out.stdout.split()
    # the audit spec and the Appendix B table; the validator of system descriptions, not the pydantic model (built
    # only to export the JSON Schema: about 12 ms that no worker needs)
    assert (specs, models) == ("2", "1/0")
    assert (v6, v6_compliance) == (str(heavy), str(heavy))
    assert numpy == "False"  # numpy (about 12 MB in every process) is imported where TEST08's entropy is computed
    assert endpoint_models == str(endpoints)  # imported with the loaders only where a round takes endpoint results
    assert endpoint_built == str(endpoints)  # and their validators built (not once in each worker)


NO_NUMPY = """
import sys
from checker.api import check
report = check(sys.argv[1], round="v4.1", jobs=1, cache=False)
powered = sum(1 for r in report.results if r.power_value is not None)
print(powered, "numpy" in sys.modules)
"""


def test_power_results_are_checked_without_numpy():
    """The real v4.1 subset's power results (read and walked in C) do not import numpy: it costs a
    process about 0.1 s, more than its power logs take to check."""
    if compiled("window", "_power_scan") is None:
        pytest.skip("the C extension checker._power_scan is not built here")
    tree = real_tree("v4.1")
    out = subprocess.run([sys.executable, "-c", NO_NUMPY, tree], capture_output=True, text=True, check=True)
    powered, numpy = out.stdout.split()
    assert int(powered) > 0 and numpy == "False", out.stdout


LEAN = """
import sys
sys.argv = ["/usr/bin/mlpc", "check", "x"]
import checker.cli, checker.pipeline, checker.registry
from checker.loaders.rules import load_rules
from checker.pipeline import warm_up
warm_up(load_rules("v4.1"))
print(" ".join(str(name in sys.modules) for name in (
    "checker.metrics.plausibility", "checker.loaders.hardware", "checker.models.audit_inputs", "checker.cache")))
"""


def test_what_only_the_round_checks_use_is_imported_after_the_fork():
    """The plausibility assessment, its tables and pydantic models run in the main process after the workers
    (which never use them), and a check without the cache needs no cache module: none of them is imported
    before the workers are forked."""
    out = subprocess.run([sys.executable, "-c", LEAN], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "False", "False"]


def test_prepare_survives_what_it_cannot_build(monkeypatch):
    """What the main process prepares while the workers run is built again where the checks use it (and an
    error reported there): a failure while preparing is not the check's end."""
    from checker import pipeline
    from checker.loaders import hardware
    from checker.registry import ALL_CHECKS

    def broken():
        raise RuntimeError("no table today")

    monkeypatch.setattr(hardware, "default_tables", broken)
    pipeline._prepare(ALL_CHECKS)  # no exception
