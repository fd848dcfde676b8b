"""Model and scenario name resolution (official-checker.md D1 and 1.2), driven by the round file."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.rules import RoundRules


def mlperf_model(model_dir: str, rules: RoundRules, extra_map: dict[str, str] | None = None) -> str:
    """The official model a result folder name stands for, tried in the official order:
    official name, built-in aliases, the open division's model_mapping.json, substring
    heuristics, then the aliases again (falling back to the name itself)."""
    if model_dir in rules.models:
        return model_dir
    if model_dir in rules.model_aliases:
        return rules.model_aliases[model_dir]
    if extra_map and isinstance(extra_map.get(model_dir), str):
        mapped = extra_map[model_dir]
        return rules.model_aliases.get(mapped, mapped)
    for needle, target in rules.model_heuristics:
        if needle in model_dir:
            return target
    return rules.model_aliases.get(model_dir, model_dir)


def canonical_scenario(scenario_dir: str, rules: RoundRules) -> str | None:
    return rules.scenario_dir_aliases.get(scenario_dir)
