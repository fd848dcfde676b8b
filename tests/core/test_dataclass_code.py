"""The bytecode cache of the methods ``@dataclass`` writes (``checker.dataclass_code``): classes made through it
behave as classes made without it, the cache is written and read back, and a file it cannot use is ignored.
Each case runs in a fresh interpreter (installing it changes ``dataclasses`` for the whole process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROGRAM = r"""
import json, sys
use = sys.argv[2] == "cached"
if use:
    from checker import dataclass_code
    dataclass_code.install(sys.argv[1])
from dataclasses import dataclass, field, FrozenInstanceError, replace, fields, asdict

@dataclass(frozen=True, order=True)
class Point:
    x: int
    y: int = 2
    tags: tuple = ()

@dataclass
class Box:
    items: list = field(default_factory=list)
    name: str = "box"
    def add(self, v):
        self.items.append(v)

p, q = Point(1), Point(1, 3, ("a",))
b = Box()
b.add(p)
try:
    p.x = 5
    frozen = "no error"
except FrozenInstanceError:
    frozen = "FrozenInstanceError"
out = {"repr": [repr(p), repr(q), repr(b)], "eq": [p == Point(1), p == q, p < q], "hash": hash(p) == hash(Point(1)),
       "frozen": frozen, "replace": repr(replace(q, y=9)), "fields": [f.name for f in fields(Point)],
       "asdict": repr(asdict(b)), "defaults": repr(Box().items is Box().items),
       "annotations": repr(Point.__init__.__annotations__), "init_code": Point.__init__.__code__.co_code.hex()}
if use:
    out["held"] = len(dataclass_code._codes)
    out["new"] = dataclass_code._new
print(json.dumps(out))
"""


def _run(folder: str, mode: str, *flags: str) -> dict:
    done = subprocess.run([sys.executable, *flags, "-c", PROGRAM, folder, mode], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})
    return json.loads(done.stdout)


def _cache_file(folder) -> str:
    return os.path.join(folder, "__pycache__", f"dataclass-methods.{sys.implementation.cache_tag}.marshal")


def test_classes_made_through_the_cache_behave_the_same(tmp_path):
    plain = _run(str(tmp_path), "plain")
    first = _run(str(tmp_path), "cached")  # compiles and writes the cache
    second = _run(str(tmp_path), "cached")  # reads it: compiles nothing
    assert os.path.isfile(_cache_file(tmp_path))
    assert first.pop("new") is True and second.pop("new") is False
    assert first.pop("held") == second.pop("held") > 0
    assert plain == first == second


def test_no_file_is_written_where_bytecode_is_not(tmp_path):
    result = _run(str(tmp_path), "cached", "-B")
    assert result["new"] is True and not os.path.exists(_cache_file(tmp_path))


@pytest.mark.parametrize("content", [b"", b"garbage", b"3.0.0\n4\n\x00\x01", None])
def test_a_file_it_cannot_use_is_ignored_and_replaced(tmp_path, content):
    os.makedirs(tmp_path / "__pycache__")
    if content is None:  # a file written by another Python: right format, other header
        import marshal

        content = b"2.7.18 other\n4\n" + marshal.dumps({"x": 1})
    with open(_cache_file(tmp_path), "wb") as handle:
        handle.write(content)
    first = _run(str(tmp_path), "cached")
    assert first["new"] is True and first["repr"] == _run(str(tmp_path), "plain")["repr"]
    assert _run(str(tmp_path), "cached")["new"] is False  # replaced by a good one


def test_the_cli_installs_it_before_its_dataclasses_are_made():
    """Every dataclass of the checker imported by the CLI module has its methods from the cache."""
    program = ("import dataclasses, checker.cli, checker.pipeline; from checker import dataclass_code as d; "
               "print(dataclasses.exec is d._exec, len(d._used) > 300)")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True"]


KEPT = r"""
import json, sys
from checker import dataclass_code
if sys.argv[2] == "cached":
    dataclass_code.install(sys.argv[1])
scope = {}
exec(dataclass_code.compile_kept("def make(a, b=2):\n    return (a, b)\n", "<shape Pair>"), scope)
from checker.models.assessment_shapes import FLAG  # (a shape of the checker: compiled the same way)
print(json.dumps({"make": scope["make"](1), "file": scope["make"].__code__.co_filename, "new": dataclass_code._new,
                  "shapes": sorted(k.split("\n")[0] for k in dataclass_code._codes if k.startswith("<shape "))}))
"""


def test_generated_code_of_the_record_shapes_is_kept_too(tmp_path):
    def run(mode):
        done = subprocess.run([sys.executable, "-c", KEPT, str(tmp_path), mode], capture_output=True, text=True,
                              check=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": ""})
        return json.loads(done.stdout)

    plain, first, second = run("plain"), run("cached"), run("cached")
    assert plain == {"make": [1, 2], "file": "<shape Pair>", "new": False, "shapes": []}
    assert first["new"] is True and second["new"] is False
    assert first["make"] == second["make"] == [1, 2] and second["file"] == "<shape Pair>"
    assert "<shape Pair>" in second["shapes"] and "<shape Flag>" in second["shapes"]


def test_entries_are_read_when_first_asked_and_an_unreadable_one_is_compiled_again():
    import marshal

    from checker import dataclass_code as d

    code = compile("x = 1\n", "<string>", "exec")
    d._codes.update({"test-good": marshal.dumps(code), "test-bad": b"\x00garbage", "test-other": marshal.dumps(5)})
    try:
        assert d._held("test-good") == code and d._codes["test-good"] == code  # read once, then kept as code
        assert d._held("test-bad") is None and "test-bad" not in d._codes
        assert d._held("test-other") is None and "test-other" not in d._codes  # not a code object
        assert d._held("test-missing") is None
    finally:
        for key in ("test-good", "test-bad", "test-other"):
            d._codes.pop(key, None)
