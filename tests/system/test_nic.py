"""NIC parser: real strings from the v4.1 / v5.1 system files (quoted, not copied files) plus variants."""

from __future__ import annotations

import pytest

from checker.metrics.nic import parse_count, parse_nic_text, parse_system_network

# (text, card count given with it, expected total Gbit/s or None)
REAL = [
    ("Ethernet Controller / 100G", None, 100),
    ("Ethernet Controller / 100G", 2, 200),  # Cisco X210M7: host_network_card_count "2"
    ("2", None, None),
    ("N/A", None, None),
    ("Infiniband;  Data bandwidth for GPU-PCIe: 504GB/s; PCIe-NIC: 500GB/s", None, None),
    ("Infiniband; Data bandwidth for GPU-PCIe: 504GB/s; PCIe-NIC: 500GB/s", None, None),
    ("Infiniband:Data bandwidth for GPU-PCIe: 504GB/s; PCIe-NIC: 500GB/s", None, None),
    ("10x 400Gbe Infiniband", None, 4000),
    ("10x 400Gb Infiniband", None, 4000),
    ("Ethernet/Infiniband on switching network", None, None),
    ("PCIe Gen5 x16", None, None),
    ("PCIe Gen4 x16", None, None),
    ("PCIe Gen5 x8", None, None),
    ("PCIe Gen4 x8", None, None),
    ("PCIe Gen5 16x (32 GT/s)", None, None),
    ("PCIe Gen 5 16x (32 GT/s)", None, None),
    ("18x 4th Gen NVLink, 900GB/s", None, None),
    ("18x 5th Gen NVLink, 14.4 TB/s aggregated bandwidth", None, None),
    ("", None, None),
    ("Gig Ethernet", None, 1),
    ("Giga Ethernet", None, 1),
    ("1 Integrated", None, None),
    ("USB forwarded", None, None),
    ("1", None, None),
    ("integrated", None, None),
    ("Integrated", None, None),
    ("embedded; integrated", None, None),
    ("1GbE", None, 1),
    ("Broadcom NetXtreme 1GbE (BCM5720); Broadcom Adv. Dual 25GbE", None, 51),
    ("Ethernet", None, None),
    ("Infiniband", None, None),
    ("X710 10GBASE-T Network Connection", None, 10),
    ("X710 10GBASE-T Network Connection", 1, 10),
    ("8x HPE Slingshot SA210S Ethernet 200Gb 1-port PCIe NIC, 8x HPE InfiniBand NDR/Ethernet 400Gb 1-port OSFP "
     "PCIe5 x16 MCX75310AAS-NEAT Adapter, 1x HPE InfiniBand HDR/Ethernet 200Gb 2-port QSFP56 PCIe4 x16 "
     "MCX653106A-HDAT Adapter", None, 5200),
]

VARIANTS = [
    ("2x 10Gbe", None, 20),
    ("400 Gb/s", None, 400),
    ("ConnectX-7 400GbE x 8", None, 3200),
    ("ConnectX-7 400GbE x 8", 4, 3200),  # an explicit multiplier wins over the card count
    ("25 Gbps", None, 25),
    ("25 Gbps", 4, 100),
    ("12.5 GB/s", None, 100),  # capital B: bytes
    ("100 Gigabit Ethernet", None, 100),
    ("100Mbps", None, 0.1),
    ("InfiniBand NDR", None, 400),
    ("2 x ConnectX-6 HDR", None, 400),
    ("4 x 100GbE + 1 x 1GbE", None, 401),
    ("Quad 10GbE", None, 40),
    ("1.6 Tb/s", None, 1600),
    ("Mellanox ConnectX-5 EDR", None, 100),
    ("Fast Ethernet", None, 0.1),
    ("two NICs", None, None),
]


@pytest.mark.parametrize("text,count,gbit", REAL + VARIANTS)
def test_table(text, count, gbit) -> None:
    result = parse_nic_text(text, count)
    assert result.explanation  # always says why
    if gbit is None:
        assert result.total_bytes_per_s is None
    else:
        assert result.total_gbit == pytest.approx(gbit)
        assert result.total_bytes_per_s == pytest.approx(gbit * 1e9 / 8)


def test_at_least_thirty_real_strings() -> None:
    assert len({t for t, _, _ in REAL}) >= 30


@pytest.mark.parametrize("value", [None, 3, ["10GbE"], {"a": 1}, "\x00\xff", "9" * 5000 + "GbE", "x" * 100000])
def test_never_raises(value) -> None:
    result = parse_nic_text(value)
    assert isinstance(result.explanation, str)


def test_system_sources_in_order() -> None:
    # network_speed_mbit (per NIC) times the NIC count comes first
    data = {"network_speed_mbit": "25000", "number_of_type_nics_installed": "2", "host_networking": "1GbE"}
    result = parse_system_network(data)
    assert result.source == "network_speed_mbit" and result.total_gbit == pytest.approx(50)
    # the card count field when it carries speeds
    data = {"host_network_card_count": "10x 400Gbe Infiniband",
            "host_networking": "Infiniband;  Data bandwidth for GPU-PCIe: 504GB/s; PCIe-NIC: 500GB/s"}
    result = parse_system_network(data)
    assert result.source == "host_network_card_count" and result.total_gbit == pytest.approx(4000)
    # host_networking times a plain card count
    result = parse_system_network({"host_networking": "Ethernet Controller / 100G", "host_network_card_count": "2"})
    assert result.source == "host_networking" and result.total_gbit == pytest.approx(200)
    # the topology field as the last resort
    result = parse_system_network({"host_networking": "embedded; integrated", "host_network_card_count": "2",
                                   "host_networking_topology": "Broadcom NetXtreme 1GbE (BCM5720); "
                                                               "Broadcom Adv. Dual 25GbE"})
    assert result.source == "host_networking_topology" and result.total_gbit == pytest.approx(51)
    unknown = parse_system_network({"host_networking": "Ethernet", "host_network_card_count": "1"})
    assert not unknown.ok and "no link speed" in unknown.explanation
    assert not parse_system_network([1, 2]).ok


@pytest.mark.parametrize("value,count", [("2", 2), (8, 8), ("1 Integrated", 1), ("10x 400Gbe Infiniband", 10),
                                         ("100G", None), ("two", None), (True, None), (-1, None), (2.0, 2)])
def test_parse_count(value, count) -> None:
    assert parse_count(value) == count
