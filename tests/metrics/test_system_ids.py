"""Nameplate power (the official template's 2400 W, redundancy, bad entries) and private IDs (the
published examples), through the functions and the CLI; nothing is written into a checked tree."""

from __future__ import annotations

import json
from pathlib import Path
import os

import pytest
import yaml
from typer.testing import CliRunner

from checker.cli import app
from checker.loaders.nameplate import private_id_words, read_nameplate
from checker.metrics.nameplate import design_power
from checker.metrics.private_id import private_id

# The optional <system>_power.yaml template of the official submission structure (note the second
# component's lower-case "Min PSUs needed").
TEMPLATE = """\
My System:
- My Rack 1:
  - My Server 1:
    - Description: 'Optional Description'
      Min PSUs Needed: 1
      PSUs:
      - Name: PSU 1
        PowerCapacityWatts: 1200
      - Name: PSU 2
        PowerCapacityWatts: 1200
  - My Switch 1:
    - Description: 'Optional Description'
      Min PSUs needed: 1
      PSUs:
      - Name: PSU 1
        PowerCapacityWatts: 1200
      - Name: PSU 2
        PowerCapacityWatts: 1200
"""


def test_template_sums_to_2400_watts():
    plate = design_power(yaml.safe_load(TEMPLATE))
    assert plate.watts == 2400 and isinstance(plate.watts, int)
    assert plate.components == 2 and plate.problems == ()


def test_redundant_supplies_are_not_counted_and_the_largest_are():
    data = {"Sys": [{"Node": {"Min PSUs Needed": 2, "PSUs": [{"PowerCapacityWatts": 1000},
                                                               {"PowerCapacityWatts": 3000},
                                                               {"PowerCapacityWatts": 2000}]}},
                    {"Node 2": {"min psus needed": 0, "psus": [{"PowerCapacityWatts": 5000}]}}]}
    plate = design_power(data)
    assert plate.watts == 5000 and plate.components == 2 and plate.problems == ()


def test_bad_entries_are_problems_not_crashes():
    data = {"Sys": {"A": {"Min PSUs Needed": 2, "PSUs": [{"PowerCapacityWatts": "1200 W"},
                                                          {"powercapacitywatts": 800}]},
                    "B": {"Min PSUs Needed": "one", "PSUs": []},
                    "C": {"Min PSUs Needed": 3, "PSUs": [{"PowerCapacityWatts": 100}]}}}
    plate = design_power(data)
    assert plate.watts == 100
    text = " | ".join(plate.problems)
    assert "/Sys/A/PSUs/0: PowerCapacityWatts is '1200 W'" in text
    assert "/Sys/A/PSUs/1: no PowerCapacityWatts" in text
    assert "/Sys/B: 'Min PSUs Needed' is 'one'" in text and "/Sys/C: needs 3 PSUs but lists 1" in text
    assert design_power({"x": [1, "a"]}).problems == ("no component with 'PSUs' and 'Min PSUs Needed'",)


def test_alias_bomb_stops():
    text = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8))
    plate = design_power(yaml.safe_load(text))
    assert any("more than" in p for p in plate.problems)


@pytest.mark.parametrize("content,why", [("", "empty"), ("a: [\n", "not valid YAML"), (b"\xff\xfe", "not UTF-8")])
def test_unreadable_files(tmp_path, content, why):
    path = tmp_path / "sys_power.yaml"
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    plate, reason = read_nameplate(str(path))
    assert plate is None and why in reason
    assert read_nameplate(str(tmp_path / "absent.yaml")) == (None, "not found")


@pytest.mark.parametrize("name,expected", [("EPsys", "deep-cloud-3bc1"),
                                           ("XE7740_H200_NVL_141GBx8_TRT", "free-brook-6b9e"),
                                           ("87xMI355X_22xEPYC_9575F", "star-fleet-e60a")])
def test_private_ids_equal_the_published_examples(name, expected):
    adjectives, nouns = private_id_words()
    assert len(adjectives) == len(nouns) == 64 and len(set(adjectives)) == len(set(nouns)) == 64
    assert private_id(name, adjectives, nouns) == expected


def test_rules_file_examples_hold():
    from checker.loaders.rules import data_dir

    data = yaml.safe_load(Path(data_dir("rules"), "private_ids.yaml").read_text(encoding="utf-8"))
    adjectives, nouns = private_id_words()
    assert all(private_id(n, adjectives, nouns) == i for n, i in data["examples"].items())


def test_cli(tmp_path):
    runner = CliRunner()
    path = tmp_path / "sys_power.yaml"
    path.write_text(TEMPLATE)
    before = sorted(os.listdir(tmp_path))
    out = runner.invoke(app, ["calc", "nameplate-power", str(path), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output) == {"design_power_watts": 2400, "components": 2, "problems": []}
    bad = tmp_path / "bad_power.yaml"
    bad.write_text("S: {Min PSUs Needed: 1, PSUs: [{PowerCapacityWatts: '1.2 kW'}]}\n")
    out = runner.invoke(app, ["calc", "nameplate-power", str(bad)])
    assert out.exit_code == 1 and "problem: /S/PSUs/0: PowerCapacityWatts is '1.2 kW'" in out.output
    empty = tmp_path / "empty_power.yaml"
    empty.write_text("")
    assert runner.invoke(app, ["calc", "nameplate-power", str(empty)]).exit_code == 1
    out = runner.invoke(app, ["calc", "private-id", "EPsys", "87xMI355X_22xEPYC_9575F"])
    assert out.exit_code == 0 and out.output.split() == ["EPsys", "deep-cloud-3bc1", "87xMI355X_22xEPYC_9575F",
                                                         "star-fleet-e60a"]
    assert sorted(os.listdir(tmp_path)) == sorted(before + ["bad_power.yaml", "empty_power.yaml"])
