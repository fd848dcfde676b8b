"""Seeds have one home, the round file (rules/<round>.yaml): the compliance tests' round data
(audits/rounds.yaml) takes them from there and may not name them again."""

import shutil

import pytest

from checker.diagnostics import MlpcError
from checker.loaders.audit_spec import AUDITS_DIR, load_rounds
from checker.loaders.rules import load_rules


def test_the_audit_rounds_take_their_seeds_from_the_round_files():
    rounds = load_rounds()
    assert rounds.rounds
    for name, info in rounds.rounds.items():
        rules = load_rules(name)
        assert info.seeds.as_dict() == rules.seeds.model_dump()
        assert (info.test05_seeds.as_dict() if info.test05_seeds else None) == \
            (rules.test05_seeds.model_dump() if rules.test05_seeds else None)
    assert load_rounds().rounds["v4.1"].test05_seeds is not None  # TEST05 existed until v5.0


def test_seeds_named_again_in_rounds_yaml_are_refused(tmp_path):
    shutil.copytree(AUDITS_DIR, tmp_path / "audits")
    path = tmp_path / "audits" / "rounds.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("  v5.1:\n", "  v5.1:\n    seeds: {qsl_rng_seed: 1, sample_index_rng_seed: 2, "
                                 "schedule_rng_seed: 3}\n", 1), encoding="utf-8")
    with pytest.raises(MlpcError, match="v5.1: seeds belong in rules/v5.1.yaml"):
        load_rounds(str(tmp_path / "audits"))


def test_a_round_without_a_round_file_is_refused(tmp_path):
    shutil.copytree(AUDITS_DIR, tmp_path / "audits")
    path = tmp_path / "audits" / "rounds.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("  v5.1:\n", "  v9.9:\n    accuracy_log_rng_seed: 1\n  v5.1:\n", 1), encoding="utf-8")
    with pytest.raises(MlpcError, match="unknown round 'v9.9'"):
        load_rounds(str(tmp_path / "audits"))
