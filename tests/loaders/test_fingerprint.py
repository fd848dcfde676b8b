"""Reports say which checker made them: the mlpc version and a fingerprint of its source and data."""

import hashlib
import os
import re

from checker.loaders import fingerprint
from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from checker.reporters import json_report
from tests.conftest import BASE_TREE



def test_a_report_carries_the_version_and_fingerprint():
    report = check_tree(BASE_TREE, load_rules("v4.1"))
    assert report.tool_version == fingerprint.version()
    assert re.fullmatch(r"[0-9a-f]{64}", report.fingerprint)
    assert '"fingerprint": "%s"' % report.fingerprint in json_report.render(report)


def test_the_fingerprint_follows_source_and_data(monkeypatch):
    fingerprint.checker_fingerprint.cache_clear()
    try:
        first = fingerprint.checker_fingerprint()
        monkeypatch.setattr(fingerprint, "data_folders_digest", lambda: "other tables")
        fingerprint.checker_fingerprint.cache_clear()
        other_data = fingerprint.checker_fingerprint()
        monkeypatch.setattr(fingerprint, "package_digest", lambda: "other code")
        fingerprint.checker_fingerprint.cache_clear()
        other_code = fingerprint.checker_fingerprint()
        assert len({first, other_data, other_code}) == 3
    finally:
        fingerprint.checker_fingerprint.cache_clear()


def test_the_data_digest_covers_names_and_contents(tmp_path):
    (tmp_path / "a.yaml").write_text("x: 1\n")
    one = fingerprint.data_digest(str(tmp_path))
    (tmp_path / "a.yaml").write_text("x: 2\n")
    two = fingerprint.data_digest(str(tmp_path))
    os.rename(tmp_path / "a.yaml", tmp_path / "b.yaml")
    three = fingerprint.data_digest(str(tmp_path))
    assert len({one, two, three}) == 3
    assert one == hashlib.sha256(b"a.yaml\0" + hashlib.sha256(b"x: 1\n").digest()).hexdigest()
