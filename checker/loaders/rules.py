"""Load round files from `rules/` into the strict `RoundRules` model."""

from __future__ import annotations

import os
import sys
from functools import lru_cache

from pydantic import ValidationError

from checker.diagnostics import MlpcError
from checker.models import rules as rules_model
from checker.models.rules import RoundRules
from checker.loaders import data_cache, yaml_text
from checker.loaders.data_files import available_rounds, data_dir  # noqa: F401 (imported from here too)


@lru_cache(maxsize=16)
def load_rules(round_name: str) -> RoundRules:
    path = data_dir("rules") / f"{round_name}.yaml"
    if not path.is_file():
        raise MlpcError(f"unknown round '{round_name}'; known rounds: {', '.join(available_rounds())}")
    # validated once per content of the file and of this code (checker.loaders.data_cache.cached_object)
    return data_cache.cached_object(f"rules.{round_name}", [path], [rules_model, sys.modules[__name__]],
                                    lambda: _validate(path), RoundRules)


def _validate(path) -> RoundRules:
    try:
        data = data_cache.read_yaml(path)  # (the parse of path.read_text(encoding="utf-8"))
        return RoundRules(**data)
    except (yaml_text.YAMLError, ValidationError, TypeError) as exc:
        raise MlpcError(f"round file {path.name} is invalid: {exc}") from None


def rules_path(round_name: str) -> str:
    return os.fspath(data_dir("rules") / f"{round_name}.yaml")
