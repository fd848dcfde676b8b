"""``mlpc schema ...``: the JSON Schema of the system description, per round.

* ``export --round v5.0 [-o FILE]``: write the schema generated from ``checker/models/system.py`` and
  ``rules/<round>.yaml`` (the committed copies live in ``schemas/system-<round>.schema.json``);
* ``validate FILE.json --round v4.1``: validate one system description with ``jsonschema`` and print coded
  findings (the same SY codes as ``mlpc check``) with JSON pointers.

Exit codes: 0 no error-severity finding, 1 errors (bad input included: not JSON, not an object,
duplicate keys, deep nesting, huge strings), 2 usage errors (unknown round, missing file).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Iterable, NoReturn, Optional

import typer

if TYPE_CHECKING:  # rich is imported when a command prints: every CLI start imports this module
    from rich.console import Console

from checker.cli_console import new_console

from checker.diagnostics import MlpcError

app = typer.Typer(help="JSON Schema of the system description (systems/<system>.json), per round.",
                  no_args_is_help=True)

MAX_FILE_BYTES = 4 * 1024 * 1024  # as the tree loader's read_json
MAX_STRING_CHARS = 65536

# jsonschema error on a property -> the code `mlpc check` uses for the same problem
ENUM_CODES = {"status": "SY002", "system_type": "SY003", "division": "SY009"}
# the system checks that need nothing but the file itself
FILE_ONLY_CHECKS = ("SY007", "SY011", "SY012", "SY013", "SY014", "SY015", "SY016")


def _out() -> Console:
    return new_console(highlight=False, soft_wrap=True)


def _fail(message: str) -> NoReturn:
    new_console(stderr=True, highlight=False, soft_wrap=True).print(f"error: {message}", markup=False)
    raise typer.Exit(2)


def _rules(round_name: str):
    from checker.loaders.rules import load_rules

    try:
        return load_rules(round_name)
    except MlpcError as exc:
        _fail(str(exc))


def render_schema(rules) -> str:
    """The schema text exactly as committed under ``schemas/`` (stable key order, trailing newline)."""
    from checker.models.system import json_schema

    return json.dumps(json_schema(rules), indent=2, ensure_ascii=False) + "\n"


@app.command("export")
def export(
    round: str = typer.Option(..., "--round", "-r", help="Round whose system description to describe (v4.1, v5.0, ...)."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
) -> None:
    """Write the JSON Schema (draft 2020-12) of the round's system description."""
    text = render_schema(_rules(round))
    if output:
        tmp = f"{output}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, output)
        new_console(stderr=True).print(f"schema written to {output}", markup=False)
    else:
        _out().file.write(text)


def render_endpoint_schemas() -> dict[str, str]:
    """The JSON Schemas of the endpoint result files, by file name, exactly as committed under ``schemas/``."""
    from checker.models.endpoint import json_schemas

    return {f"{name}.schema.json": json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
            for name, schema in json_schemas().items()}


@app.command("export-endpoint")
def export_endpoint(
    output: str = typer.Option("schemas", "--output-dir", "-o", help="Folder to write the schemas into."),
) -> None:
    """Write the JSON Schemas of the endpoint result files (config.yaml, result_summary.json,
    accuracy_results.json, final_snapshot.json, the audit JSON), one file each."""
    os.makedirs(output, exist_ok=True)
    for name, text in render_endpoint_schemas().items():
        path = os.path.join(output, name)
        tmp = f"{path}.tmp{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
        new_console(stderr=True).print(f"schema written to {path}")


def _pointer(path: Iterable) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _long_strings(value, path=()) -> list[tuple[str, int]]:
    found = []
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str) and len(item) > MAX_STRING_CHARS:
            found.append((_pointer(where), len(item)))
        elif isinstance(item, dict):
            stack.extend((v, where + (k,)) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, where + (i,)) for i, v in enumerate(item))
    return sorted(found)


def _schema_findings(data, rules) -> list[tuple[str, str, str]]:
    """(code, pointer, message) from jsonschema errors."""
    import jsonschema

    from checker.models.system import describe_value, expected_type, json_schema

    validator = jsonschema.Draft202012Validator(json_schema(rules))
    out = []
    for error in validator.iter_errors(data):
        path = list(error.absolute_path)
        if error.validator == "required":
            missing = [n for n in error.validator_value if isinstance(data, dict) and n not in data]
            for name in missing:
                out.append(("SY005", _pointer([name]), f"field {name} is missing"))
            continue
        if not path:
            if error.validator == "type":
                out.append(("SY001", "", f"a system description must be a JSON object, found "
                                         f"{type(data).__name__}"))
            continue
        name = str(path[0])
        if error.validator == "not":
            out.append(("SY006", _pointer(path), f"field {name} requires a meaningful response but is empty"))
        else:
            value = data.get(name) if len(path) == 1 else error.instance
            out.append((ENUM_CODES.get(name, "SY010"), _pointer(path),
                        f"field {name} should be {expected_type(name, rules)}, found {describe_value(value)}"))
    return sorted(set(out), key=lambda f: (f[1], f[0], f[2]))


def _check_findings(data: dict, rules, rel: str) -> list[tuple[str, str, str]]:
    """Run the system checks that need only the file (SY007, SY011-SY016) on it."""
    from checker.checks import system
    from checker.context import SystemCtx

    division = data.get("division") if isinstance(data.get("division"), str) else ""
    submitter = data.get("submitter") if isinstance(data.get("submitter"), str) else ""
    ctx = SystemCtx(division=division, submitter=submitter, system=os.path.basename(rel)[:-5], rel=rel,
                    results_rel="", exists=True, data=data)
    out = []
    for item in system.CHECKS:
        if item.code not in FILE_ONLY_CHECKS:
            continue
        for f in item.run(ctx, rules):
            message = f.message[len(rel) + 2:] if f.message.startswith(rel + ": ") else f.message
            out.append((item.code, f.location.pointer or "", message))
    return out


def validate_file(path: str, rules) -> list[tuple[str, str, str, str]]:
    """Validate one file: sorted (severity, code, pointer, message). Never raises on file content."""
    from checker.loaders.fs import parse_json_keys

    rel = path.replace(os.sep, "/")
    sev = lambda code: rules.severities.get(code, "error")  # noqa: E731
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            return [("error", "SY001", "", f"file is {size} bytes, larger than the {MAX_FILE_BYTES}-byte limit")]
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        return [("error", "SY001", "", f"cannot read file: {exc.strerror or exc}")]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return [("error", "SY001", "", f"not UTF-8 text: {exc.reason} at byte {exc.start}")]
    data, error, duplicates = parse_json_keys(text)
    if error:
        return [("error", "SY001", "", error)]
    if not isinstance(data, dict):
        kind = "array" if isinstance(data, list) else ("null" if data is None else type(data).__name__)
        return [("error", "SY001", "", f"a system description must be a JSON object, found a JSON {kind}")]
    huge = _long_strings(data)
    if huge:
        return [("error", "SY001", p, f"string of {n} characters, above the {MAX_STRING_CHARS}-character limit")
                for p, n in huge]
    findings = _schema_findings(data, rules) + _check_findings(data, rules, rel)
    findings += [("ST024", f"{d.pointer}/{d.key}", d.describe()) for d in duplicates]  # the last value was used
    return sorted({(sev(c), c, p, m) for c, p, m in findings if sev(c) != "off"},
                  key=lambda f: (f[2], f[1], f[3]))


@app.command("validate")
def validate(
    file: str = typer.Argument(..., help="A system description, systems/<system>.json."),
    round: str = typer.Option(..., "--round", "-r", help="Round rules to validate against (v4.1, v5.0, ...)."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
) -> None:
    """Validate one system description; print coded findings with JSON pointers.

    Exit codes: 0 no errors, 1 errors (including unreadable input), 2 usage errors.
    """
    if fmt not in ("text", "json"):
        _fail(f"--format must be text or json, got {fmt!r}")
    rules = _rules(round)
    if not os.path.isfile(file):
        _fail(f"{file}: not a file")
    findings = validate_file(file, rules)
    out = _out()
    if fmt == "json":
        out.file.write(json.dumps([{"severity": s, "code": c, "pointer": p, "message": m}
                                   for s, c, p, m in findings], indent=2) + "\n")
    else:
        for severity, code, pointer, message in findings:
            out.print(f"{severity.upper():7} {code} {file}#{pointer}: {message}", markup=False)
        errors = sum(1 for f in findings if f[0] == "error")
        out.print(f"{file}: {errors} error(s), {len(findings) - errors} other finding(s) ({rules.round})",
                  markup=False)
    raise typer.Exit(1 if any(f[0] == "error" for f in findings) else 0)
