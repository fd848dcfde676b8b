"""Load ``audits/`` (the compliance tests' audit.config files and spec.yaml pass criteria).

The directory is located relative to the repository for now; packaging will move it.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import TYPE_CHECKING

from checker.diagnostics import MlpcError
from checker.models.audit_names import TEST_NAMES
from checker.loaders import data_cache, yaml_text
from checker.loaders.rules import data_dir

if TYPE_CHECKING:  # (the validating models import pydantic: a check loads their records, checker.models.record)
    from checker.models.audit_spec import RoundAuditSpec, RoundsFile, TestSpec

AUDITS_DIR = data_dir("audits")


def _read_yaml(path: str) -> object:
    try:
        return data_cache.read_yaml(path, stream=True)  # (the parse of the open file, as before)
    except OSError as exc:
        raise MlpcError(f"{path}: cannot read audit spec: {exc.strerror or exc}") from None
    except yaml_text.YAMLError as exc:
        raise MlpcError(f"{path}: invalid YAML: {exc}") from None


def _code() -> list[str]:
    """The modules whose code makes the audit spec (the key of its cached objects, with the files it is read from)."""
    return ["checker.models.audit_spec", "checker.models.rules", __name__, "checker.loaders.rules"]


@lru_cache(maxsize=None)
def load_test_spec(test: str, audits_dir: str | None = None) -> TestSpec:
    if test not in TEST_NAMES:
        raise MlpcError(f"unknown compliance test {test!r}; known: {', '.join(TEST_NAMES)}")
    path = os.path.join(audits_dir or AUDITS_DIR, test, "spec.yaml")
    if audits_dir:
        return _test_spec(test, path)
    return data_cache.cached_object(f"audit-test.{test}", [path], _code(), lambda: _test_spec(test, path), "TestSpec")


def _test_spec(test: str, path: str) -> TestSpec:
    from pydantic import ValidationError

    from checker.models.audit_spec import TestSpec

    try:
        spec = TestSpec.model_validate(_read_yaml(path))
    except ValidationError as exc:
        raise MlpcError(f"{path}: {exc}") from None
    if spec.test != test:
        raise MlpcError(f"{path}: declares test {spec.test!r}, expected {test!r}")
    return spec


ROUND_FILE_SEEDS = ("seeds", "test05_seeds")  # live in rules/<round>.yaml only


@lru_cache(maxsize=None)
def load_rounds(audits_dir: str | None = None, only: str | None = None) -> RoundsFile:
    """``rounds.yaml``, with each round's seeds taken from its round file (``rules/<round>.yaml`` is their
    one home; ``rounds.yaml`` naming them again is an error). ``only``: just that round (when rounds.yaml
    has it), so that checking one round does not load the rules of every other."""
    from pydantic import ValidationError

    from checker.loaders.rules import load_rules
    from checker.models.audit_spec import RoundsFile

    path = os.path.join(audits_dir or AUDITS_DIR, "rounds.yaml")
    data = _read_yaml(path)
    rounds = data.get("rounds") if isinstance(data, dict) else None
    if isinstance(rounds, dict):
        if only is not None and only in rounds:
            rounds = data["rounds"] = {only: rounds[only]}
        for name, info in rounds.items():
            if not isinstance(info, dict):
                continue
            again = [key for key in ROUND_FILE_SEEDS if key in info]
            if again:
                raise MlpcError(f"{path}: round {name}: {', '.join(again)} belong in rules/{name}.yaml, not here")
            rules = load_rules(name)
            info["seeds"] = rules.seeds.model_dump()
            info["test05_seeds"] = rules.test05_seeds.model_dump() if rules.test05_seeds is not None else None
    try:
        return RoundsFile.model_validate(data)
    except ValidationError as exc:
        raise MlpcError(f"{path}: {exc}") from None


def known_rounds(audits_dir: str | None = None) -> list[str]:
    return sorted(load_rounds(audits_dir).rounds)


@lru_cache(maxsize=None)
def load_round_spec(round_name: str, audits_dir: str | None = None) -> RoundAuditSpec:
    """The audit spec of one round; an unknown round is a hard error (no fallback). Validated once per content
    of the files it is read from and of the code (``checker.loaders.data_cache.cached_object``)."""
    if audits_dir:
        return _round_spec(round_name, audits_dir)
    inputs = [os.path.join(AUDITS_DIR, "rounds.yaml"), os.path.join(data_dir("rules"), f"{round_name}.yaml"),
              *(os.path.join(AUDITS_DIR, test, "spec.yaml") for test in TEST_NAMES)]
    return data_cache.cached_object(f"audit-spec.{round_name}", inputs, _code(),
                                    lambda: _round_spec(round_name, None), "RoundAuditSpec")


def _round_spec(round_name: str, audits_dir: str | None) -> RoundAuditSpec:
    from checker.models.audit_spec import RoundAuditSpec

    rounds = load_rounds(audits_dir, round_name)
    if round_name not in rounds.rounds:
        raise MlpcError(f"unknown round {round_name!r}; known: {', '.join(sorted(rounds.rounds))}")
    tests = {}
    for test in TEST_NAMES:
        # (the validated models themselves: load_test_spec gives the records a check holds)
        spec = (load_test_spec(test, audits_dir) if audits_dir
                else _test_spec(test, os.path.join(AUDITS_DIR, test, "spec.yaml")))
        if round_name in spec.rounds:
            tests[test] = spec.rounds[round_name]
    return RoundAuditSpec(
        round=round_name,
        info=rounds.rounds[round_name],
        tests=tests,
        loadgen_model_names=rounds.loadgen_model_names,
    )


def audit_config_path(test: str, audits_dir: str | None = None) -> str:
    return os.path.join(audits_dir or AUDITS_DIR, test, "audit.config")


def parse_audit_config(text: str) -> list[tuple[str, str, str, str]]:
    """``model.scenario.key = value`` lines -> (model, scenario, key, value); comments skipped."""
    entries = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or "=" not in line:
            continue
        left, _, value = line.partition("=")
        parts = left.strip().split(".")
        if len(parts) < 3:
            continue
        # model names may contain dots (llama3.1-8b): the last two parts are scenario and key
        model, scenario, key = ".".join(parts[:-2]), parts[-2], parts[-1]
        entries.append((model, scenario, key, value.strip()))
    return entries


def read_audit_config(test: str, audits_dir: str | None = None) -> list[tuple[str, str, str, str]]:
    path = audit_config_path(test, audits_dir)
    try:
        with open(path, encoding="utf-8") as handle:
            return parse_audit_config(handle.read())
    except OSError as exc:
        raise MlpcError(f"{path}: cannot read audit.config: {exc.strerror or exc}") from None


def resolve_audit_settings(
    entries: list[tuple[str, str, str, str]], model: str, scenario: str
) -> dict[str, str]:
    """Effective settings for (LoadGen model, scenario): specific lines beat wildcards."""

    def rank(entry: tuple[str, str, str, str]) -> int:
        return (entry[0] != "*") * 2 + (entry[1] != "*")

    out: dict[str, tuple[int, str]] = {}
    for entry in entries:
        m, s, key, value = entry
        if m not in ("*", model) or s not in ("*", scenario):
            continue
        r = rank(entry)
        if key not in out or r >= out[key][0]:
            out[key] = (r, value)
    return {key: value for key, (_, value) in out.items()}
