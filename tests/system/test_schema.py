"""System description models and schemas: committed schemas are fresh, `mlpc schema validate` is robust."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from checker.commands import schema
from checker.loaders.rules import available_rounds, load_rules
from checker.models.system import json_schema, validate_system
from tests.conftest import REAL

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(REAL)  # the shared real data (tests/conftest.py; MLPC_SHARED moves it)
RUNNER = CliRunner()

cli = typer.Typer()
cli.add_typer(schema.app, name="schema")


def _run(*args):
    return RUNNER.invoke(cli, ["schema", *args])


@pytest.mark.parametrize("round_name", available_rounds())
def test_committed_schema_is_fresh(round_name) -> None:
    path = ROOT / "schemas" / f"system-{round_name}.schema.json"
    assert path.is_file(), f"run: mlpc schema export --round {round_name} -o {path.relative_to(ROOT)}"
    assert path.read_text(encoding="utf-8") == schema.render_schema(load_rules(round_name)), (
        f"stale: run mlpc schema export --round {round_name} -o schemas/system-{round_name}.schema.json")


def test_export_to_stdout_is_the_schema() -> None:
    result = _run("export", "--round", "v4.1")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == json_schema(load_rules("v4.1"))


GOOD = json.loads((ROOT / "fixtures" / "system" / "PASS" / "closed" / "Acme" / "systems" / "sys.json").read_text())


@pytest.mark.parametrize("content,code", [
    ("not json", "SY001"), ("[1, 2]", "SY001"), ("3", "SY001"), ("null", "SY001"),
    ('{"a": 1, "a": 2}', "ST024"), ("[" * 5000 + "]" * 5000, "SY001"),
    (json.dumps({"hw_notes": "x" * 100000}), "SY001"), (b"\xff\xfe\x00", "SY001"),
    (json.dumps(dict(GOOD, status="released")), "SY002"),
    (json.dumps(dict(GOOD, system_type="Datacenter")), "SY003"),
    (json.dumps({k: v for k, v in GOOD.items() if k != "cooling"}), "SY005"),
    (json.dumps(dict(GOOD, accelerators_per_node=0)), "SY006"),
    (json.dumps(dict(GOOD, division="Closed")), "SY009"),
])
def test_validate_bad_input_is_a_coded_error(tmp_path, content, code) -> None:
    path = tmp_path / "sys.json"
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    result = _run("validate", str(path), "--round", "v4.1", "--format", "json")
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    findings = json.loads(result.stdout)
    assert code in {f["code"] for f in findings}
    assert all(f["pointer"] == "" or f["pointer"].startswith("/") for f in findings)


@pytest.mark.parametrize("changes,code,pointer", [
    ({"number_of_nodes": "one"}, "SY010", "/number_of_nodes"),
    ({"framework": "TBD"}, "SY011", "/framework"),
    ({"host_memory_configuration": "16x 32GB"}, "SY012", "/host_memory_configuration"),
    ({"host_network_card_count": "0"}, "SY014", "/host_network_card_count"),
])
def test_validate_warnings_exit_zero(tmp_path, changes, code, pointer) -> None:
    path = tmp_path / "sys.json"
    path.write_text(json.dumps(dict(GOOD, **changes)))
    result = _run("validate", str(path), "--round", "v4.1", "--format", "json")
    assert result.exit_code == 0, result.output
    assert [(f["code"], f["pointer"]) for f in json.loads(result.stdout)] == [(code, pointer)]


def test_validate_clean_file(tmp_path) -> None:
    path = tmp_path / "sys.json"
    path.write_text(json.dumps(GOOD))
    result = _run("validate", str(path), "--round", "v4.1")
    assert result.exit_code == 0 and "0 error(s), 0 other" in result.stdout


def test_usage_errors_exit_two(tmp_path) -> None:
    assert _run("validate", str(tmp_path / "missing.json"), "--round", "v4.1").exit_code == 2
    path = tmp_path / "sys.json"
    path.write_text("{}")
    assert _run("validate", str(path), "--round", "v0.0").exit_code == 2
    assert _run("validate", str(path)).exit_code == 2
    assert _run("export").exit_code == 2


def test_validate_system_kinds() -> None:
    rules = load_rules("v4.1")
    assert validate_system([1], rules)[0][2] == "not-object"
    found = {(p, k) for p, _, k in validate_system(dict(GOOD, number_of_nodes=1.5, status="gone", hw_notes=None,
                                                        host_memory_configuration="undefined"), rules)}
    assert found == {("/number_of_nodes", "type"), ("/status", "enum"), ("/hw_notes", "type"),
                     ("/host_memory_configuration", "placeholder")}
    # counts: numbers or numeric strings; is_network: boolean or "true"/"false"
    assert validate_system(dict(GOOD, number_of_nodes=2, host_processors_per_node="2", is_network=False), rules) == []
    # N/A is honest for the accelerator fields of a CPU-only system, and in optional fields
    assert validate_system(dict(GOOD, accelerator_model_name="N/A", filesystem="N/A"), rules) == []
    assert ("/accelerator_model_name", "field accelerator_model_name holds the placeholder 'N/A'", "placeholder") in (
        validate_system(dict(GOOD, accelerators_per_node="2", accelerator_model_name="N/A"), rules))


ROUND_FOLDERS = sorted(p.name for p in SHARED.glob("v*") if p.is_dir() and not p.name.endswith("-expected")) \
    if SHARED.is_dir() else []
# what validate_system's kinds become in `mlpc check` (checks/system.py): a free-text count is SY010
KIND_CODES = {"missing": "SY005", "type": "SY010"}


@pytest.mark.parametrize("round_folder", ROUND_FOLDERS or ["(none)"])
def test_real_files_of_a_round_pass_with_its_own_rules(round_folder) -> None:
    """Every published system description of a round in ../shared is accepted by that round's rules.

    Free text that the official tools and the review accepted (a count written as a sentence) is at most a
    warning; a round folder whose rules mlpc does not have yet is skipped, saying so.
    """
    if not ROUND_FOLDERS:
        pytest.skip(f"real submission data not found at {SHARED} (set MLPC_SHARED to the shared/ folder)")
    if round_folder not in available_rounds():
        pytest.skip(f"{round_folder}: no rules/{round_folder}.yaml yet")
    rules = load_rules(round_folder)
    paths = sorted((SHARED / round_folder).glob("*/*/systems/*.json"))
    assert paths, f"no system descriptions under {SHARED / round_folder}"
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        errors = [f for f in validate_system(data, rules)
                  if f[2] == "enum" or rules.severities.get(KIND_CODES.get(f[2], ""), "") == "error"]
        assert errors == [], path
