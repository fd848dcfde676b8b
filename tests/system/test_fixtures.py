"""One failing fixture tree per new SY / BW code emits exactly that code (among SY/BW codes); PASS emits none."""

from __future__ import annotations

from pathlib import Path

import pytest

from checker.checks import bandwidth, system
from checker.pipeline import check_tree
from checker.loaders.rules import available_rounds, load_rules

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "system"
NEW_CODES = sorted(c.code for c in system.CHECKS + bandwidth.CHECKS if c.code >= "SY010" or c.code.startswith("BW"))
SECTIONS = ("What it checks:", "Why:", "Failing example:", "How to fix:", "Data used:", "Stricter than official:")


def _codes(path: Path) -> set[str]:
    report = check_tree(str(path), load_rules("v4.1"))
    assert not [f for f in report.findings if f.code == "TL001"], "a check crashed"
    return {f.code for f in report.findings if f.code[:2] in ("SY", "BW")}


@pytest.mark.parametrize("code", NEW_CODES)
def test_fixture_emits_exactly_its_code(code) -> None:
    assert (FIXTURES / code).is_dir(), f"fixtures/system/{code} is missing"
    assert _codes(FIXTURES / code) == {code}


def test_pass_twin_is_clean() -> None:
    assert _codes(FIXTURES / "PASS") == set()


@pytest.mark.parametrize("item", [c for c in system.CHECKS + bandwidth.CHECKS if c.code in NEW_CODES],
                         ids=lambda c: c.code)
def test_docstring_sections(item) -> None:
    for section in SECTIONS:
        assert section in item.doc, f"{item.code} docstring lacks {section!r}"
    assert item.stricter


@pytest.mark.parametrize("round_name", available_rounds())
def test_every_round_grades_the_new_codes(round_name) -> None:
    severities = load_rules(round_name).severities
    assert [c for c in NEW_CODES if c not in severities] == []
