"""Every round file loads into the strict model, grades every registered check, and is distinguishable."""

import re
from pathlib import Path

import pytest
import yaml

from checker.loaders.rules import available_rounds, data_dir, load_rules
from checker.registry import ALL_CHECKS, TOOL_CODES

ROUNDS = available_rounds()
REGISTERED = {c.code for c in ALL_CHECKS} | set(TOOL_CODES)


def test_expected_rounds_present():
    assert {"v4.1", "v5.0", "v5.1"} <= set(ROUNDS)


@pytest.mark.parametrize("name", ROUNDS)
def test_round_file_loads_and_names_itself(name):
    rules = load_rules(name)
    assert rules.round == name


@pytest.mark.parametrize("name", ROUNDS)
def test_round_file_lists_a_severity_for_every_registered_code(name):
    rules = load_rules(name)
    missing = sorted(REGISTERED - set(rules.severities))
    unknown = sorted(set(rules.severities) - REGISTERED)
    assert missing == [], f"{name}: no severity for {missing}"
    assert unknown == [], f"{name}: severities for unregistered codes {unknown}"


@pytest.mark.parametrize("name", ROUNDS)
def test_round_file_is_self_contained_yaml(name):
    text = Path(data_dir("rules"), f"{name}.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert isinstance(data, dict) and "<<" not in text and "inherit" not in data


@pytest.mark.parametrize("name", ROUNDS)
def test_round_file_is_internally_consistent(name):
    rules = load_rules(name)
    for model, spec in rules.models.items():
        for target in spec.accuracy:
            assert target.metric in rules.accuracy_patterns, f"{name} {model}: no regex for {target.metric}"
            re.compile(rules.accuracy_patterns[target.metric])
        for limit in spec.upper_limits:
            assert limit.metric in rules.accuracy_patterns, f"{name} {model}: no regex for {limit.metric}"
        scenarios = set(rules.scenarios)
        for table in (spec.required_scenarios, spec.optional_scenarios):
            for system_type, listed in table.items():
                assert system_type in rules.system_types, f"{name} {model}: {system_type}"
                assert set(listed) <= scenarios, f"{name} {model}: {listed}"
        for group in spec.one_of_scenarios:
            assert set(group) <= scenarios
        assert set(spec.token_latency) <= scenarios
        for test in spec.compliance_tests:
            assert re.fullmatch(r"TEST0\d", test), f"{name} {model}: {test}"
    for alias, target in rules.model_aliases.items():
        assert target in rules.models, f"{name}: alias {alias} -> unknown {target}"
    assert set(rules.scenario_dir_aliases.values()) <= set(rules.scenarios)
    for folder, source in rules.log_scenario_sources.items():
        assert folder in rules.scenarios and source in rules.scenarios


def test_round_detection_seeds_are_distinct():
    seeds = {}
    for name in ROUNDS:
        s = load_rules(name).seeds
        triple = (s.qsl_rng_seed, s.sample_index_rng_seed, s.schedule_rng_seed)
        assert triple not in seeds, f"{name} and {seeds.get(triple)} share seeds"
        seeds[triple] = name
    # no round's test05 seeds may be mistaken for another round's submission seeds
    for name in ROUNDS:
        t5 = load_rules(name).test05_seeds
        if t5 is not None:
            assert (t5.qsl_rng_seed, t5.sample_index_rng_seed, t5.schedule_rng_seed) not in seeds


def test_round_detection_loadgen_versions_do_not_overlap():
    owners: dict[str, str] = {}
    for name in ROUNDS:
        for version in load_rules(name).loadgen_versions:
            for other, owner in owners.items():
                overlap = version == other or version.startswith(other + ".") or other.startswith(version + ".")
                assert not overlap, f"LoadGen {version} ({name}) overlaps {other} ({owner})"
            owners[version] = name


def test_documented_seeds():
    assert load_rules("v5.0").seeds.qsl_rng_seed == 6023615788873153749
    v51 = load_rules("v5.1").seeds
    assert (v51.qsl_rng_seed, v51.sample_index_rng_seed, v51.schedule_rng_seed) == (
        1780908523862526354, 14771362308971278857, 18209322760996052031)


@pytest.mark.parametrize("name", ROUNDS)
def test_round_file_layout_templates_are_complete(name):
    layout = load_rules(name).layout
    assert layout.result.startswith("results/{system}/{model}/{scenario}")
    for template in (layout.measurements, layout.compliance):
        assert "{system}" in template and "{model}" in template and "{scenario}" in template, template
    assert "{system}" in layout.system_json
    # a path built from the templates never holds a placeholder or a doubled slash
    for template in (layout.system_json, layout.result, layout.measurements, layout.compliance, layout.code):
        path = layout.path(template, "closed/Acme", "sys", "resnet50", "Offline")
        assert "{" not in path and "//" not in path and path.startswith("closed/Acme/")
