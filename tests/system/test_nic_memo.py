"""The remembered parse of a system's networking fields equals a fresh parse, value types told apart."""

from __future__ import annotations

import glob
import json
import os

import pytest

from checker.metrics import nic
from checker.metrics.nic import _parse_system_network, parse_system_network

VALUES = ["10x 400Gbe Infiniband", "Gig Ethernet", "2", "N/A", "", None, 2, 2.0, -0.0, 0.0, 0, True, False, 1, 1.0,
          "100000", 100000, 100000.0, float("nan"), ["400G"], {"nic": "400G"}, "ConnectX-7 400GbE x 8"]
FIELDS = nic._READ


def _same(a, b) -> None:
    assert repr(a) == repr(b)


@pytest.mark.parametrize("field", FIELDS)
def test_each_value_of_each_field(field):
    nic._PARSED.clear()
    for value in VALUES:  # each value after every other (a hit of an equal value of another type would show here)
        for other in VALUES:
            data = {"host_networking": "Dual 25GbE", field: other}
            parse_system_network(data)
            data = {"host_networking": "Dual 25GbE", field: value}
            _same(parse_system_network(data), _parse_system_network(data))


def test_all_fields_together_and_twice():
    nic._PARSED.clear()
    for i, value in enumerate(VALUES):
        data = {name: VALUES[(i + k) % len(VALUES)] for k, name in enumerate(FIELDS)}
        data["other"] = value  # a field the parse does not read
        first = parse_system_network(data)
        _same(first, _parse_system_network(data))
        _same(parse_system_network(dict(data)), first)


def test_not_an_object():
    assert parse_system_network([1]).explanation == "the system description is not a JSON object"


def test_real_system_files():
    files = sorted(glob.glob("/work/shared/real_submissions/*/*/*/systems/*.json"))[:400]
    if not files:
        pytest.skip("no real submissions here")
    nic._PARSED.clear()
    for path in files + files:
        try:
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            continue
        _same(parse_system_network(data), _parse_system_network(data) if isinstance(data, dict)
              else parse_system_network(data))


def test_bounded():
    nic._PARSED.clear()
    for i in range(nic._PARSED_LIMIT + 10):
        parse_system_network({"host_networking": f"{i + 1}x 10GbE"})
    assert len(nic._PARSED) <= nic._PARSED_LIMIT
    assert parse_system_network({"host_networking": "3x 10GbE"}).total_gbit == 30
