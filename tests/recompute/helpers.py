"""Shared helpers for the recompute tests: fixture trees, tree digests, synthetic detail logs."""

from __future__ import annotations

import hashlib
import json
import os
import shutil

from checker.pipeline import check_tree
from checker.loaders.loadgen_log import parse_detail_text
from checker.loaders.rules import load_rules
from tests.conftest import REPO

BASE = os.path.join(REPO, "fixtures", "checks", "_base")
SUB = "closed/Acme"
RES = f"{SUB}/results/edge_sys/gptj-99"
MEAS = f"{SUB}/measurements/edge_sys/gptj-99"
NEW_CODES = ("AC010", "AC011", "PF019", "PF020")


def base_tree(tmp_path, name="tree"):
    root = tmp_path / name
    shutil.copytree(BASE, root, symlinks=True)
    return root


def check(root, round_name="v4.1"):
    report = check_tree(str(root), load_rules(round_name))
    assert not any(f.code in ("TL001",) for f in report.findings), [f.message for f in report.findings]
    return report


def findings(report, code):
    return [f for f in report.findings if f.code == code]


def tree_digest(root) -> str:
    """sha256 over every path, file content, link target and file mode below root (order-independent)."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        rel_dir = os.path.relpath(dirpath, root)
        digest.update(f"D {rel_dir} {oct(os.lstat(dirpath).st_mode)}\n".encode())
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if os.path.islink(path):
                digest.update(f"L {rel_dir}/{name} -> {os.readlink(path)}\n".encode())
                continue
            digest.update(f"F {rel_dir}/{name} {oct(st.st_mode)} {st.st_mtime_ns}\n".encode())
            with open(path, "rb") as handle:
                digest.update(hashlib.sha256(handle.read()).digest())
    return digest.hexdigest()


def mllog(values: dict) -> str:
    return "".join(":::MLLOG " + json.dumps({"key": k, "value": v}) + "\n" for k, v in values.items())


def detail(values: dict):
    return parse_detail_text(mllog(values), "<test>")


def acc_log(entries: int, data: str = "0A0B") -> bytes:
    """A LoadGen-style accuracy log (``[`` entries joined by ``,\\n`` ``]``)."""
    body = ",\n".join(json.dumps({"seq_id": i, "qsl_idx": i, "data": data}) for i in range(entries))
    return ("[\n" + body + "\n]\n").encode()
