"""pydantic-core's compiled module loaded without its package (checker.models.core_module)."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import sys
from checker.models import core_module
from checker.models.system_core import system_validator
from checker.loaders.rules import load_rules
validator = system_validator(load_rules("v6.0"))
try:
    validator.validate_python({"division": 7})
except core_module.ValidationError as exc:
    errors = exc.errors(include_url=False)
before = sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core", "typing_extensions"))
import pydantic, pydantic_core
from pydantic import BaseModel

class M(BaseModel):
    a: int

try:
    M(a="x")
except core_module.ValidationError as exc:  # (pydantic's errors are the very same class)
    caught = exc.errors()[0]["type"]
print(before)
print(pydantic_core._pydantic_core is core_module.core, pydantic_core.SchemaValidator is core_module.SchemaValidator,
      caught, bool(errors), M.model_json_schema()["required"])
"""


def test_the_compiled_module_is_loaded_alone_and_shared_with_a_later_pydantic():
    out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True)
    before, after = out.stdout.splitlines()
    assert before == "['pydantic_core._pydantic_core']"
    assert after == "True True int_parsing True ['a']"


def test_a_process_that_imported_pydantic_core_first_uses_its_module():
    program = ("import pydantic_core, sys\nfrom checker.models import core_module\n"
               "print(core_module.core is pydantic_core._pydantic_core, core_module.SchemaValidator is pydantic_core.SchemaValidator)")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]
