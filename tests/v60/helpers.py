"""Writable copies of real v6.0 submitters, edited the way a submitter hoping for a better number would."""

from __future__ import annotations

import json
import os
import shutil

from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from tests.conftest import real_tree


def copy_submitter(tmp_path, division_submitter: str) -> str:
    """A copy of ``<division>/<submitter>`` of the real v6.0 tree under ``tmp_path``; returns the root."""
    src = os.path.join(real_tree("v6.0"), division_submitter)
    root = tmp_path / "tree"
    shutil.copytree(src, root / division_submitter, symlinks=True)
    return str(root)


def result_dir(root: str, division_submitter: str, model: str, scenario: str) -> str:
    results = os.path.join(root, division_submitter, "results")
    for system in sorted(os.listdir(results)):
        path = os.path.join(results, system, model, scenario)
        if os.path.isdir(path):
            return path
    raise AssertionError(f"no {model}/{scenario} under {results}")


def set_log_values(path: str, **values) -> None:
    """Replace the value of each named key in a LoadGen detail log (every occurrence)."""
    lines = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith(":::MLLOG "):
                entry = json.loads(line[len(":::MLLOG "):])
                if entry.get("key") in values:
                    entry["value"] = values[entry["key"]]
                    line = ":::MLLOG " + json.dumps(entry) + "\n"
            lines.append(line)
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(lines)


def add_log_entry(path: str, key: str, value, *, error: bool = False) -> None:
    entry = {"key": key, "value": value, "time_ms": 1.0, "namespace": "mlperf::logging", "event_type": "POINT_IN_TIME",
             "metadata": {"is_error": error, "is_warning": False, "file": "edit", "line_no": 1, "pid": 1, "tid": 1}}
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(":::MLLOG " + json.dumps(entry) + "\n")


def replace_text(path: str, old: str, new: str) -> None:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert old in text, (path, old)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text.replace(old, new))


def check(root: str, profile: str = "default"):
    return check_tree(root, load_rules("v6.0"), profile=profile)


def codes_for(report, result: str, severity: str = "error") -> set[str]:
    """Codes of the findings of ``severity`` that concern the result folder ``result`` (absolute path)."""
    rel = os.path.relpath(result, report.root).replace(os.sep, "/")
    return {f.code for f in report.findings if f.severity.value == severity and f.result_id
            and (rel == f.result_id or rel.startswith(f.result_id + "/"))}


def verdict(report, result: str) -> bool:
    rel = os.path.relpath(result, report.root).replace(os.sep, "/")
    return next(r.valid for r in report.results if r.id == rel)
