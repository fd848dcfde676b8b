"""The record shapes of the plausibility assessment and of its audit inputs (checker.models.record_build) against
their pydantic models: for any values, a shape gives the record of what the model validates, or the model's own
ValidationError; never a value the model would store differently."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError

from checker.models import assessment, audit_inputs
from checker.models.assessment_shapes import ASSESSMENT, FLAG, ROOFLINE
from checker.models.audit_methods import SCENARIO_RESULT, SUBMISSION
from checker.models.record import Record, _methods, mirror, record_class
from checker.models.record_build import REQUIRED

SHAPES = [(SCENARIO_RESULT, audit_inputs.ScenarioResult), (SUBMISSION, audit_inputs.Submission),
          (FLAG, assessment.Flag), (ROOFLINE, assessment.Roofline), (ASSESSMENT, assessment.Assessment)]


@pytest.mark.parametrize("shape,model", SHAPES, ids=[m.__name__ for _, m in SHAPES])
def test_a_shape_lists_its_models_fields(shape, model):
    assert shape.cls.__name__ == model.__name__
    assert [f[0] for f in shape.fields] == list(model.model_fields)
    for name, _, default in shape.fields:
        info = model.model_fields[name]
        if default is REQUIRED:  # (or a default made by a factory, which a call must then give)
            assert info.is_required() or info.default_factory is not None, name
        else:
            assert not info.is_required() and info.default == default, name
    for name, kind, default in shape.fields:  # (make stores a default as it is: each kind must take it unchanged)
        if default is not REQUIRED:
            assert kind(default) == default and type(kind(default)) is type(default), name
    # (the class mirror() gives the model's instances: the same shape and methods)
    assert shape.cls is record_class(model.__name__, tuple(model.model_fields), _methods(model))


def _dicts(value):
    """A value for a model: the records in it as dicts (the model validates them into its nested models)."""
    if isinstance(value, Record):
        return value.model_dump()
    if isinstance(value, (tuple, list)):
        return type(value)(_dicts(v) for v in value)
    return value


def _same(values: dict, shape, model) -> None:
    """``shape.make(**values)`` is the record of ``model(**values)``, field by field and type by type, or both raise."""
    try:
        want = mirror(model(**{k: _dicts(v) for k, v in values.items()}))
    except ValidationError:
        with pytest.raises(ValidationError):
            shape.make(**values)
        return
    got = shape.make(**values)
    assert type(got) is type(want)
    for name in type(got).model_fields:
        a, b = getattr(got, name), getattr(want, name)
        assert type(a) is type(b), (name, a, b)
        assert a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)), (name, a, b)


TEXTS = st.sampled_from(["m", " m ", "", "  ", "Offline", "offline ", "a b", "x\t", "ms", " ms"])
NUMBERS = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**20), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from(["1", " 2 ", "N/A", "", "1.5", "²", "8x"]))


@settings(max_examples=400, deadline=None)
@given(model=TEXTS, scenario=TEXTS, value=NUMBERS, units=st.sampled_from(["ms", "tokens/s", "samples/s", " ms", "x"]),
       inferred=st.sampled_from([True, False, 1, None]), power=NUMBERS, has_power=st.sampled_from([True, False, 0]),
       sps=NUMBERS, extra=st.booleans())
def test_scenario_results(model, scenario, value, units, inferred, power, has_power, sps, extra):
    values = dict(model=model, scenario=scenario, value=value, units=units, inferred=inferred, power_metric=power,
                  has_power=has_power, samples_per_second=sps)
    if extra:
        values["unknown"] = 1
    _same(values, SCENARIO_RESULT, audit_inputs.ScenarioResult)


RESULT = SCENARIO_RESULT.make(model="resnet", scenario="Offline", value=10.0, units="samples/s")


@settings(max_examples=400, deadline=None)
@given(division=TEXTS, submitter=TEXTS, system=TEXTS, status=TEXTS, counts=st.lists(NUMBERS, min_size=3, max_size=3),
       name=st.one_of(st.none(), TEXTS), network=st.sampled_from([{}, {"a": "b"}, {" a": "b"}, {"a": " b "}, {"a": 1}]),
       round_label=st.one_of(st.none(), TEXTS), results=st.sampled_from([(), (RESULT,), [RESULT], ("x",)]),
       network_flag=st.sampled_from([True, False, "true"]), leave_out=st.sampled_from([None, "network_config",
                                                                                        "system_type", "results"]))
def test_submissions(division, submitter, system, status, counts, name, network, round_label, results, network_flag,
                     leave_out):
    values = dict(division=division, submitter=submitter, system_id=system, status=status, system_type="datacenter",
                  accelerator_model_name=name, accelerators_per_node=counts[0], number_of_nodes=counts[1],
                  host_processor_model_name=name, host_processors_per_node=counts[2], host_networking=name,
                  host_network_card_count=name, is_network=network_flag, network_config=network, round=round_label,
                  results=results)
    values.pop(leave_out, None)
    _same(values, SUBMISSION, audit_inputs.Submission)


@settings(max_examples=300, deadline=None)
@given(level=st.sampled_from(["error", "warning", "info", "fatal", " info"]), name=TEXTS, message=TEXTS)
def test_flags(level, name, message):
    _same(dict(level=level, name=name, message=message), FLAG, assessment.Flag)


#: numbers as the assessment computes them (ints and floats, most of them usable), or any value
PLAIN = st.one_of(st.integers(0, 10**6), st.floats(allow_nan=True, allow_infinity=True), st.none())


@settings(max_examples=300, deadline=None)
@given(numbers=st.one_of(st.lists(NUMBERS, min_size=8, max_size=8), st.lists(PLAIN, min_size=8, max_size=8)), bound=st.sampled_from(["compute", "decode-bandwidth", "x"]),
       texts=st.lists(TEXTS, min_size=3, max_size=3), flags=st.sampled_from([(), None, "x"]),
       status=st.sampled_from(["assessed", "no-assessment", "other"]))
def test_rooflines_and_assessments(numbers, bound, texts, flags, status):
    roof = dict(utilisation=numbers[0], bound=bound, compute_utilisation=numbers[1], bandwidth_utilisation=numbers[2],
                accelerators=numbers[3], hardware_key=texts[0], precision=texts[1], peak_tops=numbers[4],
                work_gflop_per_sample=numbers[5], output_tokens=numbers[6], samples_per_second=numbers[7],
                latency_s=numbers[0], line=texts[2])
    _same(roof, ROOFLINE, assessment.Roofline)
    try:
        made_roof = ROOFLINE.make(**roof)
    except ValidationError:
        made_roof = None
    made_flags = (FLAG.make(level="info", name="n", message="m"),) if flags == () else flags
    values = dict(submission_id=texts[0], submitter=texts[1], system_id="s", accelerator=texts[2], model="m",
                  scenario="Offline", value=numbers[1], units="ms", status=status, reason=texts[0],
                  roofline=made_roof, per_accelerator=numbers[2], peer_ratio=numbers[3], peer_count=numbers[4],
                  server_offline_ratio=numbers[5], flags=made_flags, score=numbers[6], score_driver=None)
    _same(values, ASSESSMENT, assessment.Assessment)


def test_the_assessment_of_a_round_is_made_of_records_without_pydantic():
    """A round's plausibility assessment (the shipped tables, the Submissions of its results, each result's
    Assessment) in a fresh interpreter imports no pydantic once the data caches are written."""
    import os
    import subprocess
    import sys

    program = """
import sys
from checker.loaders.hardware import default_tables
from checker.metrics.plausibility import assess_result
from checker.audit.from_report import iter_submissions
from checker.models.audit_methods import SCENARIO_RESULT, SUBMISSION
hardware, work = default_tables()
r = SCENARIO_RESULT.make(model="resnet", scenario="Offline", value=1000.0, units="samples/s")
s = SUBMISSION.make(division="closed", submitter="A", system_id="s", status="available",
                    accelerator_model_name="NVIDIA H100-SXM-80GB", accelerators_per_node=8, network_config={},
                    results=(r,))
a = assess_result(s, r, hardware, work)
print(a.status, a.roofline is not None, sorted(m for m in sys.modules if m.split(".")[0] == "pydantic"))
"""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["assessed", "True", "[]"], out.stdout
