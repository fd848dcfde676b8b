"""The cache of the data files' parsed YAML (``checker.loaders.data_cache``) is invisible: every data file of the
repository reads as ``yaml_text.safe_load`` reads it, with the cache cold and warm; a changed file is parsed again; a
cache folder that cannot be written, or ``PYTHONDONTWRITEBYTECODE``, changes nothing but the writing; bad files fail
as they did."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import pytest

from checker.loaders import data_cache, yaml_text
from checker.loaders.data_files import data_dir

DATA_FILES = sorted(glob.glob(os.path.join(data_dir("rules"), "**", "*.yaml"), recursive=True)
                    + glob.glob(os.path.join(data_dir("audits"), "**", "*.yaml"), recursive=True))


def plain(path, stream: bool):
    """How the loaders read a data file without the cache."""
    if stream:
        with open(path, encoding="utf-8") as handle:
            return yaml_text.safe_load(handle)
    from pathlib import Path

    return yaml_text.safe_load(Path(path).read_text(encoding="utf-8"))


def same(a, b) -> bool:
    """Equal, with the same types all the way down (1 == 1.0 == True would hide a change)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)  # (NaN)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A writable cache folder of its own, with bytecode writing on."""
    folder = tmp_path / "pycache"
    monkeypatch.setattr(data_cache, "cache_dir", lambda: str(folder))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return folder


@pytest.fixture
def own(tmp_path, monkeypatch, cache):
    """A data folder of the checker's own in ``tmp_path/rules`` (files written there are cached)."""
    folder = tmp_path / "rules"
    folder.mkdir()
    monkeypatch.setattr(data_cache, "_roots", [(os.path.join(str(folder), ""), "rules")])
    return folder


def _no_parsing(monkeypatch):
    def refuse(stream):
        raise AssertionError("parsed although the cache holds these bytes")

    monkeypatch.setattr(yaml_text, "safe_load", refuse)


def test_the_repository_has_data_files():
    names = {os.path.relpath(p, os.path.dirname(data_dir("rules"))) for p in DATA_FILES}
    assert {"rules/v4.1.yaml", "rules/v6.1.yaml", "rules/appendix_b.yaml", "audits/rounds.yaml",
            "audits/TEST01/spec.yaml"} <= names


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("path", DATA_FILES, ids=lambda p: os.path.relpath(p, os.path.dirname(data_dir("rules"))))
def test_every_data_file_reads_as_yaml_reads_it(path, stream, cache, monkeypatch):
    expected = plain(path, stream)
    cold = data_cache.read_yaml(path, stream=stream)
    entry = data_cache.entry_path(path)
    assert entry is not None and os.path.dirname(entry) == str(cache) and os.path.isfile(entry)
    _no_parsing(monkeypatch)
    warm = data_cache.read_yaml(path, stream=stream)
    assert same(cold, expected) and same(warm, expected)
    assert warm is not data_cache.read_yaml(path, stream=stream)  # a fresh copy each time (callers may change it)


def test_a_changed_file_is_parsed_again(own, monkeypatch):
    path = own / "v9.9.yaml"
    path.write_text("a: 1\nb: [x, y]\n")
    assert data_cache.read_yaml(path) == {"a": 1, "b": ["x", "y"]}
    path.write_text("a: 2\nb: [x, y]\n")  # same size, other bytes
    assert data_cache.read_yaml(path) == {"a": 2, "b": ["x", "y"]}
    path.write_text("a: 1\nb: [x, y]\n")  # back to the first bytes: parsed again, not an older entry
    assert data_cache.read_yaml(path) == {"a": 1, "b": ["x", "y"]}
    _no_parsing(monkeypatch)
    assert data_cache.read_yaml(path) == {"a": 1, "b": ["x", "y"]}


def test_files_of_other_folders_are_not_cached(tmp_path, cache, monkeypatch):
    path = tmp_path / "elsewhere.yaml"
    path.write_text("a: 1\n")
    assert data_cache.entry_path(path) is None
    assert data_cache.read_yaml(path) == {"a": 1}
    assert not cache.exists()


def test_no_file_is_written_where_bytecode_is_not(own, cache, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = own / "v9.9.yaml"
    path.write_text("a: 1\n")
    assert data_cache.read_yaml(path) == data_cache.read_yaml(path) == {"a": 1}
    assert not cache.exists()


def test_an_unwritable_cache_folder_only_costs_the_parse(own, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(data_cache, "cache_dir", lambda: str(blocker / "pycache"))  # a folder below a file
    path = own / "v9.9.yaml"
    path.write_text("a: 1\n")
    assert data_cache.read_yaml(path) == data_cache.read_yaml(path) == {"a": 1}
    assert sorted(os.listdir(tmp_path)) == ["a-file", "rules"]  # (no temporary file left behind)


def test_data_marshal_cannot_hold_is_not_cached(own, cache):
    path = own / "v9.9.yaml"
    path.write_text("when: 2024-07-30\nwhat: x\n")
    expected = plain(path, False)
    assert same(data_cache.read_yaml(path), expected) and same(data_cache.read_yaml(path), expected)
    assert not os.path.exists(data_cache.entry_path(path))


@pytest.mark.parametrize("content", [b"", b"garbage", b"mlpc-data/1\n", None])
def test_an_entry_it_cannot_use_is_ignored_and_replaced(own, content, monkeypatch):
    path = own / "v9.9.yaml"
    path.write_text("a: 1\n")
    entry = data_cache.entry_path(path)
    os.makedirs(os.path.dirname(entry), exist_ok=True)
    if content is None:  # a valid entry of other bytes
        other = own / "other.yaml"
        other.write_text("a: 2\n")
        data_cache.read_yaml(other)
        os.replace(data_cache.entry_path(other), entry)
    else:
        with open(entry, "wb") as handle:
            handle.write(content)
    assert data_cache.read_yaml(path) == {"a": 1}
    _no_parsing(monkeypatch)
    assert data_cache.read_yaml(path) == {"a": 1}  # (rewritten)


EDGE_CASES = {
    "crlf": b"a: 1\r\nb: |\r\n  two\r\n  lines\r\n",
    "lone cr": b"a: 'x\ry'\n",
    "bom": b"\xef\xbb\xbfa: 1\n",
    "anchors": b"a: &x [1, 2]\nb: *x\nc: {<<: {k: v}, d: 1}\n",
    "types": b"i: 7\nf: 1.5\nn: .nan\ninf: -.inf\nt: true\nz: ~\nbig: 123456789012345678901234567890\n"
             b"s: !!set {a, b}\nbin: !!binary aGVsbG8=\nlist: [1, 'x', null]\nempty: {}\n",
    "empty file": b"",
    "comment only": b"# nothing\n",
    "scalar document": b"just text\n",
}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_inputs_read_as_yaml_reads_them(own, name, stream, monkeypatch):
    path = own / "edge.yaml"
    path.write_bytes(EDGE_CASES[name])
    expected = plain(path, stream)
    cold = data_cache.read_yaml(path, stream=stream)
    _no_parsing(monkeypatch)
    warm = data_cache.read_yaml(path, stream=stream)
    assert same(cold, expected) and same(warm, expected)
    if name == "anchors":  # an alias is the same object, as YAML builds it
        assert expected["a"] is expected["b"] and cold["a"] is cold["b"] and warm["a"] is warm["b"]


BAD = {
    "not utf-8": b"a: \xff\xfe\n",
    "bad yaml": b"a: [1, 2\nb: 3\n",
    "tab indent": b"a:\n\t- 1\n",
    "duplicate anchor use": b"a: *missing\n",
}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_files_fail_as_they_did(own, name, stream):
    path = own / "bad.yaml"
    path.write_bytes(BAD[name])
    with pytest.raises(Exception) as before:
        plain(path, stream)
    for _ in range(2):
        with pytest.raises(type(before.value)) as now:
            data_cache.read_yaml(path, stream=stream)
        assert str(now.value) == str(before.value)
    assert not os.path.exists(data_cache.entry_path(path))


def test_a_missing_file_fails_as_it_did(own):
    path = own / "missing.yaml"
    with pytest.raises(FileNotFoundError) as before:
        path.read_text(encoding="utf-8")
    with pytest.raises(FileNotFoundError) as now:
        data_cache.read_yaml(path)
    assert str(now.value) == str(before.value)


def test_yaml_error_is_pyyamls():
    import yaml

    assert yaml_text.YAMLError is yaml.YAMLError
    with pytest.raises(AttributeError):
        yaml_text.NoSuchThing  # noqa: B018


LOADERS = """
import json, sys
if sys.argv[1] == "plain":  # every data file parsed and validated
    from checker.loaders import data_cache
    data_cache.entry_path = lambda path: None
    data_cache.cached_object = lambda name, inputs, modules, build, kind: build()
from checker.loaders.rules import load_rules
from checker.loaders.audit_spec import load_round_spec
from checker.metrics.bandwidth import load_appendix_b
from checker.loaders.hardware import default_tables
from checker.loaders.nameplate import private_id_words
out = {r: [load_rules(r).model_dump(mode="json"), load_round_spec(r).model_dump(mode="json")] for r in sys.argv[2:]}
out["tables"] = [load_appendix_b().model_dump(mode="json"), [t.model_dump(mode="json") for t in default_tables()],
                 private_id_words()]
print(json.dumps({"loaded": out, "yaml": "yaml" in sys.modules}))
"""


def test_loaders_give_the_same_objects_with_and_without_the_cache():
    """In fresh interpreters: the loaders of every round parsing and validating every file, then through the caches
    (written if needed), then through the caches again; that run does not import PyYAML."""
    import json

    from checker.loaders.rules import available_rounds

    rounds = available_rounds()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}

    def run(mode):
        out = subprocess.run([sys.executable, "-c", LOADERS, mode, *rounds], capture_output=True, text=True,
                             check=True, env=env)
        return json.loads(out.stdout)

    without = run("plain")
    assert without["yaml"] is True
    run("cached")
    warm = run("cached")
    assert without["loaded"] == warm["loaded"]
    assert warm["yaml"] is False


# --- validated objects (cached_object) ---


class Fake:
    """A module whose source is a file of the test's own."""

    def __init__(self, path):
        self.__file__ = str(path)


@pytest.fixture
def made(tmp_path, cache):
    """A data file, a module source, and a build that counts its calls."""
    data = tmp_path / "data.yaml"
    data.write_text("a: 1\n")
    code = tmp_path / "code.py"
    code.write_text("X = 1\n")
    calls = []

    def build():
        calls.append(1)
        return {"data": data.read_text(), "code": code.read_text()}

    def get(name="thing"):
        return data_cache.cached_object(name, [data], [Fake(code)], build, dict)

    return data, code, calls, get


def test_an_object_is_built_once_per_content_of_its_data_and_code(made):
    data, code, calls, get = made
    first = get()
    assert get() == first and get() is not first and len(calls) == 1
    data.write_text("a: 2\n")
    assert get() == {"data": "a: 2\n", "code": "X = 1\n"} and len(calls) == 2
    code.write_text("X = 2\n")
    assert get() == {"data": "a: 2\n", "code": "X = 2\n"} and len(calls) == 3
    data.write_text("a: 1\n")
    code.write_text("X = 1\n")
    assert get() == first and len(calls) == 4  # (one entry per name: the latest content)
    assert get() == first and len(calls) == 4


def test_an_object_is_not_written_where_bytecode_is_not(made, cache, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    _, _, calls, get = made
    assert get() == get() and len(calls) == 2 and not cache.exists()


def test_an_unwritable_cache_folder_only_costs_the_build(made, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(data_cache, "cache_dir", lambda: str(blocker / "pycache"))
    _, _, calls, get = made
    assert get() == get() and len(calls) == 2


def test_objects_are_kept_only_under_plain_names_and_for_files_that_exist(made, tmp_path, cache):
    data, code, calls, get = made
    get("../escape")
    get("a/b")
    assert not (tmp_path / "escape.cpython-311.pickle").exists() and len(calls) == 2 and not cache.exists()
    missing = data_cache.cached_object("gone", [tmp_path / "missing.yaml"], [Fake(code)], lambda: {"x": 1}, dict)
    assert missing == {"x": 1} and not cache.exists()


@pytest.mark.parametrize("damage", ["garbage", "truncated", "other type"])
def test_an_object_entry_it_cannot_use_is_ignored_and_replaced(made, cache, damage):
    data, code, calls, get = made
    first = get()
    (entry,) = [p for p in cache.iterdir() if p.name.startswith("object.thing.")]
    blob = entry.read_bytes()
    if damage == "garbage":
        entry.write_bytes(b"garbage")
    elif damage == "truncated":
        entry.write_bytes(blob[:-5])
    else:  # a list where a dict is expected, under the right key
        import pickle

        entry.write_bytes(blob[:len(blob) - len(pickle.dumps(first, protocol=pickle.HIGHEST_PROTOCOL))]
                          + pickle.dumps([1], protocol=pickle.HIGHEST_PROTOCOL))
    assert get() == first and len(calls) == 2
    assert get() == first and len(calls) == 2  # (replaced)


def test_a_build_that_fails_keeps_nothing(made, cache):
    data, code, _, _ = made

    def fail():
        raise ValueError("bad data")

    with pytest.raises(ValueError, match="bad data"):
        data_cache.cached_object("thing", [data], [Fake(code)], fail, dict)
    assert not cache.exists()


def test_the_loaders_objects_equal_fresh_validation(cache):
    """Each loader's object from the cache (cold, then warm) equals the one its models validate from the files, in
    every field and with the same fields set."""
    from checker.loaders import audit_spec, hardware, rules
    from checker.loaders.rules import available_rounds
    from checker.metrics import bandwidth

    def fresh():
        out = {}
        for name in available_rounds():
            out[name] = (rules._validate(os.path.join(rules.data_dir("rules"), f"{name}.yaml")), audit_spec._round_spec(name, None))
        out["tables"] = (bandwidth.AppendixB(**yaml_text.safe_load(Path(rules.data_dir("rules"), "appendix_b.yaml").read_text())),
                         hardware.load_hardware(), hardware.load_work())
        return out

    def loaded():
        for f in (rules.load_rules, audit_spec.load_round_spec, audit_spec.load_test_spec, audit_spec.load_rounds,
                  bandwidth.load_appendix_b, hardware.default_tables):
            f.cache_clear()
        out = {name: (rules.load_rules(name), audit_spec.load_round_spec(name)) for name in available_rounds()}
        out["tables"] = (bandwidth.load_appendix_b(), *hardware.default_tables())
        return out

    try:
        expected = fresh()
        cold = loaded()
        assert any(p.name.startswith("object.rules.") for p in cache.iterdir())
        warm = loaded()
    finally:
        for f in (rules.load_rules, audit_spec.load_round_spec, audit_spec.load_test_spec, audit_spec.load_rounds,
                  bandwidth.load_appendix_b, hardware.default_tables):
            f.cache_clear()
    from checker.models.record import Record, mirror

    for key in expected:
        for want, a, b in zip(expected[key], cold[key], warm[key]):
            assert type(a) is type(b)
            assert a.model_dump() == b.model_dump() == want.model_dump()
            if isinstance(a, Record):  # (the round file, its audit spec, Appendix B: held as records of the models)
                assert type(a).__name__ == type(want).__name__
                assert a == mirror(want) and b == mirror(want)
                continue
            assert type(a) is type(want)
            assert a == want and b == want
            assert a.model_fields_set == b.model_fields_set == want.model_fields_set


COPY_PROGRAM = """
import json, sys
sys.path.insert(0, sys.argv[1])
import checker
assert checker.__file__.startswith(sys.argv[1]), checker.__file__
from checker.loaders.rules import load_rules
from checker.loaders.audit_spec import load_round_spec
from checker.metrics.bandwidth import load_appendix_b
from checker.loaders.hardware import default_tables
out = [load_rules("v4.1").model_dump(mode="json"), load_round_spec("v6.0").model_dump(mode="json"),
       load_appendix_b().model_dump(mode="json"), [t.model_dump(mode="json") for t in default_tables()]]
print(json.dumps({"loaded": out, "yaml": "yaml" in sys.modules}))
"""


def test_a_copy_of_the_package_writes_its_caches_only_where_bytecode_is_written(tmp_path):
    """A copy of the package with its data folders, in fresh interpreters: ``-B`` (PYTHONDONTWRITEBYTECODE) writes
    nothing, a plain run writes the entries and the next one reads them (no PyYAML), and where ``__pycache__`` cannot
    be made the loaders give the same objects."""
    import json
    import shutil

    from tests.conftest import REPO

    root = tmp_path / "copy"
    shutil.copytree(os.path.join(REPO, "checker"), root / "checker", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("rules", "audits"):
        shutil.copytree(os.path.join(REPO, name), root / name)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run(*flags):
        done = subprocess.run([sys.executable, *flags, "-c", COPY_PROGRAM, str(root)], capture_output=True, text=True,
                              check=True, env=env, cwd=str(tmp_path))
        return json.loads(done.stdout)

    pycache = root / "checker" / "__pycache__"
    first = run("-B")
    assert not pycache.exists() and first["yaml"] is True
    second = run()
    entries = sorted(p.name.split(".cpython")[0] for p in pycache.iterdir() if p.name.startswith(("data.", "object.")))
    assert "data.rules.v4.1.yaml" in entries and "object.rules.v4.1" in entries and "object.audit-spec.v6.0" in entries
    third = run()
    assert third["yaml"] is False
    shutil.rmtree(pycache)
    pycache.write_text("not a folder")
    fourth = run()
    assert first["loaded"] == second["loaded"] == third["loaded"] == fourth["loaded"]
