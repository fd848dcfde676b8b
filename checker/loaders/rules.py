"""Load round files from `rules/`, validated by the strict `RoundRules` model and held as its record
(``checker.models.record``: loading one imports no pydantic)."""

from __future__ import annotations

import os
from functools import lru_cache
from typing import TYPE_CHECKING

from checker.diagnostics import MlpcError
from checker.loaders import data_cache, yaml_text

from checker.loaders.data_files import available_rounds, data_dir  # noqa: F401 (imported from here too)

if TYPE_CHECKING:
    from checker.models.rules import RoundRules


@lru_cache(maxsize=16)
def load_rules(round_name: str) -> RoundRules:
    path = os.path.join(data_dir("rules"), f"{round_name}.yaml")
    if not os.path.isfile(path):
        raise MlpcError(f"unknown round '{round_name}'; known rounds: {', '.join(available_rounds())}")
    # validated once per content of the file and of this code (checker.loaders.data_cache.cached_object)
    return data_cache.cached_object(f"rules.{round_name}", [path], ["checker.models.rules", __name__],
                                    lambda: _validate(path), "RoundRules")


def _validate(path) -> RoundRules:
    from pydantic import ValidationError

    from checker.models.rules import RoundRules

    try:
        data = data_cache.read_yaml(path)  # (the parse of path.read_text(encoding="utf-8"))
        return RoundRules(**data)
    except (yaml_text.YAMLError, ValidationError, TypeError) as exc:
        raise MlpcError(f"round file {os.path.basename(path)} is invalid: {exc}") from None


def rules_path(round_name: str) -> str:
    return os.path.join(data_dir("rules"), f"{round_name}.yaml")
