"""Private IDs of systems (rounds-v6.md 6.3): a stable, anonymous name for a system folder.

``h = sha256(folder name as UTF-8)``; the ID is ``<adjectives[h[0] mod n]>-<nouns[h[1] mod n]>-<hex of
h[2] and h[3]>`` with the official word lists (``rules/private_ids.yaml``). Pure: the lists are passed in.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence


def private_id(system: str, adjectives: Sequence[str], nouns: Sequence[str]) -> str:
    """The private ID of the system folder ``system`` (the ``results/<system>`` name, not system_name)."""
    if not adjectives or not nouns:
        raise ValueError("the word lists must not be empty")
    h = hashlib.sha256(system.encode("utf-8")).digest()
    return f"{adjectives[h[0] % len(adjectives)]}-{nouns[h[1] % len(nouns)]}-{h[2]:02x}{h[3]:02x}"
