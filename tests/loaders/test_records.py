"""Records of the data files (checker.models.record): what a check holds of its round file, audit spec and
Appendix B table reads as the validated models do, and loading them imports no pydantic."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import pytest

from checker.loaders import audit_spec, rules
from checker.loaders.rules import available_rounds
from checker.metrics import bandwidth
from checker.models.record import Record, mirror, record_class

ROUNDS = available_rounds()


def _validated(name: str):
    return rules._validate(os.path.join(rules.data_dir("rules"), f"{name}.yaml")), audit_spec._round_spec(name, None)


def _records(value):
    """Every record in ``value`` (itself included), depth first."""
    if isinstance(value, Record):
        yield value
        for name in value.model_fields:
            yield from _records(getattr(value, name))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _records(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _records(item)


@pytest.mark.parametrize("name", ROUNDS)
def test_a_round_record_reads_as_its_models(name):
    for model in _validated(name):
        record = mirror(model)
        assert type(record).__name__ == type(model).__name__
        assert list(type(record).model_fields) == list(type(model).model_fields)
        assert record.model_dump() == model.model_dump()
        assert record.model_dump(mode="json") == model.model_dump(mode="json")
        assert repr(record) == repr(model)
        assert pickle.loads(pickle.dumps(record)) == record
    model, spec = _validated(name)
    record, spec_record = mirror(model), mirror(spec)
    layout = record.layout
    for template in (layout.result, layout.measurements, layout.compliance, layout.code):
        assert layout.path(template, "closed/X", "sys", "resnet", "Offline") == model.layout.path(
            template, "closed/X", "sys", "resnet", "Offline")
        assert layout.top_folder(template) == model.layout.top_folder(template)
    for mlperf_model, rule in model.models.items():
        assert record.min_duration_for(mlperf_model) == model.min_duration_for(mlperf_model)
        for scenario in (None, *model.scenarios):
            assert record.models[mlperf_model].targets_for(scenario) == [mirror(t) for t in rule.targets_for(scenario)]
        assert spec_record.tests_for(mlperf_model) == spec.tests_for(mlperf_model)
        assert spec_record.mlperf_model(mlperf_model) == spec.mlperf_model(mlperf_model)
        loadgen = spec.loadgen_model_names.get(mlperf_model, mlperf_model)
        for test_name, test in spec.tests.items():
            assert spec_record.tests[test_name].round_settings(loadgen) == test.round_settings(loadgen)
    assert spec_record.info.seeds.as_dict() == spec.info.seeds.as_dict()


def test_the_appendix_b_record_finds_the_models_rows():
    from checker.loaders.data_cache import read_yaml
    from checker.models.appendix_b import AppendixB

    model = AppendixB(**read_yaml(os.path.join(rules.data_dir("rules"), "appendix_b.yaml")))
    record = mirror(model)
    names = {m for bench in model.benchmarks.values() for m in bench.models} | set(model.benchmarks) | {"nothing"}
    for name in sorted(names):
        assert record.for_model(name) == (mirror(model.for_model(name)) if model.for_model(name) else None)
    assert bandwidth.load_appendix_b() == record


def test_a_record_is_frozen_and_copied_as_a_model_is():
    record = rules.load_rules("v6.0")
    with pytest.raises(AttributeError):
        record.round = "v9.9"
    with pytest.raises(AttributeError):
        del record.round
    changed = record.model_copy(update={"file_size_limit_bytes": 4})
    assert changed.file_size_limit_bytes == 4 and record.file_size_limit_bytes != 4
    assert changed.layout is record.layout and changed != record
    assert record.model_copy() == record
    deep = record.model_copy(deep=True)
    assert deep == record and deep.divisions is not record.divisions
    with pytest.raises(AttributeError):
        record.model_copy(update={"no_such_field": 1})
    seeds = record.seeds
    assert hash(seeds) == hash(seeds.model_copy()) and seeds == seeds.model_copy()
    with pytest.raises(TypeError):  # (a list field: unhashable, as the frozen model is)
        hash(record)
    assert record != _validated("v6.0")[0]  # (a record is not its model: compare records with records)


def test_records_keep_no_dictionary_and_share_their_classes():
    for name in ROUNDS:
        for record in _records(rules.load_rules(name)):
            assert not hasattr(record, "__dict__")
    shape = type(rules.load_rules("v4.1")).__mro__
    assert type(rules.load_rules("v5.1")) is shape[0]  # one class per shape
    assert record_class("X", ("a",)) is record_class("X", ("a",)) and record_class("X", ("a",)) is not record_class("X", ("b",))


CHECK_IMPORTS = """
import sys
from checker.loaders.rules import load_rules
from checker.loaders.audit_spec import load_round_spec
from checker.metrics.bandwidth import load_appendix_b
import checker.api, checker.pipeline, checker.registry, checker.cli_main, checker.commands.check_run
for name in sys.argv[1:]:
    load_rules(name), load_round_spec(name)
load_appendix_b()
from checker.pipeline import warm_up
from checker.models.system import validate_system
for name in sys.argv[1:]:
    warm_up(load_rules(name))
    assert any(kind == "type" for _, _, kind in validate_system({"number_of_nodes": "two", "status": 3}, load_rules(name)))
print(sorted(m for m in sys.modules if m == "pydantic" or m.startswith("pydantic.")))
"""


def test_a_check_imports_no_pydantic_before_its_workers_start():
    """What a check's first process loads before it forks its workers (the checker's modules, the rules, the audit
    spec, Appendix B, the workers' warm-up) imports pydantic-core only (its validators check system descriptions,
    and a description with errors is reported without pydantic too), once the data caches are written (a first
    run writes them). A round that takes endpoint results (v6.1 on)
    builds their pydantic models in the warm-up: they validate the submitters' files."""
    loadgen_rounds = [name for name in ROUNDS if rules.load_rules(name).endpoint is None]
    assert loadgen_rounds
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", CHECK_IMPORTS, *loadgen_rounds], capture_output=True, text=True,
                             check=True, env=env)
    assert out.stdout.strip() == "[]", out.stdout
