"""System description checks (SY): the official field rules of `systems/<system>.json`.

Official references: docs/official-checker.md section C.
"""

from __future__ import annotations

from checker.checks.base import check, finding


def _data(ctx):
    return ctx.data if ctx.exists and isinstance(ctx.data, dict) else None


def is_empty(value) -> bool:
    """The official notion of 'no meaningful response': Python falsiness (so integer 0 and
    the empty string are empty, the string "0" is not)."""
    return not value


@check("SY001", "system-description-unreadable", "system")
def system_description_unreadable(ctx, rules):
    """The system description is not a readable JSON object.

    What it checks: `systems/<system>.json` parses as a JSON object (no duplicate keys, bounded depth).
    Why: every other system check and the summary need it; the official checker crashes instead.
    Failing example: a truncated file, a JSON array, duplicate `"status"` keys.
    How to fix: write a single JSON object.
    Data used: none.
    """
    if ctx.exists and ctx.error:
        yield finding(ctx.rel, ctx.error, expected="a JSON object", actual="unreadable",
                      hint="validate it with `mlpc schema validate`")


@check("SY002", "invalid-status", "system")
def invalid_status(ctx, rules):
    """`status` is missing or not an allowed availability.

    What it checks: `status`, lower-cased, is one of the round's availabilities.
    Why: official checker C2 (a missing status crashes it).
    Failing example: `"status": "released"`.
    How to fix: use available, preview or rdi.
    Data used: `availabilities`.
    """
    data = _data(ctx)
    if data is None:
        return
    status = data.get("status")
    if not isinstance(status, str) or status.lower() not in rules.availabilities:
        yield finding(ctx.rel, "invalid status", expected=" | ".join(rules.availabilities), actual=repr(status),
                      pointer="/status", hint="set status to available, preview or rdi")


@check("SY003", "invalid-system-type", "system")
def invalid_system_type(ctx, rules):
    """`system_type` is not one of the allowed values.

    What it checks: `system_type` is exactly datacenter, edge, "datacenter,edge" or "edge,datacenter".
    Why: official checker C3; it selects the required scenarios.
    Failing example: `"system_type": "Datacenter"`.
    How to fix: use the exact lower-case value.
    Data used: `system_types`.
    """
    data = _data(ctx)
    if data is None:
        return
    value = data.get("system_type")
    if value not in rules.system_types:
        yield finding(ctx.rel, "invalid system type", expected=" | ".join(rules.system_types), actual=repr(value),
                      pointer="/system_type", hint="use datacenter, edge or datacenter,edge")


@check("SY004", "network-mode-mismatch", "system")
def network_mode_mismatch(ctx, rules):
    """`is_network` does not match the division.

    What it checks: network division requires `is_network` "true"; closed requires it false or absent.
    Why: official checker C4 (a JSON boolean crashes it; mlpc accepts booleans and strings).
    Failing example: `"is_network": "true"` in closed.
    How to fix: move the system to network/ or set is_network to false.
    Data used: none.
    """
    data = _data(ctx)
    if data is None:
        return
    network = ctx.is_network()
    if (ctx.division == "network" and not network) or (ctx.division == "closed" and network):
        yield finding(ctx.rel, f"is_network={network} is wrong for division '{ctx.division}'",
                      expected="true" if ctx.division == "network" else "false", actual=repr(data.get("is_network")),
                      pointer="/is_network", hint="network submissions go under network/")


@check("SY005", "required-field-missing", "system")
def required_field_missing(ctx, rules):
    """A required system description field is absent.

    What it checks: every field of the round's required list (and, for network mode, the network
    list) is present.
    Why: official checker C5/C6.
    Failing example: no `host_networking_topology` key.
    How to fix: add the field (with a meaningful value).
    Data used: `system_fields.required`, `system_fields.network`.
    """
    data = _data(ctx)
    if data is None:
        return
    fields = list(rules.system_fields.required)
    if ctx.is_network():
        fields += [f for f in rules.system_fields.network if f not in fields]
    for name in fields:
        if name not in data:
            yield finding(ctx.rel, f"field {name} is missing", expected=name, actual="absent", pointer=f"/{name}",
                          hint=f"add \"{name}\"")


@check("SY006", "field-not-meaningful", "system")
def field_not_meaningful(ctx, rules):
    """A field that needs a meaningful value is empty.

    What it checks: fields of the round's meaningful list are present and not empty (official
    semantics: empty string, null, false, integer 0 and empty containers count as empty).
    Why: official checker C5.
    Failing example: `"accelerators_per_node": 0` (write `"0"`).
    How to fix: fill in the value.
    Data used: `system_fields.meaningful`.
    """
    data = _data(ctx)
    if data is None:
        return
    for name in rules.system_fields.meaningful:
        if name in data and is_empty(data[name]):
            yield finding(ctx.rel, f"field {name} requires a meaningful response but is empty",
                          expected="a non-empty value", actual=repr(data[name]), pointer=f"/{name}",
                          hint="integer 0 counts as empty; write the string \"0\"")


@check("SY007", "unknown-field", "system")
def unknown_field(ctx, rules):
    """The system description has a field the round does not define.

    What it checks: every key is a required, power or (network mode) network field.
    Why: official checker C7 (warning).
    Failing example: `"device": "cpu"`.
    How to fix: remove the field or move the information to hw_notes / sw_notes.
    Data used: `system_fields.*`.
    """
    data = _data(ctx)
    if data is None:
        return
    known = set(rules.system_fields.required) | set(rules.system_fields.power)
    if ctx.is_network():
        known |= set(rules.system_fields.network)
    for name in data:
        if name not in known:
            yield finding(ctx.rel, f"field {name} is unknown", expected="a field of the round", actual=name,
                          pointer=f"/{name}", hint="remove it or describe it in hw_notes / sw_notes")


@check("SY008", "submitter-mismatch", "system")
def submitter_mismatch(ctx, rules):
    """`submitter` differs from the submitter folder name.

    What it checks: `submitter` equals the folder name, case-insensitively.
    Why: official checker C8.
    Failing example: `"submitter": "Acme Inc"` under `closed/Acme/`.
    How to fix: make them equal.
    Data used: none.
    """
    data = _data(ctx)
    if data is None:
        return
    value = data.get("submitter")
    if not isinstance(value, str) or value.lower() != ctx.submitter.lower():
        yield finding(ctx.rel, "submitter does not match the folder", expected=ctx.submitter, actual=repr(value),
                      pointer="/submitter", hint="use the submitter folder name")


@check("SY009", "division-mismatch", "system")
def division_mismatch(ctx, rules):
    """`division` differs from the division folder.

    What it checks: `division` equals the division folder name (case-sensitive, as the v4.1/v5.0 checker).
    Why: official checker C9.
    Failing example: `"division": "open"` under `closed/`.
    How to fix: make them equal.
    Data used: none.
    """
    data = _data(ctx)
    if data is None:
        return
    value = data.get("division")
    if value != ctx.division:
        yield finding(ctx.rel, "division does not match the folder", expected=ctx.division, actual=repr(value),
                      pointer="/division", hint="use the division folder name")


CHECKS = (
    system_description_unreadable, invalid_status, invalid_system_type, network_mode_mismatch,
    required_field_missing, field_not_meaningful, unknown_field, submitter_mismatch, division_mismatch,
)
