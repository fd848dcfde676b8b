"""summary.csv conventions of the v6.x writers and the published results table (summary_results.json),
on hand-made summaries: each convention switched on and off, the final-report records (IDs, links,
Unique ID, capitalised scenarios, power merged into its performance record) and the v6.1 row form."""

from __future__ import annotations

import csv
import io
import json

import pytest

from checker.models.rules import PublishedTable, SummaryConventions
from checker.report import Report
from checker.reporters import csv_summary, published_table
from tests.reporters.conftest import _result

V6_CONVENTIONS = SummaryConventions(availability="raw", scenario="folder", compliance="division",
                                    inferred="log_scenario", location="performance_run", quote_all=True)
NA = ["", "N/A", "NA", "None", "null", "nan"]
FINAL = PublishedTable(
    shape="final_report", id_prefix="6.0", repository="https://example.org/subs/tree/main", code_folder="src",
    renames={"Organization": "Submitter", "Division": "Category", "SystemType": "Suite", "SystemName": "System",
             "number_of_nodes": "Nodes", "host_processor_model_name": "Processor",
             "accelerator_model_name": "Accelerator", "accelerators_per_node": "a#",
             "total_accelerators": "Total Accelerators", "notes": "Notes", "framework": "Software",
             "Model": "UsedModel", "MlperfModel": "Model"},
    location_prefix="./", scenario_names={"offline": "Offline", "singlestream": "SingleStream"},
    integer_columns=["Nodes", "host_processors_per_node", "a#", "Total Accelerators", "errors", "inferred"],
    zero_as_empty=["a#"], empty_values=NA)
ROWS = PublishedTable(shape="summary_rows", location_prefix="./", model_names={"qwen3-vl-235b-a22b": "VLM"},
                      integer_columns=["number_of_nodes", "accelerators_per_node", "total_accelerators", "errors",
                                       "inferred"], empty_values=NA, missing="null")
COLUMNS = ["Organization", "Availability", "Division", "SystemType", "SystemName", "Platform", "Model",
           "MlperfModel", "Scenario", "Result", "Accuracy", "number_of_nodes", "host_processor_model_name",
           "host_processors_per_node", "accelerator_model_name", "accelerators_per_node", "total_accelerators",
           "Location", "framework", "notes", "compliance", "errors", "version", "inferred", "has_power", "Units",
           "weight_data_types"]
COLUMNS_61 = COLUMNS + ["design_power_watts", "PrivateID"]

GPU = (("status", "Available"), ("system_type", "datacenter"), ("system_name", "Big Box"), ("number_of_nodes", "2"),
       ("host_processor_model_name", "CPU X"), ("host_processors_per_node", "2"),
       ("accelerator_model_name", "GPU Y"), ("accelerators_per_node", "4"), ("framework", "RT"),
       ("hw_notes", ""), ("sw_notes", "sw"))
CPU = (("status", "preview"), ("system_type", "edge"), ("system_name", "Small"), ("number_of_nodes", "1"),
       ("host_processor_model_name", "CPU Z"), ("host_processors_per_node", "1"),
       ("accelerator_model_name", "N/A"), ("accelerators_per_node", "0"), ("framework", "RT"))


def _report() -> Report:
    results = [
        _result("closed/Acme/results/big/qwen3-vl-235b-a22b/offline", mlperf_model="qwen3-vl-235b-a22b",
                scenario="Offline", value=2.0000000000049, system_fields=GPU, log_scenario="Offline",
                accuracy=(("F1_HIERARCHICAL", "0.7878"),)),
        _result("closed/Acme/results/big/gpt-oss-120b/Interactive", mlperf_model="gpt-oss-120b", value=500.5,
                unit="Tokens/s", system_fields=GPU, log_scenario="Server", scenario="Interactive"),
        _result("closed/Acme/results/big/gpt-oss-120b/Offline", mlperf_model="gpt-oss-120b", value=900.0,
                unit="Tokens/s", system_fields=GPU, log_scenario="Offline"),
        _result("closed/Bee/results/small/resnet50/singlestream", mlperf_model="resnet", value=0.5,
                unit="Latency (ms)", scenario="SingleStream", system_fields=CPU, log_scenario="SingleStream",
                has_power=True, power_value=3.25, power_unit="millijoules"),
        _result("closed/Bee/results/small/resnet50/Offline", mlperf_model="resnet", value=10.0, inferred=True,
                system_fields=CPU, log_scenario="SingleStream"),
        _result("closed/Bee/results/small/resnet50/MultiStream", mlperf_model="resnet", value=None, valid=False,
                errors=1, system_fields=CPU, log_scenario="MultiStream"),
        _result("open/Acme/results/big/my-llama/Offline", mlperf_model="llama2-70b-99.9", value=7.0,
                system_fields=GPU, log_scenario="Offline"),
    ]
    return Report(root="<root>", round="v6.0", round_reason="test", profile="official", results=results)


def _csv(report, columns=COLUMNS, conventions=V6_CONVENTIONS, **kw):
    text = csv_summary.render(report, columns, official=True, conventions=conventions, **kw)
    return text, {row["Location"]: row for row in csv.DictReader(io.StringIO(text, newline=""))}


def test_v6_conventions_in_summary_csv():
    text, rows = _csv(_report())
    qwen = rows["closed/Acme/results/big/qwen3-vl-235b-a22b/offline/performance/run_1"]
    assert qwen["Scenario"] == "offline" and qwen["Availability"] == "Available" and qwen["compliance"] == "closed"
    assert qwen["total_accelerators"] == "8" and qwen["notes"] == "sw"
    # the official v6.x inferred flag: folder name != log scenario, case-sensitively
    assert qwen["inferred"] == "1"
    assert rows["closed/Acme/results/big/gpt-oss-120b/Interactive/performance/run_1"]["inferred"] == "1"
    assert rows["closed/Acme/results/big/gpt-oss-120b/Offline/performance/run_1"]["inferred"] == "0"
    assert rows["closed/Bee/results/small/resnet50/Offline/performance/run_1"]["inferred"] == "1"
    assert rows["open/Acme/results/big/my-llama/Offline/performance/run_1"]["compliance"] == "open"
    assert rows["closed/Bee/results/small/resnet50/singlestream/performance/run_1"]["total_accelerators"] == "0"
    # every field quoted, the header not
    header, first = text.splitlines()[:2]
    assert header.startswith("Organization,Availability,") and first.startswith('"Acme","Available","closed",')
    assert all(field.startswith('"') for field in next(csv.reader([first], quotechar="\x00")))


def test_default_conventions_are_the_v5_writer():
    _, rows = _csv(_report(), conventions=None)
    row = rows["closed/Acme/results/big/qwen3-vl-235b-a22b/offline"]
    assert row["Availability"] == "available" and row["Scenario"] == "Offline" and row["compliance"] == "1"
    assert row["inferred"] == "0"
    assert rows["closed/Bee/results/small/resnet50/Offline"]["inferred"] == "1"


def test_total_accelerators_empty_when_not_a_count():
    report = _report()
    odd = _result("closed/Acme/results/odd/resnet50/Offline", value=1.0, log_scenario="Offline",
                  system_fields=(("number_of_nodes", "1"), ("accelerators_per_node", "8 GPUs")))
    report.results.append(odd)
    _, rows = _csv(report)
    assert rows["closed/Acme/results/odd/resnet50/Offline/performance/run_1"]["total_accelerators"] == ""


def test_design_power_and_private_id_columns():
    report = _report()
    extras = {"closed/Bee/results/small/resnet50/singlestream": {"design_power_watts": 2400.0, "PrivateID": "a-b-1"},
              "closed/Acme/results/big/gpt-oss-120b/Offline": {"design_power_watts": 999, "PrivateID": "c-d-2"}}
    conventions = V6_CONVENTIONS.model_copy(update={"missing_design_power": "None"})
    text = csv_summary.render(report, COLUMNS_61, official=True, conventions=conventions, extras=extras)
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    power = [r for r in rows if r["Units"] == "millijoules"]
    assert power and power[0]["design_power_watts"] == "2400.0" and power[0]["PrivateID"] == "a-b-1"
    # the nameplate value is written only for a power result; missing is the round's text
    gpt = next(r for r in rows if r["Location"].startswith("closed/Acme/results/big/gpt-oss-120b/Offline"))
    assert gpt["design_power_watts"] == "None" and gpt["PrivateID"] == "c-d-2"
    assert next(r for r in rows if r["Model"] == "my-llama")["PrivateID"] == ""


def test_final_report_records():
    records = published_table.rows(_report(), COLUMNS, V6_CONVENTIONS, FINAL, ("Watts", "millijoules"))
    assert isinstance(records, list)
    # invalid results are not published; the power row is merged into its performance record
    assert len(records) == 6
    by = {(r["Unique ID (e.g. for Audit)"], r["UsedModel"], r["Scenario"]): r for r in records}
    qwen = by[("datacenter/closed/Acme/big", "qwen3-vl-235b-a22b", "Offline")]
    assert qwen["Location"] == "./closed/Acme/results/big/qwen3-vl-235b-a22b/offline/performance/run_1"
    assert qwen["Performance_Result"] == 2.0 and qwen["Performance_Units"] == "Samples/s"
    assert "Result" not in qwen and "Units" not in qwen
    assert qwen["Details"] == "https://example.org/subs/tree/main/closed/Acme/results/big"
    assert qwen["Code"] == "https://example.org/subs/tree/main/closed/Acme/src"
    assert qwen["ColorKey"] == "AvailableAcme" and qwen["p#"] == 2 and qwen["Nodes"] == 2
    assert qwen["a#"] == 4 and qwen["Total Accelerators"] == 8 and qwen["inferred"] == 1
    assert qwen["has_power"] is False and qwen["Notes"] == "sw" and qwen["Model"] == "qwen3-vl-235b-a22b"
    assert list(qwen)[0] == "ID" and list(qwen)[-2:] == ["Performance_Result", "Performance_Units"]
    cpu = by[("edge/closed/Bee/small", "resnet50", "SingleStream")]
    assert cpu["Power_Result"] == 3.25 and cpu["Power_Units"] == "millijoules"
    assert cpu["Performance_Result"] == 0.5 and cpu["has_power"] is True
    # N/A and a zero accelerator count are published empty
    assert cpu["Accelerator"] == "" and cpu["a#"] == "" and cpu["Total Accelerators"] == 0
    opened = by[("datacenter/open/Acme/big/my-llama", "my-llama", "Offline")]
    assert opened["Model"] == "llama2-70b-99.9"
    # IDs: one per system (open: per system and model), numbered by Category, Availability, Submitter
    assert [r["ID"] for r in records] == ["6.0-0001"] * 3 + ["6.0-0002"] * 2 + ["6.0-0003"]
    assert cpu["ID"] == "6.0-0002" and cpu["Availability"] == "preview"
    assert [(r["UsedModel"], r["Scenario"]) for r in records[:3]] == [
        ("gpt-oss-120b", "Interactive"), ("gpt-oss-120b", "Offline"), ("qwen3-vl-235b-a22b", "Offline")]


def test_summary_rows_shape():
    report = _report()
    text = published_table.render(report, _Rules(COLUMNS_61, ROWS))
    data = json.loads(text)
    # valid results only, a power result as a second row
    assert list(data) == [str(i) for i in range(7)]
    assert sum(1 for row in data.values() if row["Units"] == "millijoules") == 1
    qwen = data["0"]
    assert list(qwen) == COLUMNS_61
    assert qwen["MlperfModel"] == "VLM" and qwen["Model"] == "qwen3-vl-235b-a22b"
    assert qwen["Result"] == 2.0 and qwen["number_of_nodes"] == 2 and qwen["total_accelerators"] == 8
    assert qwen["host_processors_per_node"] == "2"  # not one of this table's integer columns
    assert qwen["design_power_watts"] is None and qwen["PrivateID"] is None and qwen["Scenario"] == "offline"
    cpu = next(row for row in data.values() if row["Platform"] == "small" and row["Units"] == "Latency (ms)")
    assert cpu["accelerator_model_name"] is None and cpu["accelerators_per_node"] == 0


def test_result_rounding():
    report = _report()
    data = json.loads(published_table.render(report, _Rules(COLUMNS_61, ROWS)))
    assert data["0"]["Result"] == 2.0  # 2.0000000000049 to 10 decimal places


def test_no_table_for_rounds_without_one():
    assert published_table.render(_report(), _Rules(COLUMNS, None)) is None


class _Rules:
    """The parts of a round's rules the writer reads."""

    def __init__(self, columns, table):
        self.summary_columns = columns
        self.summary_conventions = V6_CONVENTIONS.model_copy(update={"missing_design_power": "None"})
        self.published_table = table
        self.power_units = {"Offline": "Watts", "SingleStream": "millijoules"}


@pytest.mark.parametrize("text,expected", [("N/A", ""), ("0", ""), ("3", 3), ("3 GPUs", "3 GPUs")])
def test_integer_and_empty_fields(text, expected):
    assert published_table._typed("a#", text, FINAL) == expected


def test_summary_extras_read_nameplates_and_write_nothing(tmp_path):
    from checker.commands.report import summary_extras
    from checker.loaders.rules import load_rules
    from tests.metrics.test_system_ids import TEMPLATE

    rules = load_rules("v5.1").model_copy(update={"nameplate_power_path": "systems/{system}_power.yaml"})
    systems = tmp_path / "closed" / "Bee" / "systems"
    systems.mkdir(parents=True)
    (systems / "small_power.yaml").write_text(TEMPLATE)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    report = _report()
    declared = _result("closed/Acme/results/big/resnet50/Offline", value=1.0, has_power=True, power_value=5.0,
                       system_fields=GPU + (("system_power_capacity", "12 kW"),))
    missing = _result("closed/Acme/results/other/resnet50/Offline", value=1.0, has_power=True, power_value=5.0)
    report.results.extend([declared, missing])
    extras = summary_extras(report, rules, str(tmp_path), private_ids=True)
    assert extras["closed/Bee/results/small/resnet50/singlestream"] == {"PrivateID": extras[
        "closed/Bee/results/small/resnet50/Offline"]["PrivateID"], "design_power_watts": 2400}
    assert extras[declared.id]["design_power_watts"] == "12 kW"  # the declared capacity, as written
    assert extras[missing.id]["design_power_watts"] is None
    assert "design_power_watts" not in extras["closed/Acme/results/big/gpt-oss-120b/Offline"]  # not a power result
    assert all(v["PrivateID"].count("-") == 2 for v in extras.values())
    assert summary_extras(report, load_rules("v5.1"), str(tmp_path), private_ids=False) == {}
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("text,number", [
    ("1175890.2208168241", 1175890.220816824),  # 17 digits accumulated in a double: not the nearest double
    ("57.401991155000005", 57.401991155), ("0.6455254875195523", 0.6455254875), ("785522.0", 785522.0),
    ("1e-05", 1e-05), ("2.5E3", 2500.0), ("-3.25", -3.25), ("12", 12.0), ("0.00000000004", 0.0)])
def test_numbers_as_the_published_table_reads_and_writes_them(text, number):
    value = published_table._typed("Result", text, FINAL)
    assert value == number and isinstance(value, float)


@pytest.mark.parametrize("text", ["12 kW", "1.2.3", "", "١٢"])
def test_text_that_is_not_a_number_stays_text(text):
    assert published_table._typed("design_power_watts", text, ROWS) in (text, None)


def test_all_results_lists_rejected_results_with_a_value():
    report = _report()
    report.results.append(_result("closed/Bee/results/small/resnet50/Server", mlperf_model="resnet", value=4.0,
                                  valid=False, errors=2, system_fields=CPU, log_scenario="Server"))
    accepted = published_table.rows(report, COLUMNS_61, V6_CONVENTIONS, ROWS)
    every = published_table.rows(report, COLUMNS_61, V6_CONVENTIONS, ROWS, all_results=True)
    assert len(every) == len(accepted) + 1  # the rejected MultiStream has no value and stays out
    added = [row for row in every.values() if row["Scenario"] == "Server"]
    assert added and added[0]["errors"] == 2 and added[0]["Result"] == 4.0
