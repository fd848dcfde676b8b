"""Deferred standard-library modules (checker.lazy_module): a stand-in imports the real module on first use, and
`mlpc check` does not import ``inspect`` (which ``dataclasses`` imports for one call a check never makes)."""

import inspect
import json
import os
import subprocess
import sys

from checker.checks.memo import _STAR_ARGS
from checker.registry import ALL_CHECKS
from tests.conftest import REPO

DEFERRED = """
import json, sys
from checker.lazy_module import defer, _Deferred
defer("colorsys", "json")  # (json is imported already: left as it is)
import colorsys
first = type(sys.modules["colorsys"]) is _Deferred and type(sys.modules["json"]) is not _Deferred
hsv = colorsys.rgb_to_hsv(0.2, 0.4, 0.4)
from colorsys import hls_to_rgb
real = sys.modules["colorsys"]
print(json.dumps({"first": first, "hsv": hsv, "real": type(real) is not _Deferred, "same": colorsys.rgb_to_hsv is real.rgb_to_hsv,
                  "from": hls_to_rgb is real.hls_to_rgb, "name": colorsys.__name__, "file": colorsys.__file__ == real.__file__}))
"""


def _run(program: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True, check=True, cwd=REPO)
    return json.loads(out.stdout.splitlines()[-1])


def test_a_deferred_module_is_imported_on_first_use_and_then_is_the_real_one():
    import colorsys

    got = _run(DEFERRED)
    assert got == {"first": True, "hsv": list(colorsys.rgb_to_hsv(0.2, 0.4, 0.4)), "real": True, "same": True,
                   "from": True, "name": "colorsys", "file": True}


CHECK = """
import sys
START = set(sys.modules)  # (an editable install's path finder imports pathlib as Python starts: not the check)
import atexit, json
sys.argv = ["/usr/bin/mlpc", "check", *sys.argv[1:]]

def probe():
    from checker.lazy_module import _Deferred
    names = ("inspect", "pathlib", "tempfile", "statistics")
    print(json.dumps({n: n not in START and n in sys.modules and type(sys.modules[n]) is not _Deferred
                      for n in names}), flush=True)

atexit.register(probe)
from checker.cli_main import main  # (the console script's entry)
main()
"""


def test_a_check_does_not_import_what_it_does_not_use(tmp_path):
    """Not ``inspect`` (dataclasses imports it), ``pathlib`` (paths are text), ``tempfile`` (the spool opens its
    file itself) nor ``statistics`` (the peer median is computed in place): ~20 ms of start-up together."""
    tree = os.path.join(REPO, "fixtures", "example_submission_v6.0")
    report = tmp_path / "r.json"
    out = subprocess.run([sys.executable, "-c", CHECK, tree, "--round", "v6.0", "--quiet", "--no-cache", "--jobs", "1",
                          "-o", str(report)], capture_output=True, text=True, cwd=REPO)
    assert out.returncode in (0, 1), out.stderr
    assert json.loads(out.stdout.splitlines()[-1]) == dict.fromkeys(("inspect", "pathlib", "tempfile", "statistics"),
                                                                     False)
    assert json.loads(report.read_text())["results"]


def test_the_memo_reads_the_code_flags_inspect_names():
    assert _STAR_ARGS == inspect.CO_VARARGS | inspect.CO_VARKEYWORDS


def test_a_checks_documentation_is_its_docstring_as_getdoc_gives_it():
    for check in ALL_CHECKS:
        assert check.doc == (inspect.getdoc(check.func) or "" if check.func.__doc__ else inspect.cleandoc(check.docstring))
        assert check.doc.strip(), check.code
