"""System description checks (SY): the official field rules of `systems/<system>.json`.

Official references: docs/official-checker.md section C.
"""

from __future__ import annotations

import re
from itertools import compress, filterfalse
from operator import not_

from checker.checks.base import check, finding
from checker.checks.memo import per_context
from checker.metrics.nic import parse_count, parse_system_network
from checker.models.system import is_placeholder, validate_system
from checker.models.system_core import system_validator  # noqa: F401  (validate_system's validator, imported with the checks)


def _data(ctx):
    return ctx.data if ctx.exists and isinstance(ctx.data, dict) else None


@per_context
def _problems(ctx, rules) -> list[tuple[str, str, str]]:
    """validate_system of a system's description (read by SY010 and SY011)."""
    return validate_system(_data(ctx), rules)


def is_empty(value) -> bool:
    """The official notion of 'no meaningful response': Python falsiness (so integer 0 and
    the empty string are empty, the string "0" is not)."""
    return not value


_FIELDS: dict[tuple[int, str, bool], tuple] = {}  # (id(rules), what, network) -> (rules, fields)


def _fields(rules, what: str, network: bool):
    """The round's required fields (a list, in order; a network system's network fields after them) or its known
    fields (a set: required, power, optional and, for a network system, network), made once per round."""
    key = (id(rules), what, network)
    known = _FIELDS.get(key)
    if known is not None and known[0] is rules:
        return known[1]
    names = rules.system_fields
    if what == "required":
        fields = list(names.required)
        if network:
            fields += [f for f in names.network if f not in fields]
        fields = tuple(fields)
    else:
        fields = set(names.required) | set(names.power) | set(names.optional)
        if network:
            fields |= set(names.network)
        fields = frozenset(fields)
    if len(_FIELDS) > 64:
        _FIELDS.clear()
    _FIELDS[key] = (rules, fields)
    return fields


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
    for name in filterfalse(data.__contains__, _fields(rules, "required", ctx.is_network())):
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
    present = list(filter(data.__contains__, rules.system_fields.meaningful))
    for name in compress(present, map(not_, map(data.__getitem__, present))):  # (is_empty of each, in C)
        yield finding(ctx.rel, f"field {name} requires a meaningful response but is empty",
                      expected="a non-empty value", actual=repr(data[name]), pointer=f"/{name}",
                      hint="integer 0 counts as empty; write the string \"0\"")


@check("SY007", "unknown-field", "system")
def unknown_field(ctx, rules):
    """The system description has a field the round does not define.

    What it checks: every key is a required, power, optional or (network mode) network field.
    Why: official checker C7 (warning).
    Failing example: `"device": "cpu"`.
    How to fix: remove the field or move the information to hw_notes / sw_notes.
    Data used: `system_fields.*`.
    """
    data = _data(ctx)
    if data is None:
        return
    for name in filterfalse(_fields(rules, "known", ctx.is_network()).__contains__, data):
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



def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _blank(value, rules) -> bool:
    """Empty by the official semantics, or a placeholder ("N/A", "undefined", ...)."""
    return is_empty(value) or is_placeholder(value, rules) or (isinstance(value, str) and not value.strip())


def is_datacenter(ctx) -> bool:
    return "datacenter" in (ctx.system_type or "").split(",")


@check("SY010", "field-wrong-type", "system", stricter=True)
def field_wrong_type(ctx, rules):
    """A system description field has a value of the wrong type.

    What it checks: every field the round defines has the type of its kind (checker/models/system.py):
    counts (`number_of_nodes`, `host_processors_per_node`, `host_processor_core_count`,
    `accelerators_per_node`, NIC counts) are whole numbers or strings of digits; `host_network_card_count`
    starts with a count; `network_speed_mbit` is a number; `is_network` is a boolean or "true"/"false";
    text fields are strings (or numbers). Placeholders such as "N/A" are accepted here (SY011).
    Why: the summary table and the bandwidth check (Appendix B) read these values as numbers; rules 4.1.1
    (networking "must be described") and the v5.1 post-mortem request (inference#2347) for numeric fields.
    Failing example: `"accelerators_per_node": "eight"`, `"number_of_nodes": 1.5`, `"hw_notes": null`.
    How to fix: write the number (`8` or `"8"`); put prose in hw_notes / sw_notes.
    Data used: `system_fields.required`, `system_fields.power`, `system_fields.network`,
    `system_fields.placeholders`.
    Stricter than official: yes (the official checker never looks at types; a warning by default).
    """
    data = _data(ctx)
    if data is None:
        return
    for pointer, message, kind in _problems(ctx, rules):
        if kind == "type":
            name = pointer[1:]
            yield finding(ctx.rel, message, expected=message.split(" should be ", 1)[-1].split(", found", 1)[0],
                          actual=repr(data.get(name)), pointer=pointer,
                          hint="write the number itself (8 or \"8\"); keep explanations in hw_notes / sw_notes")


@check("SY011", "placeholder-value", "system", stricter=True)
def placeholder_value(ctx, rules):
    """A system description field holds a placeholder instead of a description.

    What it checks: no field of the round holds "undefined", "TBD" or "default" (any case), and no
    meaningful field holds a not-applicable answer ("N/A", "NA", "none", "-") -- except the accelerator
    fields of a system with `accelerators_per_node` 0, where "N/A" is the honest answer.
    Why: rules 2.7 (replicability) and 4.1.1 (datacenter networking "must be described"): the official
    checker only tests emptiness (C5), so auto-generated files with `"host_memory_configuration":
    "undefined"` reach the results table (users.md section 1.6).
    Failing example: `"host_memory_configuration": "undefined"`.
    How to fix: describe the component (e.g. "16x 32GB DDR5-4800 RDIMM, ECC on").
    Data used: `system_fields.placeholders`, `system_fields.meaningful`, `system_fields.required`,
    `system_fields.power`, `system_fields.network`.
    Stricter than official: yes (a warning by default).
    """
    data = _data(ctx)
    if data is None:
        return
    for pointer, message, kind in _problems(ctx, rules):
        if kind == "placeholder":
            yield finding(ctx.rel, message, expected="a description of the component",
                          actual=repr(data.get(pointer[1:])), pointer=pointer,
                          hint="replace the placeholder with the real value; if the component does not exist, "
                               "say so in words (\"none: accelerators talk through the host\")")


ECC_WORD = re.compile(r"(?<![A-Za-z])ECC(?![A-Za-z])", re.IGNORECASE)
ECC_OFF = re.compile(r"\b(?:non|no|without|w/o)[\s-]+ECC\b|\bECC\b[\s:=-]*(?:is\s+)?(?:disabled|off|not\s+enabled)\b",
                     re.IGNORECASE)
SRAM_ONLY = re.compile(r"\bSRAM\b", re.IGNORECASE)
DRAM_WORDS = re.compile(r"DDR|HBM|DRAM|DIMM|GDDR", re.IGNORECASE)
HOST_ECC_FIELDS = ("host_memory_configuration", "host_memory_capacity", "hw_notes")
ACCEL_ECC_FIELDS = ("accelerator_memory_configuration", "accelerator_memory_capacity", "hw_notes")


def _memories_needing_ecc(data: dict, rules) -> list[tuple[str, str, tuple[str, ...]]]:
    """(label, pointer field, fields searched) for the DRAM/HBM memories of a datacenter system."""
    out = [("host DRAM", "host_memory_configuration", HOST_ECC_FIELDS)]
    accelerators = parse_count(data.get("accelerators_per_node"))
    if accelerators:
        config = _text(data.get("accelerator_memory_configuration"))
        if not (SRAM_ONLY.search(config) and not DRAM_WORDS.search(config)):
            out.append(("accelerator memory (DRAM/HBM)", "accelerator_memory_configuration", ACCEL_ECC_FIELDS))
    return out


def _ecc_state(data: dict, fields: tuple[str, ...]) -> tuple[str, str | None]:
    """'on', 'off' or 'missing', with the field that decided it."""
    for name in fields:
        text = _text(data.get(name))
        if ECC_OFF.search(text):
            return "off", name
    for name in fields:
        if ECC_WORD.search(_text(data.get(name))):
            return "on", name
    return "missing", None


@check("SY012", "ecc-not-declared", "system", stricter=True)
def ecc_not_declared(ctx, rules):
    """A datacenter system does not declare ECC on its DRAM / HBM.

    What it checks: for a datacenter system (`system_type` contains datacenter), the host memory and,
    when it has accelerators whose memory is not SRAM only, the accelerator memory each declare ECC.
    What counts as a declaration (decided on the real v4.1 and v5.1 files, where no field exists for it and
    only one of 17 files -- Lenovo's "GDDR6 with ECC" -- mentions ECC at all): the word "ECC" (any case,
    as a word) in `host_memory_configuration` / `host_memory_capacity` for the host, in
    `accelerator_memory_configuration` / `accelerator_memory_capacity` for the accelerator, or in `hw_notes`
    for both. "RDIMM" / "Registered" is NOT taken as a declaration (registered DIMMs are usually, not
    always, ECC), and no new field is invented (an extra key is an official "unknown field" warning, SY007).
    A declaration that ECC is off ("non-ECC", "ECC disabled") is SY013, not this code.
    Why: rules 4.1.1, minimum requirements of a datacenter system: "A Datacenter submission must use ECC
    in their DRAM and HBM memories, and ECC must be enabled for all performance and accuracy runs."
    Failing example: `"host_memory_configuration": "32x 64GB DDR5-4800"` on a datacenter system.
    How to fix: append it to the memory description: "32x 64GB DDR5-4800 RDIMM, ECC enabled";
    "HBM3e, ECC enabled".
    Data used: none from the round file (the requirement has no numbers).
    Stricter than official: yes (the official checker has no ECC field or check; a warning by default,
    because the rules require ECC but no field to declare it).
    """
    data = _data(ctx)
    if data is None or not is_datacenter(ctx):
        return
    for label, field, fields in _memories_needing_ecc(data, rules):
        state, _ = _ecc_state(data, fields)
        if state == "missing":
            yield finding(ctx.rel, f"datacenter system does not declare ECC on its {label}",
                          expected=f"'ECC' in {' or '.join(fields)}", actual=repr(data.get(field)),
                          pointer=f"/{field}",
                          hint=f"rules 4.1.1 require ECC on DRAM and HBM; write it in {field}, "
                               f"e.g. \"{_text(data.get(field)) or '...'}, ECC enabled\"")


@check("SY013", "ecc-disabled", "system", stricter=True)
def ecc_disabled(ctx, rules):
    """A datacenter system declares DRAM / HBM without ECC.

    What it checks: for a datacenter system, the memory fields (`host_memory_configuration`,
    `host_memory_capacity`, `accelerator_memory_configuration`, `accelerator_memory_capacity`, `hw_notes`)
    do not say "non-ECC", "no ECC", "without ECC", "ECC disabled", "ECC off" or "ECC not enabled"
    (memory that is SRAM only is not required to have ECC).
    Why: rules 4.1.1: "A Datacenter submission must use ECC in their DRAM and HBM memories, and ECC must be
    enabled for all performance and accuracy runs. No requirements are imposed on SRAM."
    Failing example: `"host_memory_configuration": "8x 32GB DDR5 non-ECC UDIMM"` on a datacenter system.
    How to fix: run with ECC memory and ECC enabled, or submit the system as edge.
    Data used: none from the round file.
    Stricter than official: yes (the official checker has no ECC check); the rules forbid it outright,
    so it is an error by default.
    """
    data = _data(ctx)
    if data is None or not is_datacenter(ctx):
        return
    for label, field, fields in _memories_needing_ecc(data, rules):
        state, where = _ecc_state(data, fields)
        if state == "off":
            yield finding(ctx.rel, f"datacenter system declares its {label} without ECC",
                          expected="ECC enabled", actual=repr(data.get(where)), pointer=f"/{where}",
                          hint="rules 4.1.1: datacenter DRAM and HBM must use ECC, enabled for every run")


NIC_MODEL = re.compile(r"(?<![\w-])(?!pcie)[A-Za-z][A-Za-z-]*\d[\w-]*", re.IGNORECASE)


def _has_nic_model(data: dict) -> bool:
    for name in ("host_networking", "host_network_card_count", "host_networking_topology"):
        for token in NIC_MODEL.findall(_text(data.get(name))):
            if not re.match(r"(?i)(pcie|gen|x\d|qsfp|osfp|sfp|cat\d)", token):
                return True
    return False


@check("SY014", "networking-not-described", "system", stricter=True)
def networking_not_described(ctx, rules):
    """A datacenter system does not describe its networking (NIC model, count, bandwidth, topology).

    What it checks: for a datacenter system, the networking fields let a reader find
    (1) the NIC model: `host_networking` is not empty or a placeholder, and some networking field names a
    model (a token with letters and digits such as "ConnectX-7", "X710", "BCM5720");
    (2) the NIC count: `host_network_card_count` starts with a count above 0;
    (3) the per-NIC bandwidth: a link speed can be read from `network_speed_mbit`, `host_network_card_count`,
    `host_networking` or `host_networking_topology` (checker/metrics/nic.py);
    (4) the topology: `host_networking_topology` is not empty or a placeholder.
    Each missing item is one finding pointing at its field.
    Why: rules 4.1.1 ("Networking": "The details of the networking components must be described in the
    appropriate field of the System JSON") and rules 5.1 (the system architecture must include the
    "Bandwidth of each NIC and total number of NIC(s)" and the data path from the NICs); Appendix B needs
    the bandwidth.
    Failing example: `"host_networking": "Gig Ethernet", "host_networking_topology": "N/A"`.
    How to fix: e.g. `"host_networking": "2x NVIDIA ConnectX-7 400GbE"`, `"host_network_card_count": "2"`,
    `"host_networking_topology": "each NIC on a PCIe Gen5 x16 switch shared with 4 GPUs; leaf switch"`.
    Data used: `system_fields.placeholders`.
    Stricter than official: yes (the official checker only tests these fields for emptiness; a warning).
    """
    data = _data(ctx)
    if data is None or not is_datacenter(ctx):
        return
    networking = data.get("host_networking")
    if _blank(networking, rules) or not _has_nic_model(data):
        yield finding(ctx.rel, "NIC model not described", expected="the NIC model (e.g. 'ConnectX-7 400GbE')",
                      actual=repr(networking), pointer="/host_networking",
                      hint="name the NIC model and speed in host_networking, e.g. '2x Intel E810-C 100GbE'")
    count = parse_count(data.get("host_network_card_count"))
    if not count:
        yield finding(ctx.rel, "NIC count not described", expected="a count above 0",
                      actual=repr(data.get("host_network_card_count")), pointer="/host_network_card_count",
                      hint="write the number of NICs, e.g. \"2\"")
    parsed = parse_system_network(data)
    if not parsed.ok:
        yield finding(ctx.rel, "per-NIC bandwidth not described", expected="a link speed such as '100GbE'",
                      actual=parsed.explanation, pointer="/host_networking",
                      hint="add the speed of each NIC (e.g. '2x 100GbE') or network_speed_mbit")
    topology = data.get("host_networking_topology")
    if _blank(topology, rules):
        yield finding(ctx.rel, "network topology not described", expected="the NIC-to-memory / switch topology",
                      actual=repr(topology), pointer="/host_networking_topology",
                      hint="describe how the NICs connect to the host / accelerators and to the network")


@check("SY015", "network-component-not-described", "system", stricter=True)
def network_component_not_described(ctx, rules):
    """A network-division system leaves a network component undescribed.

    What it checks: for a system in network mode (`network/` division or `is_network` true), every field
    of the round's network list (`network_type`, `network_media`, `network_rate`, `nic_loadgen`,
    `number_nic_loadgen`, `net_software_stack_loadgen`, `network_protocol`, `number_connections`, `nic_sut`,
    `number_nic_sut`, `net_software_stack_sut`, `network_topology`) has a real value: not empty, not a
    placeholder. (Missing fields are SY005.)
    Why: rules 6.2.3: "The report must contain network interface characteristics for both the Loadgen and
    SUT systems, and every other component through which data passes between Loadgen and SUT"; rules
    6.2.2: "Fabric and protocol must be reported ... sufficient to determine OSI layers one through four".
    Failing example: `"nic_loadgen": ""` or `"network_protocol": "TBD"`.
    How to fix: describe each component (NIC model and speed on both sides, switch, protocol stack).
    Data used: `system_fields.network`, `system_fields.placeholders`.
    Stricter than official: yes (the official checker tests presence only, C6; a warning by default).
    """
    data = _data(ctx)
    if data is None or not (ctx.division == "network" or ctx.is_network()):
        return
    for name in rules.system_fields.network:
        if name == "is_network" or name not in data:
            continue
        if _blank(data[name], rules):
            yield finding(ctx.rel, f"network component field {name} is not described",
                          expected="a description", actual=repr(data[name]), pointer=f"/{name}",
                          hint="rules 6.2.3: describe every component between LoadGen and SUT")


# Rules 6.2.2: permitted fabric interconnects and examples of forbidden bus interconnects.
PERMITTED_FABRICS = re.compile(r"ethernet|\b\d*g?be\b|infiniband|\bib\b|roce|802\.11|wi-?fi|3gpp|\b[45]g\b|\blte\b",
                               re.IGNORECASE)
FORBIDDEN_BUSES = re.compile(r"pci-?e|\bcxl\b|ccix|hypertransport|nvlink|\bqpi\b|\bupi\b|\bici\b", re.IGNORECASE)


@check("SY016", "network-fabric-not-permitted", "system", stricter=True)
def network_fabric_not_permitted(ctx, rules):
    """A network-division system names a bus interconnect, not a permitted fabric, as its network.

    What it checks: in network mode, `network_type` and `network_media` together name a permitted fabric
    (Ethernet, IEEE 802.11, InfiniBand, 3GPP); the finding names the bus interconnect when one is named
    instead (PCIe, CXL, CCIX, HyperTransport, NVLink, QPI, UPI, ICI).
    Why: rules 6.2.2: "Fabric interconnects are required and bus interconnects are forbidden. ... Currently
    permitted fabric interconnects are Ethernet, IEEE802.11, Infiniband, and 3GPP."
    Failing example: `"network_type": "NVLink"`.
    How to fix: use a permitted fabric, or ask the Inference WG for clearance and say so in sw_notes.
    Data used: none from the round file (the fabric lists are rule text, quoted in this module).
    Stricter than official: yes (a warning by default: the match is on free text).
    """
    data = _data(ctx)
    if data is None or not (ctx.division == "network" or ctx.is_network()):
        return
    text = " ".join(_text(data.get(name)) for name in ("network_type", "network_media"))
    if not text.strip():
        return
    if not PERMITTED_FABRICS.search(text):
        bus = FORBIDDEN_BUSES.search(text)
        yield finding(ctx.rel, "network fabric is not a permitted fabric interconnect"
                      + (f" ({bus.group(0)} is a bus interconnect)" if bus else ""),
                      expected="Ethernet | IEEE 802.11 | InfiniBand | 3GPP", actual=repr(text.strip()),
                      pointer="/network_type",
                      hint="rules 6.2.2: bus interconnects (PCIe, CXL, NVLink, UPI ...) are forbidden")


CHECKS = (
    system_description_unreadable, invalid_status, invalid_system_type, network_mode_mismatch,
    required_field_missing, field_not_meaningful, unknown_field, submitter_mismatch, division_mismatch,
    field_wrong_type, placeholder_value, ecc_not_declared, ecc_disabled, networking_not_described,
    network_component_not_described, network_fabric_not_permitted,
)
