"""The compliance verification names its paths relative to the submission root without ``os.path.relpath``
when the path is already normalised and lies below the root; the answer must be relpath's."""

from __future__ import annotations

import os

from hypothesis import example, given, settings
from hypothesis import strategies as st

from checker.audit.compliance import _Ctx, _plain

PARTS = st.sampled_from(["a", "b", "closed", "TEST01", ".", "..", "", ".x", "x.", "..y", " ", "é", "a b"])


def _ctx(root: str) -> _Ctx:
    return _Ctx(record=None, model="m", model_dir="m", scenario="Offline", spec=None, run_scenario="Offline",
                rel_root=root)


def _relpath(path: str, root: str) -> str:
    try:
        return os.path.relpath(path, root).replace(os.sep, "/")
    except ValueError:
        return path


@settings(max_examples=500)
@given(st.lists(PARTS, min_size=0, max_size=4), st.lists(PARTS, min_size=0, max_size=5),
       st.sampled_from(["/", "//", "", "tmp/"]), st.sampled_from(["", "/", "/.", "/.."]))
@example(["a"], ["x", "..", "b"], "/", "")
@example(["a"], ["x", ".", "b"], "/", "")
@example(["a"], ["x", "", "b"], "/", "")
@example(["a", "b"], ["x"], "//", "")
def test_rel_is_relpath(root_parts, tail_parts, start, end):
    root = start + "/".join(root_parts)
    for path in (root + "/" + "/".join(tail_parts) + end, root + end, "/elsewhere/" + "/".join(tail_parts)):
        assert _ctx(root).rel(path) == _relpath(path, root), (path, root)


def test_plain_paths():
    assert _plain("/work/tree/closed/X")
    assert _plain("/a/.hidden/b..c")
    for path in ("work/tree", "//work", "/a//b", "/a/./b", "/a/../b", "/a/", "/a/.", "/a/..", "/"):
        assert not _plain(path), path


def test_rel_of_real_paths():
    ctx = _ctx("/work/shared/real_submissions/v4.1")
    path = "/work/shared/real_submissions/v4.1/closed/NVIDIA/compliance/sys/resnet50/Offline/TEST01/verify_accuracy.txt"
    assert ctx.rel(path) == "closed/NVIDIA/compliance/sys/resnet50/Offline/TEST01/verify_accuracy.txt"
    assert ctx.rel("/work/shared/real_submissions/v4.10/x") == "../v4.10/x"
