"""The profiles a check runs under (``--profile``): named sets of severity overrides on top of the round file.
A module of its own, so that what only needs the names (the command line, the warm path of the cache) does
not import the engine and its checks."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Profile:
    """A named set of severity overrides (``--profile``) applied on top of the round file."""

    name: str = "default"
    # severity overrides applied on top of the round file (smoke relaxes run-length checks); a round file may
    # add its own for a profile (`profiles:`: the official profile of v6.0)
    overrides: tuple[tuple[str, str], ...] = ()


# default: the rules, as the round file grades them; official: the round's official checker's verdicts where
# they knowingly differ from the rules (the round file's profiles.official); smoke: short test runs
PROFILES = {
    "default": Profile(),
    "official": Profile("official"),
    "smoke": Profile("smoke", (("PF001", "info"), ("PF006", "info"), ("PF009", "info"), ("PF010", "info"),
                               ("PF004", "info"), ("PF008", "info"), ("AC001", "info"), ("AC005", "info"),
                               ("AC009", "info"))),
}
