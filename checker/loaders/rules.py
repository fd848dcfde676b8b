"""Load round files from `rules/` into the strict `RoundRules` model."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import ValidationError

from checker.diagnostics import MlpcError
from checker.models.rules import RoundRules
from checker.loaders import yaml_text


def data_dir(name: str) -> Path:
    """Locate a data folder (rules, schemas, audits) in a source checkout or an installed wheel."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / name, here / "_data" / name):
        if candidate.is_dir():
            return candidate
    raise MlpcError(f"data folder '{name}' not found next to the checker package")


def available_rounds() -> list[str]:
    return sorted(p.stem for p in data_dir("rules").glob("v*.yaml"))


@lru_cache(maxsize=16)
def load_rules(round_name: str) -> RoundRules:
    path = data_dir("rules") / f"{round_name}.yaml"
    if not path.is_file():
        raise MlpcError(f"unknown round '{round_name}'; known rounds: {', '.join(available_rounds())}")
    try:
        data = yaml_text.safe_load(path.read_text(encoding="utf-8"))
        return RoundRules(**data)
    except (yaml.YAMLError, ValidationError, TypeError) as exc:
        raise MlpcError(f"round file {path.name} is invalid: {exc}") from None


def rules_path(round_name: str) -> str:
    return os.fspath(data_dir("rules") / f"{round_name}.yaml")
