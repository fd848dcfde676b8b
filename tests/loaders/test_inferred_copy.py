"""The load stage's comparison of an inferred result's folder with its source's: copies are read before their
sources, files read already are compared by the digest taken then, the others are hashed once."""

from __future__ import annotations

import builtins
import hashlib
import os

from checker.loaders.fs import Sandbox
from checker.loaders.inferred_copy import compare_copies, in_inference_order
from checker.loaders.rules import load_rules


def test_a_folder_comes_before_the_folders_it_can_be_inferred_from():
    rules = load_rules("v6.0")
    folders = ("MultiStream", "Offline", "SingleStream", "images", "offline", "singlestream")
    assert in_inference_order(folders, rules) == ["Offline", "images", "offline", "MultiStream", "SingleStream",
                                                  "singlestream"]


def _folder(root, name: str, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / name / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_digests_taken_while_reading_are_used_and_the_rest_is_hashed_once(tmp_path, monkeypatch):
    files = {"run/log.txt": "log", "README.md": "readme", "notes.txt": "same"}
    _folder(tmp_path, "m/SingleStream", files)
    _folder(tmp_path, "m/multistream", {**files, "notes.txt": "diff"})
    _folder(tmp_path, "m/offline", {**files, "extra.txt": "x"})
    box = Sandbox(str(tmp_path))
    box.digest_below(["m/SingleStream", "m/multistream", "m/offline"])
    for folder in ("SingleStream", "multistream", "offline"):  # what the loader reads
        text, _ = box.read_text(f"m/{folder}/run/log.txt")
        assert text == "log"
    assert box.digests["m/offline/run/log.txt"] == hashlib.sha256(b"log").hexdigest()
    opened: list[str] = []
    original = builtins.open

    def recording(file, *args, **kwargs):
        opened.append(os.path.relpath(os.fsdecode(file), tmp_path))
        return original(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", recording)
    compared = compare_copies(box, [("m/multistream", "m/SingleStream"), ("m/offline", "m/SingleStream")])
    monkeypatch.undo()
    assert sorted(opened) == sorted(f"m/{folder}/{name}" for folder in ("SingleStream", "multistream", "offline")
                                    for name in ("README.md", "notes.txt"))  # once each, logs not at all
    assert compared["m/multistream"].comparison.differ == ("notes.txt",)
    assert compared["m/offline"].comparison.extra == ("extra.txt",)
    assert compared["m/offline"].comparison.differ == ()
    assert (compared["m/offline"].source, compared["m/offline"].source_rel) == ("SingleStream", "m/SingleStream")
