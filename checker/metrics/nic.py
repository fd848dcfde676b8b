"""Parse the free-text networking fields of a system description into a capacity.

Submitters describe their NICs in prose: ``"2x 10Gbe"``, ``"400 Gb/s"``, ``"ConnectX-7 400GbE x 8"``,
``"10x 400Gbe Infiniband"``, ``"Broadcom Adv. Dual 25GbE"``, or a bare ``"Gig Ethernet"`` with the count in
``host_network_card_count``. This module turns them into a total capacity in bytes per second and always
says how it got there. Pure: no IO, never raises; an unparseable description gives a result with
``total_bytes_per_s = None`` and the reason.

Reading order (the first source that yields a speed wins):

1. ``network_speed_mbit`` (a number, Mbit/s per NIC) times the NIC count (``number_of_type_nics_installed``,
   else ``nics_enabled_connected``, else the leading count of ``host_network_card_count``, else 1);
2. ``host_network_card_count`` when it carries speeds itself (``"10x 400Gbe Infiniband"``);
3. ``host_networking``; 4. ``host_networking_topology`` (some submitters put the NIC list there).

Inside one text, segments are split on ``,`` ``;`` ``+`` ``/`` `` and ``. A segment's speed is the first
``<number><unit>`` with unit Gb/Gbe/GbE/Gbps/Gbit/G/GBASE (gigabits), Mb... (megabits), Tb... (terabits), or
GB/s (gigaBYTES), or a named rate (``Gig Ethernet`` = 1 Gb/s, InfiniBand ``NDR`` = 400 Gb/s ...). Its
multiplier is a leading ``N x`` / ``Nx``, a trailing ``x N``, and a port count (``Dual`` / ``2-port``). Text
naming an internal path (``"Data bandwidth for GPU-PCIe: 504GB/s"``) is ignored, and so is a PCIe lane
width (``"PCIe5 x16"``). Several segments with speeds are added up; a plain numeric card count multiplies
the speed only when the text has exactly one speed and no multiplier of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

BITS_PER_BYTE = 8

# Link rates named without a number (IEEE 802.3 / InfiniBand trade names), in Gbit/s.
NAMED_RATES: tuple[tuple[str, float], ...] = (
    (r"\bgig(?:a|abit)?[\s-]*(?:ethernet|e|bit)\b", 1.0),
    (r"\bfast\s+ethernet\b", 0.1),
    (r"\bxdr\b", 800.0),
    (r"\bndr\b", 400.0),
    (r"\bhdr100\b", 100.0),
    (r"\bhdr\b", 200.0),
    (r"\bedr\b", 100.0),
    (r"\bfdr\b", 56.0),
)
UNIT_GBIT = {"t": 1000.0, "g": 1.0, "m": 0.001, "k": 0.000001}
PORTS = {"single": 1, "dual": 2, "quad": 4, "octal": 8}

_SPEED = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*"
    r"(?:(?P<bytes>(?-i:[TGMKtgmk]B(?:/s|ps|ytes?/s))|[tgmk]bytes?/s)"
    r"|(?P<bits>[tgmk](?:igabit|b(?:it)?(?:e|ps|/s|its?/s|its?)?|base[-\w]*|e)?)(?![a-z]))",
    re.IGNORECASE,
)
_LEAD_MULT = re.compile(r"^\s*(\d+)\s*[x×*]\s*(?=\S)", re.IGNORECASE)
_TRAIL_MULT = re.compile(r"(?:^|\s)[x×*]\s*(\d+)\s*$", re.IGNORECASE)
_PORT_WORD = re.compile(r"\b(single|dual|quad|octal)\b", re.IGNORECASE)
_PORT_NUM = re.compile(r"\b(\d+)[\s-]*ports?\b", re.IGNORECASE)
_PCIE_LANES = re.compile(r"\bpci[\s-]*e?\s*(?:gen\s*)?\d*(?:\.\d)?\s*[x×]\s*\d+\b", re.IGNORECASE)
_INTERNAL_PATH = re.compile(r"\bbandwidth\b|gpu-pcie|pcie-nic|nvlink|\bnvswitch\b|\bupi\b|\bqpi\b",
                            re.IGNORECASE)
_ACCEL_LINK = re.compile(r"nvlink|nvswitch|xgmi|infinity\s+fabric|\bici\b", re.IGNORECASE)
_NIC_WORD = re.compile(r"ethernet|infiniband|\bnic\b|\d\s*g(?:b)?e\b|roce|connectx", re.IGNORECASE)
_SPLIT = re.compile(r"[,;+]|\s/\s|\band\b", re.IGNORECASE)
_LEAD_COUNT = re.compile(r"^\s*(\d+)(?![\d.])(?!\s*(?:\.\d|[gmtk]b|gbe|g\b))", re.IGNORECASE)
_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*$")
_NAMED = tuple((re.compile(pattern, re.IGNORECASE), rate) for pattern, rate in NAMED_RATES)


@dataclass(frozen=True)
class NicItem:
    """One parsed piece: ``count`` links of ``gbit_per_link`` Gbit/s, read from ``text``."""

    text: str
    count: int
    gbit_per_link: float

    @property
    def gbit(self) -> float:
        return self.count * self.gbit_per_link


@dataclass(frozen=True)
class NicParse:
    """A parsed network capacity, or why there is none."""

    total_bytes_per_s: float | None
    explanation: str
    source: str | None = None  # the field the speed was read from
    items: tuple[NicItem, ...] = field(default=())
    count: int | None = None  # number of NICs / links, when known

    @property
    def ok(self) -> bool:
        return self.total_bytes_per_s is not None

    @property
    def total_gbit(self) -> float | None:
        return None if self.total_bytes_per_s is None else self.total_bytes_per_s * BITS_PER_BYTE / 1e9

    @property
    def per_link_gbit(self) -> tuple[float, ...]:
        return tuple(sorted({item.gbit_per_link for item in self.items}))


def _fmt(value: float) -> str:
    return f"{value:g}"


def _speed_gbit(segment: str) -> tuple[float | None, str]:
    """The first link speed in a segment, in Gbit/s, with the matched text."""
    cleaned = _PCIE_LANES.sub(" ", segment)
    for match in _SPEED.finditer(cleaned):
        number = float(match.group(1))
        if match.group("bytes"):
            return number * UNIT_GBIT[match.group("bytes")[0].lower()] * BITS_PER_BYTE, match.group(0).strip()
        unit = match.group("bits")
        if unit:
            return number * UNIT_GBIT[unit[0].lower()], match.group(0).strip()
    for pattern, rate in _NAMED:
        found = pattern.search(cleaned)
        if found:
            return rate, found.group(0)
    return None, ""


def _multiplier(segment: str) -> tuple[int, bool, list[str]]:
    """Links described by a segment: (count, explicit?, notes)."""
    cleaned = _PCIE_LANES.sub(" ", segment)
    count, explicit, notes = 1, False, []
    lead = _LEAD_MULT.match(cleaned)
    if lead:
        count, explicit = int(lead.group(1)), True
        notes.append(f"{lead.group(1)}x")
    else:
        trail = _TRAIL_MULT.search(cleaned)
        if trail:
            count, explicit = int(trail.group(1)), True
            notes.append(f"x {trail.group(1)}")
    ports = _PORT_NUM.search(cleaned)
    word = _PORT_WORD.search(cleaned)
    if ports and int(ports.group(1)) > 1:
        count *= int(ports.group(1))
        explicit = True
        notes.append(f"{ports.group(1)} ports")
    elif word and PORTS[word.group(1).lower()] > 1:
        count *= PORTS[word.group(1).lower()]
        explicit = True
        notes.append(f"{word.group(1).lower()}-port")
    return count, explicit, notes


def parse_nic_text(text: object, card_count: int | None = None) -> NicParse:
    """Parse one free-text NIC description; ``card_count`` multiplies a single, un-multiplied speed."""
    if not isinstance(text, str) or not text.strip():
        return NicParse(None, f"no text to parse ({text!r})")
    if _ACCEL_LINK.search(text) and not _NIC_WORD.search(text):
        return NicParse(None, f"{text!r} describes an accelerator interconnect, not a NIC")
    items: list[tuple[NicItem, bool, list[str], str]] = []
    for raw in _SPLIT.split(text):
        segment = raw.strip()
        if not segment or _INTERNAL_PATH.search(segment):
            continue
        speed, matched = _speed_gbit(segment)
        if speed is None or speed <= 0:
            continue
        count, explicit, notes = _multiplier(segment)
        items.append((NicItem(segment, count, speed), explicit, notes, matched))
    if not items:
        return NicParse(None, f"no link speed found in {text!r}")
    parts = []
    final: list[NicItem] = []
    use_count = card_count is not None and card_count > 1 and len(items) == 1 and not items[0][1]
    for item, explicit, notes, matched in items:
        if use_count:
            item = NicItem(item.text, card_count, item.gbit_per_link)
            notes = [f"{card_count} cards (card count)"]
        final.append(item)
        how = " x ".join(notes) if notes else "1 link"
        parts.append(f"'{matched}' = {_fmt(item.gbit_per_link)} Gb/s x {item.count} ({how})")
    total_gbit = sum(item.gbit for item in final)
    explanation = "; ".join(parts) + f" -> {_fmt(total_gbit)} Gb/s = {_fmt(total_gbit * 1e9 / BITS_PER_BYTE)} B/s"
    return NicParse(total_gbit * 1e9 / BITS_PER_BYTE, explanation, None, tuple(final),
                    sum(item.count for item in final))


def parse_count(value: object) -> int | None:
    """A NIC count: an integer, a numeric string, or the leading integer of a text (``"1 Integrated"``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, str):
        match = _LEAD_COUNT.match(value)
        if match:
            return int(match.group(1))
    return None


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if value > 0 else None
    if isinstance(value, str):
        match = _NUMBER.match(value)
        if match and float(match.group(1)) > 0:
            return float(match.group(1))
    return None


#: the fields of a system description :func:`parse_system_network` reads (its result depends on nothing else)
_READ = ("host_network_card_count", "network_speed_mbit", "number_of_type_nics_installed", "nics_enabled_connected",
         "host_networking", "host_networking_topology")
#: the JSON scalar types a parse is remembered for (a value of another type, a list or an object, is parsed each time)
_SCALARS = frozenset({str, int, bool, type(None)})
#: (class, value) of each field read -> the parse; several systems (and the SY014 and BW checks of one system) share
#: their networking text, and a NicParse is frozen
_PARSED: dict[tuple, NicParse] = {}
_PARSED_LIMIT = 1024


def parse_system_network(data: object) -> NicParse:
    """Total network capacity declared by a system description (see the module docstring)."""
    if not isinstance(data, dict):
        return NicParse(None, "the system description is not a JSON object")
    key = []
    for value in map(data.get, _READ):
        kind = value.__class__
        if kind in _SCALARS:
            key.append((kind, value))
        elif kind is float:  # (by its repr: 0.0 and -0.0 are equal but shown apart)
            key.append((kind, repr(value)))
        else:
            return _parse_system_network(data)
    key = tuple(key)
    known = _PARSED.get(key)
    if known is None:
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        known = _PARSED[key] = _parse_system_network(data)
    return known


def _parse_system_network(data: dict) -> NicParse:
    card_text = data.get("host_network_card_count")
    card_count = parse_count(card_text)
    mbit = _number(data.get("network_speed_mbit"))
    if mbit is not None:
        for name in ("number_of_type_nics_installed", "nics_enabled_connected", "host_network_card_count"):
            count = parse_count(data.get(name))
            if count:
                break
        else:
            name, count = None, 1
        total_gbit = mbit / 1000 * count
        how = f"{count} NIC(s) from {name}" if name else "1 NIC (no count given)"
        return NicParse(total_gbit * 1e9 / BITS_PER_BYTE,
                        f"network_speed_mbit {_fmt(mbit)} Mbit/s x {how} -> {_fmt(total_gbit)} Gb/s "
                        f"= {_fmt(total_gbit * 1e9 / BITS_PER_BYTE)} B/s",
                        "network_speed_mbit", (NicItem(str(data.get("network_speed_mbit")), count, mbit / 1000),),
                        count)
    tried = []
    for name in ("host_network_card_count", "host_networking", "host_networking_topology"):
        result = parse_nic_text(data.get(name), None if name == "host_network_card_count" else card_count)
        if result.ok:
            return NicParse(result.total_bytes_per_s, f"{name}: {result.explanation}", name, result.items,
                            result.count)
        tried.append(f"{name}={data.get(name)!r}")
    return NicParse(None, "no link speed found in " + ", ".join(tried) + " (network_speed_mbit empty)",
                    None, (), card_count)
