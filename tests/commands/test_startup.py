"""Start-up: `mlpc check` (and the other commands defined in checker/cli.py) import none of the
sub-command modules; every other invocation, and an importer of ``checker.cli``, gets all commands."""

import json
import subprocess
import sys

PROBE = """
import json, sys
sys.argv = [sys.argv[1]] + sys.argv[2:]
import typer.main
from checker.cli import app
group = typer.main.get_command(app)
print(json.dumps({"modules": sorted(m for m in sys.modules if m.startswith("checker.commands.")),
                  "commands": sorted(group.commands),
                  "check_help": type(group.commands["check"]).__name__}))
"""


def _probe(*argv: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_check_imports_no_sub_command_module():
    for entry in ("/usr/bin/mlpc", "/x/checker/cli_main.py"):
        lean = _probe(entry, "check", "some/tree")
        assert lean["modules"] == [] and lean["commands"] == ["check", "checks", "explain"], lean
        assert lean["check_help"] == "PlainCommand"  # the same help style as with every command


def test_version_imports_no_sub_command_module():
    lean = _probe("/usr/bin/mlpc", "--version")
    assert lean["modules"] == [] and lean["commands"] == ["check", "checks", "explain"], lean
    assert "checker.commands.audit_run" in _probe("/usr/bin/mlpc", "--version", "report")["modules"]


def test_other_invocations_get_every_command():
    for argv in (("/usr/bin/mlpc", "report", "x"), ("/usr/bin/mlpc", "--help"), ("/usr/bin/mlpc",),
                 ("/usr/bin/pytest", "check")):
        full = _probe(*argv)
        assert {"check", "report", "diff", "calc", "audit", "ci"} <= set(full["commands"]), argv
        assert "checker.commands.audit_run" in full["modules"]


def test_the_cli_collects_cycles_less_often():
    """The CLI process (and the workers it forks) run the cycle collector's young pass every 50,000 allocations,
    not Python's 700: a check makes many short-lived containers and few cycles."""
    program = "import sys; sys.argv = ['mlpc', 'check']; import gc, checker.cli; print(gc.get_threshold())"
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "(50000, 10, 10)"


CHECK = """
import json, sys
sys.argv = ["mlpc", "check", *sys.argv[1:]]
from checker.cli import app
try:
    app()
except SystemExit as exc:
    code = exc.code
from pydantic._internal._mock_val_ser import MockValSer
from checker.models.rules import RoundRules
from checker.models.audit_spec import RoundAuditSpec
print(json.dumps({"exit": code, "yaml": "yaml" in sys.modules,
                  "built": [not isinstance(m.__pydantic_validator__, MockValSer) for m in (RoundRules, RoundAuditSpec)]}))
"""


def test_a_check_with_warm_data_caches_parses_no_data_file(tmp_path):
    """`mlpc check` of a LoadGen round reads its data files (round file, audit spec, Appendix B) from the caches
    of checker.loaders.data_cache once they are written: PyYAML is not imported and the validators of the round
    file's and the audit spec's models are not built (about 40 ms of start-up)."""
    import os

    from tests.conftest import REPO

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    tree = os.path.join(REPO, "fixtures", "example_submission_v6.0")
    args = [tree, "--round", "v6.0", "--quiet", "--no-cache", "--jobs", "1", "-o", str(tmp_path / "r.json")]
    runs = [json.loads(subprocess.run([sys.executable, "-c", CHECK, *args], capture_output=True, text=True,
                                      check=True, env=env, cwd=REPO).stdout) for _ in range(2)]
    assert runs[0]["exit"] == runs[1]["exit"]
    assert runs[1] == {"exit": runs[0]["exit"], "yaml": False, "built": [False, False]}, runs


ENV_PROBE = """
import json, os, sys
sys.argv = [sys.argv[1]] + sys.argv[2:]
import checker.cli
print(json.dumps({k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "PYDANTIC_DISABLE_PLUGINS")}))
"""


def _env_after_import(*argv: str, **preset: str) -> dict:
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "PYDANTIC_DISABLE_PLUGINS")}
    env.update(preset)
    out = subprocess.run([sys.executable, "-c", ENV_PROBE, *argv], capture_output=True, text=True, check=True,
                         env=env)
    return json.loads(out.stdout)


def test_check_sets_its_process_settings_and_audit_run_leaves_the_environment_alone():
    """`mlpc check` single-threads OpenBLAS and skips pydantic's plugin lookup for itself and its workers;
    `mlpc audit run` starts the user's SUT with the environment as the user set it."""
    assert _env_after_import("/usr/bin/mlpc", "check", "x") == {"OPENBLAS_NUM_THREADS": "1",
                                                                "PYDANTIC_DISABLE_PLUGINS": "__all__"}
    assert _env_after_import("/usr/bin/mlpc", "audit", "run", "x") == {"OPENBLAS_NUM_THREADS": None,
                                                                       "PYDANTIC_DISABLE_PLUGINS": None}
    # what the user set stays as it is
    assert _env_after_import("/usr/bin/mlpc", "check", "x", OPENBLAS_NUM_THREADS="4",
                             PYDANTIC_DISABLE_PLUGINS="") == {"OPENBLAS_NUM_THREADS": "4", "PYDANTIC_DISABLE_PLUGINS": ""}
