"""Bandwidth checks (BW): Appendix B ingress / egress minima against the declared network capacity.

For every datacenter result: the measured throughput (samples/s), the benchmark's Appendix B row
(``rules/appendix_b.yaml``) and the input data type declared in the implementation JSON give the minimum
bytes/s (checker/metrics/bandwidth.py); the system description's networking fields give the capacity
(checker/metrics/nic.py). A result whose capacity cannot be read is skipped here (SY014 reports the
missing bandwidth on the system).
"""

from __future__ import annotations

import re

from checker.checks.base import check, finding
from checker.checks.memo import per_context
from checker.checks.performance import reported_value
from checker.metrics.bandwidth import declared_types, load_appendix_b, minimum
from checker.metrics.nic import parse_system_network

START_FROM_DEVICE = re.compile(
    r"start[\s_-]*from[\s_-]*(?:the[\s_-]*)?device"
    r"|inputs?\s+(?:start|reside|are\s+(?:stored|placed|pre-?loaded))\s+(?:on|in)\s+(?:the\s+)?"
    r"(?:device|accelerator|gpu)\s*memory"
    r"|inputs?\s+(?:start|reside)\s+on\s+(?:the\s+)?(?:device|accelerator|gpu)",
    re.IGNORECASE)


def starts_from_device(data: dict) -> str | None:
    """The JSON pointer of the field stating that inputs start on the device, or None."""
    for name, value in data.items():
        if "start_from_device" in name.lower() and str(value).strip().lower() in ("true", "1", "yes"):
            return f"/{name}"
        if isinstance(value, str) and START_FROM_DEVICE.search(value):
            return f"/{name}"
    return None


def _is_datacenter(system_type) -> bool:
    return isinstance(system_type, str) and "datacenter" in system_type.split(",")


def _throughput(ctx, rules) -> tuple[float | None, str]:
    """Samples per second of a throughput result, with where it came from; None for latency results."""
    value = reported_value(ctx, rules)
    if value.value is None or value.key is None:
        return None, value.problem or "no result value"
    unit = value.unit or ""
    if "latency" in unit.lower() or "latency" in value.key.lower():
        return None, f"{ctx.scenario} reports a latency, not a throughput"
    if "token" in value.key.lower():
        log = ctx.perf.log if ctx.perf else None
        key = rules.result_fields.get(log.scenario if log else "")
        raw = log.get(key) if (log and key) else None
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw <= 0:
            return None, f"{value.key} is in tokens/s and {key} (samples/s) is missing"
        return float(raw), f"{key}={raw:g} samples/s (the result itself, {value.key}, is in tokens/s)"
    if value.value <= 0:
        return None, f"{value.key} is not positive"
    return float(value.value), f"{value.key}={value.value:g} samples/s"


@per_context
def _capacity(system, rules):
    """The declared network capacity of a system (shared by all its results)."""
    return parse_system_network(system.data)


@per_context
def _inputs(ctx, rules):
    """What BW001/BW002/BW003 share for a datacenter result with an Appendix B row, a throughput and a
    declared capacity: (table, row, throughput, its source, capacity, declared types, system data); else
    None."""
    system = ctx.system
    data = system.data if system.exists and isinstance(system.data, dict) else None
    if data is None or not _is_datacenter(system.system_type):
        return None
    table = load_appendix_b()
    entry = table.for_model(ctx.mlperf_model)
    if entry is None:
        return None
    throughput, how = _throughput(ctx, rules)
    if throughput is None:
        return None
    capacity = _capacity(system, rules)
    if not capacity.ok:
        return None
    impl = ctx.measurements.impl_json if isinstance(ctx.measurements.impl_json, dict) else {}
    return table, entry, throughput, how, capacity, _declared_types(impl.get("input_data_types"), table), data


_TYPES: dict[tuple[int, str | None], tuple[object, object]] = {}  # (id(table), text) -> (table, DeclaredTypes)


def _declared_types(value, table):
    """``declared_types(value, table)``, made once per table and text (results of a submitter declare the
    same few); values other than a string or null are read each time."""
    if value is not None and type(value) is not str:
        return declared_types(value, table)
    key = (id(table), value)
    known = _TYPES.get(key)
    if known is not None and known[0] is table:
        return known[1]
    types = declared_types(value, table)
    if len(_TYPES) > 1024:
        _TYPES.clear()
    _TYPES[key] = (table, types)
    return types


@per_context
def _evaluate(ctx, rules, direction: str):
    """Shared body of BW001/BW002/BW003: (finding kind, minimum, capacity, throughput text, device pointer)."""
    inputs = _inputs(ctx, rules)
    if inputs is None:
        return None
    table, entry, throughput, how, capacity, types, data = inputs
    need = minimum(table, entry[0], direction, throughput, types)
    if need.negligible or capacity.total_bytes_per_s >= need.bytes_per_s:
        return None
    return need, capacity, how, starts_from_device(data)


def _short(ctx, rules) -> bool:
    """``when`` of the BW checks: the declared capacity is below a minimum of the result."""
    return _evaluate(ctx, rules, "ingress") is not None or _evaluate(ctx, rules, "egress") is not None


def _message(ctx, direction, need, capacity, how) -> tuple[str, str, str]:
    message = (f"{ctx.rel}: {direction} minimum {need.bytes_per_s:.6g} B/s ({need.bytes_per_s * 8 / 1e9:.4g} Gb/s) "
               f"exceeds the declared network capacity {capacity.total_bytes_per_s:.6g} B/s "
               f"({capacity.total_gbit:.4g} Gb/s)")
    expected = f">= {need.bytes_per_s:.6g} B/s: {need.explanation}; throughput from {how}"
    actual = f"{capacity.total_bytes_per_s:.6g} B/s: {capacity.explanation}"
    return message, expected, actual


def _below(ctx, rules, direction: str, device: bool):
    outcome = _evaluate(ctx, rules, direction)
    if outcome is None:
        return
    need, capacity, how, device_pointer = outcome
    if bool(device_pointer) != device:
        return
    message, expected, actual = _message(ctx, direction, need, capacity, how)
    pointer = f"/{capacity.source}" if capacity.source else "/host_networking"
    if device:
        yield finding(ctx.system.rel, message + f"; the system states that inputs start on the device "
                      f"({device_pointer}), so the network path may not carry the trace",
                      expected=expected, actual=actual, pointer=device_pointer,
                      hint="reviewers: check the start-from-device claim and the system architecture "
                           "description (rules 5.1) instead of the NIC capacity")
    else:
        yield finding(ctx.system.rel, message, expected=expected, actual=actual, pointer=pointer,
                      hint="declare every NIC and its speed (host_network_card_count, host_networking, "
                           "network_speed_mbit), or document in the system architecture description how the "
                           "trace reaches memory (rules 5.1, Appendix B)")


@check("BW001", "ingress-bandwidth-below-minimum", "result", stricter=True, when=_short)
def ingress_bandwidth_below_minimum(ctx, rules):
    """The declared network capacity is below the Appendix B ingress minimum for the measured throughput.

    What it checks: for a datacenter result with an Appendix B row, ingress minimum = throughput
    (samples/s) x input size x dtype size (e.g. ResNet50: throughput*150528*dtype_size), with the dtype
    read from the implementation JSON's `input_data_types` (1 byte per element when it names no known
    type; LLM results reported in tokens/s use the log's samples/s), is at most the total NIC capacity read
    from the system description (checker/metrics/nic.py). Systems stating that inputs start on the device
    get BW003 instead.
    Why: rules Appendix B.1 ("Datacenter systems must provide at least the following bandwidths from the
    network or I/O device to the location where the trace is stored") and rules 5.1 (bandwidth of each NIC
    and total number of NICs must be provided).
    Failing example: ResNet50 Offline at 100,000 samples/s with fp32 inputs (60.2 GB/s) on "2x 10GbE"
    (2.5 GB/s).
    How to fix: declare all the NICs and their speeds; if the capacity really is lower, the result does
    not meet the datacenter minimum.
    Data used: `result_fields`, `units`, models' `result_field` (throughput); rules/appendix_b.yaml
    (`benchmarks.*.ingress`, `dtype_sizes`, `unknown_dtype_size`).
    Stricter than official: yes (the official checker has no bandwidth check, inference#2347; a warning
    by default because NIC fields are free text).
    """
    yield from _below(ctx, rules, "ingress", device=False)


@check("BW002", "egress-bandwidth-below-minimum", "result", stricter=True, when=_short)
def egress_bandwidth_below_minimum(ctx, rules):
    """The declared network capacity is below the Appendix B egress minimum for the measured throughput.

    What it checks: for benchmarks with a non-negligible output (3D-UNet, SDXL, Llama2-70b, Llama3.1-405B,
    Mixtral-8x7B), egress minimum = throughput x output size x dtype size (e.g. SDXL:
    throughput*3145728*dtype_size, the output pixels taken as 1 byte; LLM output tokens taken as the
    declared input type) is at most the total NIC capacity. Negligible rows ("> 0") always pass once a
    capacity is declared.
    Why: rules Appendix B.2 ("Datacenter systems must provide at least the following bandwidths from the
    output location (e.g. DRAM) to the network or I/O device").
    Failing example: SDXL Offline at 1,000 samples/s (3.1 GB/s) on "1x 10GbE" (1.25 GB/s).
    How to fix: as BW001.
    Data used: as BW001, with `benchmarks.*.egress`.
    Stricter than official: yes (no official check; a warning by default).
    """
    yield from _below(ctx, rules, "egress", device=False)


@check("BW003", "bandwidth-below-minimum-start-from-device", "result", stricter=True, when=_short)
def bandwidth_below_minimum_start_from_device(ctx, rules):
    """Below the Appendix B minimum, but the system states that inputs start on the device.

    What it checks: the BW001 / BW002 comparison fails for a system whose description states that the
    inputs start on the device (a `start_from_device` field set to true, or text such as "start from
    device" / "inputs reside in accelerator memory" in any field). The finding says so instead of failing:
    the NIC path may then not be the path of the trace.
    Why: rules 5.1 (the trace must be stored in the memory that most faithfully simulates the network or
    I/O device; submitters must show the bandwidth path) and Appendix B; reviewers cannot verify
    start-from-device claims from the logs (inference#980).
    Failing example: GPT-J Offline far above the NIC capacity, `"sw_notes": "start_from_device enabled"`.
    How to fix: document the start-from-device path in the system architecture description.
    Data used: as BW001 and BW002.
    Stricter than official: yes (informational by default).
    """
    yield from _below(ctx, rules, "ingress", device=True)
    yield from _below(ctx, rules, "egress", device=True)


CHECKS = (ingress_bandwidth_below_minimum, egress_bandwidth_below_minimum, bandwidth_below_minimum_start_from_device)
