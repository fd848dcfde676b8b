"""One code, one fixture, one doc: every check has a failing fixture tree that emits it."""

import os
import subprocess
import sys

import pytest

from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from checker.registry import ALL_CHECKS
from tests.conftest import REPO

sys.path.insert(0, os.path.join(REPO, "fixtures"))
import make_check_fixtures as gen  # noqa: E402

FIXTURES = os.path.join(REPO, "fixtures", "checks")
SECTIONS = ("What it checks:", "Why:", "Failing example:", "How to fix:", "Data used:")
OTHER_FIXTURE_ROOTS = [os.path.join(REPO, "fixtures", d) for d in ("power", "system", "compliance", "plausibility",
                                                                    "endpoint", "nameplate")]


def _fixture_codes():
    return sorted(d for d in os.listdir(FIXTURES) if not d.startswith("_"))


def _bases():
    return sorted(d for d in os.listdir(FIXTURES) if d == "_base" or d.startswith("_base_"))


@pytest.mark.parametrize("base", _bases())
def test_base_tree_is_clean(base):
    report = check_tree(os.path.join(FIXTURES, base), load_rules(gen.fixture_round(base)))
    assert report.findings == []
    assert report.results and all(r.valid for r in report.results)


def _tree(name, tmp_path):
    """The committed tree, or one built now for trees git cannot hold (ignored or empty folders)."""
    if name not in gen.NOT_COMMITTED:
        return os.path.join(FIXTURES, name)
    root = str(tmp_path / name)
    gen.build(name, root)
    return root


@pytest.mark.parametrize("code", _fixture_codes())
def test_fixture_emits_its_code(code, tmp_path):
    report = check_tree(_tree(code, tmp_path), load_rules(gen.fixture_round(code)))
    codes = {f.code for f in report.findings}
    assert code in codes
    assert codes - {code} <= gen.CONSEQUENCES.get(code, set()), f"unexpected extra codes {codes - {code}}"


def test_build_matches_the_committed_trees(tmp_path):
    for name in ("_base", "_base_resnet", "CP014", "ST001"):
        gen.build(name, str(tmp_path / name))
        assert gen.same_tree(str(tmp_path / name), os.path.join(FIXTURES, name)), name


def test_every_base_and_round_is_used():
    assert set(_bases()) == {"_base"} | {f"_base_{name}" for name in gen.BASES}
    assert {base for base, _ in gen.OTHER_MUTATIONS.values()} == set(gen.BASES)
    assert not set(gen.MUTATIONS) & set(gen.OTHER_MUTATIONS)


def test_every_code_has_a_fixture_or_a_stated_reason():
    have = set(_fixture_codes())
    for root in OTHER_FIXTURE_ROOTS:
        if os.path.isdir(root):
            have |= {d for d in os.listdir(root) if len(d) == 5}
    missing = [c.code for c in ALL_CHECKS if c.code not in have and c.code not in gen.ELSEWHERE]
    assert missing == [], f"checks without a failing fixture: {missing}"
    assert sorted(set(gen.ELSEWHERE) & set(_fixture_codes())) == [], "a code with a fixture is still in ELSEWHERE"
    vague = [code for code, reason in gen.ELSEWHERE.items() if "NO FIXTURE YET" in reason.upper()]
    assert vague == [], f"ELSEWHERE must say why a code has no fixture here: {vague}"


MAX_FIXTURE_BYTES = 100_000  # file content of one tree
MAX_TOTAL_BYTES = 3_000_000  # file content of fixtures/checks/


def test_fixtures_are_small():
    total = 0
    for name in os.listdir(FIXTURES):
        size = sum(os.lstat(os.path.join(d, f)).st_size for d, _, files in os.walk(os.path.join(FIXTURES, name))
                   for f in files)
        assert size <= MAX_FIXTURE_BYTES, f"fixtures/checks/{name} holds {size} bytes"
        total += size
    assert total <= MAX_TOTAL_BYTES, f"fixtures/checks holds {total} bytes"


@pytest.mark.parametrize("item", ALL_CHECKS, ids=lambda c: c.code)
def test_docstring_has_the_fixed_sections(item):
    assert item.summary and not item.summary.startswith(SECTIONS)
    for section in SECTIONS:
        assert section in item.doc, f"{item.code} docstring lacks '{section}'"


def test_codes_are_unique_and_names_kebab_case():
    codes = [c.code for c in ALL_CHECKS]
    assert len(codes) == len(set(codes))
    for c in ALL_CHECKS:
        assert c.name == c.name.lower() and " " not in c.name and "_" not in c.name


def test_committed_fixtures_are_not_stale():
    result = subprocess.run([sys.executable, os.path.join(REPO, "fixtures", "make_check_fixtures.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_large_file_fixture(tmp_path):
    import shutil
    root = tmp_path / "tree"
    shutil.copytree(os.path.join(FIXTURES, "_base"), root, symlinks=True)
    big = root / "closed/Acme/code/gptj-99/weights.bin"
    with open(big, "wb") as handle:
        handle.truncate(50 * 1024 * 1024 + 1)  # sparse: no real disk use
    report = check_tree(str(root), load_rules("v4.1"))
    assert {f.code for f in report.findings} == {"ST006"}
