"""Counted nouns in messages: "1 warning", "2 warnings"."""

from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun, singular for exactly one (``plural`` for irregular forms)."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
