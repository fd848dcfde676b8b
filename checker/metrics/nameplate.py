"""Nameplate (design) power of a system from its ``systems/<system>_power.yaml`` (rounds-v6.md 6.2).

The YAML is walked through mappings and lists. A mapping with both a ``PSUs`` and a ``Min PSUs Needed``
key (names compared case-insensitively: the official template itself writes ``Min PSUs needed`` once) is
one component: its PSUs' ``PowerCapacityWatts`` (this name exact, missing counts 0) are sorted
largest first and the largest *Min PSUs Needed* of them are added (redundant supplies are not counted).
Every other mapping or list adds up its children; anything else counts 0. The official template (one rack
holding a server and a switch, each with two 1200 W supplies of which one is needed) gives 2400 W.

Where the official tool sums whatever it finds (or crashes on a text where a number belongs), this
module counts what it can and says what it could not: a capacity or PSU count that is not a number, a
component needing more supplies than it lists, a file with no component at all. Pure: the parsed YAML
in, ``(watts, problems)`` out.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Nameplate:
    watts: int | float
    components: int
    problems: tuple[str, ...] = ()


def _key(mapping: dict, name: str):
    """The key of ``mapping`` that equals ``name`` ignoring case, or None."""
    wanted = name.lower()
    return next((k for k in mapping if isinstance(k, str) and k.strip().lower() == wanted), None)


def _number(value) -> int | float | None:
    """A YAML number as it is (an int stays an int: 2400, as the official sum writes it)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _component(node: dict, where: str, problems: list[str]) -> int | float:
    psus = node[_key(node, "PSUs")]
    raw_needed = node[_key(node, "Min PSUs Needed")]
    needed = _number(raw_needed)
    if needed is None or needed != int(needed) or needed < 0:
        problems.append(f"{where}: 'Min PSUs Needed' is {raw_needed!r}, not a whole number")
        return 0
    if not isinstance(psus, list):
        problems.append(f"{where}: 'PSUs' is not a list")
        return 0
    capacities = []
    for i, psu in enumerate(psus):
        if not isinstance(psu, dict) or "PowerCapacityWatts" not in psu:  # the name is exact here
            problems.append(f"{where}/PSUs/{i}: no PowerCapacityWatts (counted as 0)")
            capacities.append(0)
            continue
        watts = _number(psu["PowerCapacityWatts"])
        if watts is None or watts < 0:
            problems.append(f"{where}/PSUs/{i}: PowerCapacityWatts is {psu['PowerCapacityWatts']!r}, not a "
                            "number of watts (counted as 0)")
            watts = 0
        capacities.append(watts)
    if int(needed) > len(capacities):
        problems.append(f"{where}: needs {int(needed)} PSUs but lists {len(capacities)}")
    return sum(sorted(capacities, reverse=True)[:int(needed)])


MAX_NODES = 100_000  # YAML aliases can make a small file a huge tree: stop walking there


def design_power(data) -> Nameplate:
    """The design power of a parsed nameplate YAML."""
    problems: list[str] = []
    components = 0
    total: int | float = 0
    stack = [(data, "")]
    visited = 0
    while stack:
        node, where = stack.pop()
        visited += 1
        if visited > MAX_NODES:
            problems.append(f"more than {MAX_NODES} entries; the sum stops there")
            break
        if isinstance(node, dict):
            if _key(node, "PSUs") is not None and _key(node, "Min PSUs Needed") is not None:
                components += 1
                total += _component(node, where or "/", problems)
                continue
            stack.extend((value, f"{where}/{key}") for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, f"{where}/{i}") for i, value in enumerate(node))
    if components == 0:
        problems.append("no component with 'PSUs' and 'Min PSUs Needed'")
    return Nameplate(watts=total, components=components, problems=tuple(sorted(problems)))
