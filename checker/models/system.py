"""Pydantic model of the system description (``systems/<system>.json``), built per round.

The field lists come from the round file (``rules/<round>.yaml`` ``system_fields``: required,
meaningful, power, network, placeholders), so a new round is data only. What this module adds is the
*kind* of each field, which does not change between rounds:

* counts (``number_of_nodes``, ``accelerators_per_node`` ...): a non-negative integer or a string of
  digits (``8`` or ``"8"``); ``host_network_card_count`` may carry text after its count
  (``"10x 400Gbe Infiniband"``, ``"1 Integrated"``);
* numbers (``network_speed_mbit``): a non-negative number or a numeric string;
* ``status``: one of the round's availabilities, any case (the official checker lower-cases it);
* ``system_type`` / ``division``: exactly one of the round's values;
* ``is_network``: a boolean or the string "true" / "false" (any case);
* ``other_software_stack``: text or an object (real submitters write both);
* everything else: text (a string or a number).

Placeholders ("undefined", "N/A", "TBD", "default", ... from ``system_fields.placeholders``) are valid
in every field, and fields outside the required list may be the empty string; :func:`validate_system`
reports placeholders separately (kind ``"placeholder"``) so that checks can grade them as warnings.
Unknown fields are allowed here (``SY007`` reports them).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any, Literal, Optional, Union

from checker.models.core_module import ValidationError

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from pydantic import BaseModel

    from checker.models.rules import RoundRules
# (pydantic itself is imported where the model is built, for the JSON Schema: a check validates with
# checker.models.system_core, which needs pydantic-core only)

COUNT_FIELDS = (
    "number_of_nodes", "host_processors_per_node", "host_processor_core_count", "host_processor_vcpu_count",
    "accelerators_per_node", "number_of_type_nics_installed", "nics_enabled_firmware", "nics_enabled_os",
    "nics_enabled_connected", "number_nic_loadgen", "number_nic_sut", "number_connections",
)
COUNT_TEXT_FIELDS = ("host_network_card_count",)
NUMBER_FIELDS = ("network_speed_mbit",)
OBJECT_TEXT_FIELDS = ("other_software_stack",)
ENUM_FIELDS = ("status", "system_type", "division")
BOOL_FIELDS = ("is_network",)

NOT_APPLICABLE = frozenset({"n/a", "na", "none", "-", "not applicable"})

Kind = Literal["not-object", "missing", "enum", "type", "placeholder"]


def _ci(word: str) -> str:
    """A case-insensitive regex for ``word`` that works in Python, Rust (pydantic) and ECMA-262."""
    out = []
    for ch in word:
        if ch.isalpha():
            out.append(f"[{ch.lower()}{ch.upper()}]")
        else:
            out.append(re.escape(ch).replace("\\-", "-") if ch != "/" else "/")
    return "".join(out)


def placeholder_pattern(words: list[str]) -> str:
    return r"^\s*(" + "|".join(_ci(w) for w in words) + r")\s*$"


_LOWERED: list = [None, frozenset()]  # the placeholder list lowered last, and its words in lower case


def _lowered(rules: RoundRules) -> frozenset:
    """The round's placeholder words in lower case (asked for every field of every system: lowered once)."""
    words = rules.system_fields.placeholders
    if _LOWERED[0] is not words:
        _LOWERED[:] = [words, frozenset(p.lower() for p in words)]
    return _LOWERED[1]


def is_placeholder(value: Any, rules: RoundRules) -> bool:
    if not isinstance(value, str):
        return False
    return value.strip().lower() in _lowered(rules)


def _no_accelerators(data: dict) -> bool:
    value = data.get("accelerators_per_node")
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value == 0
    return isinstance(value, str) and value.strip() == "0"


def placeholder_reported(name: str, value: Any, data: dict, rules: RoundRules) -> bool:
    """Whether a placeholder value deserves a warning.

    Placeholders that stand for "not filled in" (``undefined``, ``TBD``, ``default``: every word of
    ``system_fields.placeholders`` that is not a not-applicable answer) are reported in every field of the
    round. Not-applicable answers (``N/A``, ``NA``, ``none``, ``-``) are honest in optional fields, so they
    are reported only in the round's meaningful fields, and never in ``accelerator_*`` fields of a system
    with ``accelerators_per_node`` 0 (a CPU-only system has no accelerator to describe).
    """
    if name in ENUM_FIELDS or not is_placeholder(value, rules):
        return False
    sf = rules.system_fields
    if name not in set(sf.required) | set(sf.power) | set(sf.network):
        return False
    if value.strip().lower() not in NOT_APPLICABLE:
        return True
    if name not in sf.meaningful:
        return False
    return not (name.startswith("accelerator") and _no_accelerators(data))


def _field_type(name: str, rules: RoundRules, optional: bool):
    from pydantic import Field, StrictBool, StrictFloat, StrictInt

    placeholder = Annotated[str, Field(pattern=placeholder_pattern(rules.system_fields.placeholders))]
    empty = Annotated[str, Field(max_length=0)]
    extra: list = [placeholder] + ([empty] if optional else [])
    if name in COUNT_FIELDS:
        base = [Annotated[StrictInt, Field(ge=0)], Annotated[str, Field(pattern=r"^\s*\d+\s*$")]]
    elif name in COUNT_TEXT_FIELDS:
        base = [Annotated[StrictInt, Field(ge=0)], Annotated[str, Field(pattern=r"^\s*\d+")]]
    elif name in NUMBER_FIELDS:
        base = [Annotated[StrictInt, Field(ge=0)], Annotated[StrictFloat, Field(ge=0)],
                Annotated[str, Field(pattern=r"^\s*\d+(\.\d+)?\s*$")]]
    elif name == "status":
        base = [Annotated[str, Field(pattern=placeholder_pattern(rules.availabilities))]]
        extra = []
    elif name == "system_type":
        base = [Literal[tuple(rules.system_types)]]
        extra = []
    elif name == "division":
        base = [Literal[tuple(rules.divisions)]]
        extra = []
    elif name in BOOL_FIELDS:
        base = [StrictBool, Annotated[str, Field(pattern=placeholder_pattern(["true", "false"]))]]
    elif name in OBJECT_TEXT_FIELDS:
        base = [str, Annotated[StrictInt, Field()], StrictFloat, dict[str, Any]]
        extra = []
    else:
        base = [str, StrictInt, StrictFloat]
        extra = []
    options = base + extra
    return options[0] if len(options) == 1 else Union[tuple(options)]


_MODELS: dict[tuple, type[BaseModel]] = {}


def system_model(rules: RoundRules) -> type[BaseModel]:
    """The pydantic model of a system description for ``rules.round`` (cached per round content)."""
    from pydantic import ConfigDict, Field, create_model

    sf = rules.system_fields
    key = (rules.round, tuple(sf.required), tuple(sf.power), tuple(sf.network), tuple(sf.optional), tuple(sf.placeholders),
           tuple(rules.availabilities), tuple(rules.system_types), tuple(rules.divisions))
    model = _MODELS.get(key)
    if model is not None:
        return model
    fields: dict[str, Any] = {}
    meaningful = set(sf.meaningful)
    for name in sf.required:
        desc = "required" + (", needs a meaningful (non-empty) value" if name in meaningful else "")
        fields[name] = (_field_type(name, rules, optional=False), dict(default=..., description=desc))
    for group, label in ((sf.power, "power field (optional)"), (sf.network, "network-mode field (required "
                                                                              "when is_network is true)"),
                         (sf.optional, "optional field")):
        for name in group:
            if name not in fields:
                fields[name] = (Optional[_field_type(name, rules, optional=True)], dict(default=None, description=label))
    safe = re.sub(r"[^0-9A-Za-z]", "_", rules.round)
    model = create_model(
        f"SystemDescription_{safe}",
        __config__=ConfigDict(extra="allow", title=f"MLPerf Inference {rules.round} system description",
                              populate_by_name=True, protected_namespaces=()),
        __doc__=f"System description (systems/<system>.json) of MLPerf Inference {rules.round}.",
        **{_py(name): (tp, Field(alias=name, **info)) for name, (tp, info) in fields.items()},
    )
    _MODELS[key] = model
    return model


def _py(name: str) -> str:
    return re.sub(r"[^0-9A-Za-z_]", "_", name)


def json_schema(rules: RoundRules) -> dict:
    """The JSON Schema (draft 2020-12) of the round's system description, deterministic."""
    schema = system_model(rules).model_json_schema(by_alias=True, mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://mlpc.invalid/schemas/system-{rules.round}.schema.json"
    schema["description"] = (
        f"System description (systems/<system>.json) of MLPerf Inference {rules.round}. Generated by "
        f"`mlpc schema export --round {rules.round}` from rules/{rules.round}.yaml; do not edit.")
    schema["additionalProperties"] = True
    meaningful = [n for n in rules.system_fields.meaningful if n in schema.get("properties", {})]
    if meaningful:
        # official emptiness (C5): "", null, false, integer 0 and empty containers are not meaningful
        schema["allOf"] = [{"properties": {n: {"not": {"enum": ["", 0, False, None, [], {}]}} for n in meaningful}}]
    network = [n for n in rules.system_fields.network if n != "is_network"]
    schema.setdefault("allOf", []).append({
        "if": {"properties": {"is_network": {"anyOf": [{"const": True}, {"type": "string",
                                                                             "pattern": placeholder_pattern(["true"])}]}},
               "required": ["is_network"]},
        "then": {"required": network},
    })
    return schema


def expected_type(name: str, rules: RoundRules) -> str:
    if name in COUNT_FIELDS:
        return "a whole number (8 or \"8\")"
    if name in COUNT_TEXT_FIELDS:
        return "a count, optionally followed by text (\"2\", \"10x 400GbE\")"
    if name in NUMBER_FIELDS:
        return "a number (100000 or \"100000\")"
    if name == "status":
        return " | ".join(rules.availabilities)
    if name == "system_type":
        return " | ".join(rules.system_types)
    if name == "division":
        return " | ".join(rules.divisions)
    if name in BOOL_FIELDS:
        return "true | false"
    if name in OBJECT_TEXT_FIELDS:
        return "text or an object"
    return "text"


def validate_system(data: Any, rules: RoundRules) -> list[tuple[str, str, str]]:
    """Validate a parsed system description: a sorted list of ``(pointer, message, kind)``.

    kinds: ``not-object`` (the whole document), ``missing`` (a required field), ``enum`` (status,
    system_type, division outside the round's values), ``type`` (a value of the wrong type, e.g. a count
    that is not a number), ``placeholder`` (a placeholder value in a known field: valid, but worth a
    warning). Network-mode presence is left to the checks (it depends on the division folder).
    """
    if not isinstance(data, dict):
        return [("", f"a system description must be a JSON object, found {type(data).__name__}", "not-object")]
    out: dict[tuple[str, str], str] = {}
    from checker.models.system_core import system_validator  # system_model's schema, without building the model

    try:
        system_validator(rules).validate_python(data)
    except ValidationError as exc:
        for err in exc.errors(include_url=False):  # (the URL would import pydantic)
            loc = err.get("loc", ())
            if not loc:
                continue
            name = str(loc[0])
            pointer = "/" + name.replace("~", "~0").replace("/", "~1")
            if err.get("type") == "missing":
                out[(pointer, "missing")] = f"field {name} is missing"
                continue
            kind = "enum" if name in ENUM_FIELDS else "type"
            if (pointer, kind) in out:
                continue
            out[(pointer, kind)] = (f"field {name} should be {expected_type(name, rules)}, "
                                    f"found {describe_value(data.get(name))}")
    lowered = _lowered(rules)
    for name, value in data.items():
        # (is_placeholder first, inline: a value that is no placeholder, as almost all are, is passed over without a call)
        if isinstance(value, str) and value.strip().lower() in lowered and placeholder_reported(name, value, data, rules):
            pointer = "/" + name.replace("~", "~0").replace("/", "~1")
            if (pointer, "type") not in out:
                out[(pointer, "placeholder")] = f"field {name} holds the placeholder {value!r}"
    return sorted((p, m, k) for (p, k), m in out.items())


def describe_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 60 else value[:57] + "..."
        return f"the string {shown!r}"
    return f"a JSON {'array' if isinstance(value, list) else 'object'}"
