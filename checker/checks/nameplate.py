"""Nameplate power checks (PW, system scope): a system's `systems/<system>_power.yaml` in rounds that define
one (v6.1: rounds-v6.md 6.2). The file is optional; these checks look only at one that exists.

The sum itself is :mod:`checker.metrics.nameplate` (per component, the largest *Min PSUs Needed* PSU
capacities; the official template gives 2400 W); the loader reads the file once (``SystemCtx.nameplate``).
"""

from __future__ import annotations

import re

from checker.checks.base import check, finding

# a declared design power as system descriptions write it: 2400, "2400", "2400 W", "2.4 kW", "2400 watts"
_WATTS = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(w|watts?|kw|kilowatts?)?\s*$", re.IGNORECASE)


def _declared_watts(value) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    match = _WATTS.match(value) if isinstance(value, str) else None
    if not match:
        return None
    number = float(match.group(1))
    return number * 1000 if (match.group(2) or "").lower().startswith("k") else number


@check("PW024", "nameplate-power-unusable", "system")
def nameplate_power_unusable(ctx, rules):
    """A system's nameplate power YAML exists but gives no design power.

    What it checks: `systems/<system>_power.yaml`, where the round defines one and the file exists, is
    UTF-8 YAML that loads as something, holds at least one component (a mapping with `PSUs` and
    `Min PSUs Needed`), and every count and capacity in it is a number.
    Why: rounds-v6.md 6.2. The official checker loads the file of every system: a syntax error crashes
    its whole run (L13), an empty file rejects the system's power results, and a capacity written as
    text ("1200 W") crashes the sum or is silently added as 0. mlpc reports the file and what it could
    not count, and goes on.
    Failing example: `PowerCapacityWatts: 1.2 kW` or an empty `XE9712x18_power.yaml`.
    How to fix: follow the template of the submission structure (numbers of watts, `Min PSUs Needed`
    per component), or remove the file when the system has no power result.
    Data used: `nameplate_power_path`. Not stricter than the official checker for power systems; for a
    system without power results mlpc also reports an empty or uncountable file, which the official
    checker ignores.
    """
    if ctx.nameplate_rel is None:
        return
    if ctx.nameplate is None:
        yield finding(ctx.nameplate_rel, f"nameplate power YAML gives no design power: {ctx.nameplate_error}",
                      expected="a YAML file with the PSUs of each component", actual=ctx.nameplate_error,
                      hint="follow the <system>_power.yaml template, or remove the file")
        return
    for problem in ctx.nameplate.problems:
        yield finding(ctx.nameplate_rel, f"nameplate power cannot be counted: {problem}",
                      expected="numbers of watts and PSU counts", actual=problem,
                      hint="write PowerCapacityWatts as a number of watts and Min PSUs Needed as a whole number")


@check("PW025", "design-power-disagrees-with-nameplate", "system", stricter=True)
def design_power_disagrees_with_nameplate(ctx, rules):
    """The system description's design power is not the sum of its nameplate power YAML.

    What it checks: where a system has both `system_power_capacity` in its description and a countable
    `systems/<system>_power.yaml`, the declared value (a number of watts, or a text such as "2400 W" or
    "2.4 kW") equals the YAML's sum.
    Why: rounds-v6.md 6.2: the official checker publishes `system_power_capacity` verbatim as
    `design_power_watts` and then ignores the YAML, so a declared value can be lower than the
    equipment it lists, and a text that is not a number of watts is published as it is.
    Failing example: `"system_power_capacity": "2000 W"` next to a YAML whose PSUs sum to 2400 W.
    How to fix: declare the YAML's sum (or fix the YAML), in watts.
    Data used: `nameplate_power_path`. Stricter than official: yes.
    """
    plate = ctx.nameplate
    data = ctx.data if isinstance(ctx.data, dict) else {}
    if plate is None or plate.problems or "system_power_capacity" not in data:
        return
    declared = data["system_power_capacity"]
    watts = _declared_watts(declared)
    if watts is None:
        yield finding(ctx.rel, f"system_power_capacity {declared!r} is not a number of watts; "
                               f"{ctx.nameplate_rel} sums to {plate.watts} W",
                      expected=f"{plate.watts} (watts)", actual=repr(declared), pointer="/system_power_capacity",
                      hint="write the design power as a number of watts")
    elif abs(watts - plate.watts) > 1e-6 * max(1.0, plate.watts):
        yield finding(ctx.rel, f"system_power_capacity {declared!r} differs from the {plate.watts} W that "
                               f"{ctx.nameplate_rel} sums to",
                      expected=plate.watts, actual=declared, pointer="/system_power_capacity",
                      hint="declare the sum of the nameplate YAML, or correct the YAML")


CHECKS = (nameplate_power_unusable, design_power_disagrees_with_nameplate)
