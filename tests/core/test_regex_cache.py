"""Compiled regular expressions kept across runs (checker.regex_cache, in files checker.kept_file writes): a
pattern built from kept arguments is the pattern ``re`` builds, a file it cannot use is ignored, an entry
``_sre`` refuses is compiled the plain way, and a check's workers keep what they compiled. Each case that
installs it runs in a fresh interpreter (installing it changes ``re`` for the whole process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from checker import kept_file

PROGRAM = r"""
import json, re, sys
from checker import regex_cache
if sys.argv[2] == "cached":
    regex_cache.install(sys.argv[1])
plain = []
if regex_cache._plain is not None:
    real = regex_cache._plain
    regex_cache._plain = lambda p, f=0: plain.append(p) or real(p, f)
cases = [(r"(?P<year>\d{4})-(?P<month>\d\d)", 0, "on 2026-11 and 1999-01"),
         (r"(?<![a-z0-9])(fp16|bf16|int8)(?![a-z0-9])", re.I, "BF16 xint8 int8"),
         (r"^accuracy=([\d\.]+).*", re.M, "x\naccuracy=76.46 rest"),
         (rb"\x00+(ab|cd)", 0, b"z\x00\x00cd"),
         (r"caf\u00e9|na\u00efve", re.I | re.ASCII, "CAF\u00c9 na\u00efve")]
out = []
for pattern, flags, text in cases:
    made = re.compile(pattern, flags)
    found = [m.span() + (m.groups(),) for m in made.finditer(text)]
    out.append([repr(made), made.flags, made.groups, dict(made.groupindex), repr(found)])
print(json.dumps({"out": out, "plain": len(plain), "held": len(regex_cache._held), "new": regex_cache._new}))
regex_cache.save()
"""


def _run(folder, mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROGRAM, str(folder), mode], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})
    return json.loads(done.stdout)


def _file(folder) -> str:
    return kept_file.path_of(str(folder), "regex")


def test_kept_patterns_are_the_patterns_re_builds(tmp_path):
    plain = _run(tmp_path, "plain")
    first = _run(tmp_path, "cached")  # compiles each (re's way) and keeps the arguments
    second = _run(tmp_path, "cached")  # builds each from the file
    assert os.path.isfile(_file(tmp_path))
    assert first["new"] is True and first["plain"] == 5 and first["held"] >= 5
    assert second["new"] is False and second["plain"] == 0
    assert plain["out"] == first["out"] == second["out"]


@pytest.mark.parametrize("content", [b"", b"garbage", None])
def test_a_file_it_cannot_use_is_ignored(tmp_path, content):
    os.makedirs(tmp_path / "__pycache__")
    if content is None:  # another Python's: right format, other header
        import marshal

        content = b"2.7.18 other\n4\n" + marshal.dumps({("x", 0): marshal.dumps((0, [1], 0, {}, (None,)))})
    with open(_file(tmp_path), "wb") as handle:
        handle.write(content)
    got = _run(tmp_path, "cached")
    assert got["plain"] == 5 and got["out"] == _run(tmp_path, "plain")["out"]
    assert _run(tmp_path, "cached")["plain"] == 0  # replaced by a good one


def test_an_entry_sre_refuses_is_compiled_the_plain_way(tmp_path):
    import marshal

    from checker.regex_cache import _HEADER

    entries = {(r"(?P<year>\d{4})-(?P<month>\d\d)", 0): marshal.dumps((32, [999, 999], 2, {}, (None,)))}
    os.makedirs(tmp_path / "__pycache__")
    with open(_file(tmp_path), "wb") as handle:
        handle.write(_HEADER + marshal.dumps(entries))
    got = _run(tmp_path, "cached")
    assert got["plain"] == 5 and got["out"] == _run(tmp_path, "plain")["out"]


def test_a_write_keeps_what_another_process_wrote_since(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path, head = str(tmp_path / "__pycache__" / "x.marshal"), kept_file.header("test")
    kept_file.write(path, head, {"a": (1, 2)}, {"a"})
    kept_file.write(path, head, {"b": [3]}, {"b"})  # (as a second worker would, having read the file before)
    held = kept_file.read(path, head)
    assert sorted(held) == ["a", "b"]
    assert kept_file.entry(held, "a", tuple) == (1, 2) and kept_file.entry(held, "b", list) == [3]
    again = kept_file.read(path, head)
    assert kept_file.entry(again, "b", tuple) is None and "b" not in again  # not what was asked for: dropped


def _square(x):
    return x * x


def test_workers_run_the_exit_function_before_they_end(tmp_path):
    from checker import forkpool

    if not forkpool.available():
        pytest.skip("no fork here")
    marks = tmp_path / "marks"
    marks.mkdir()
    answers: list = []
    forkpool.run(_square, list(range(6)), 2, lambda i, v: answers.append(v),
                 at_exit=lambda: (marks / str(os.getpid())).write_text("done"))
    assert sorted(answers) == [0, 1, 4, 9, 16, 25]
    assert len(os.listdir(marks)) == 2 and str(os.getpid()) not in os.listdir(marks)
