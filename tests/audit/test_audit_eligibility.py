"""Eligibility on constructed rounds: one test per clause of rules §2.8 and per exemption."""

from __future__ import annotations

import pytest
from helpers_audit import V41, need, parse_real_tree, res, sub

from checker.audit.eligibility import eligible, equivalence_differences


def by_id(rows):
    return {r.submission_id: r for r in rows}


# ------------------------------------------------------------------ auditable at all


def test_open_and_preview_are_not_auditable():
    rows = by_id(eligible([sub("A", "x", division="open"), sub("B", "y", status="preview"),
                           sub("C", "z", status="rdi"), sub("D", "w")], []))
    assert rows["open/A/x"].verdict == "not-auditable"
    assert "Closed" in rows["open/A/x"].reason
    assert rows["closed/B/y"].verdict == "not-auditable"
    assert "Available" in rows["closed/B/y"].reason
    assert rows["closed/C/z"].verdict == "not-auditable"
    assert rows["closed/D/w"].verdict == "eligible"


def test_division_and_status_are_normalised():
    rows = eligible([sub("A", "x", division=" Closed ", status="AVAILABLE")], [])
    assert rows[0].verdict == "eligible"


def test_duplicate_ids_refused():
    with pytest.raises(ValueError, match="duplicate"):
        eligible([sub("A", "x"), sub("A", "x")], [])


# ------------------------------------------------------------------ equivalence (previous round)


def test_equivalent_system_excluded_even_with_other_results_and_submitter():
    audited = sub("Acme", "old", res(value=1000))
    cur = sub("Other", "new", res("bert-99", value=5), res("resnet50", value=9999))
    row = eligible([cur], [audited])[0]
    assert row.verdict == "excluded-equivalent"
    assert row.matched_audit == "closed/Acme/old"
    assert row.equivalence[0].equivalent and row.equivalence[0].differences == ()


def test_equivalence_normalises_case_and_whitespace():
    audited = sub("Acme", "old", host_processor_model_name="Intel  Xeon Platinum 8480C ",
                  accelerator_model_name="nvidia h100-sxm-80gb", host_networking="INFINIBAND")
    row = eligible([sub("Acme", "new")], [audited])[0]
    assert row.verdict == "excluded-equivalent"


@pytest.mark.parametrize("field, value, label", [
    ("host_processor_model_name", "AMD EPYC 9654", "CPU"),
    ("host_processors_per_node", 1, "CPU count per node"),
    ("host_networking", "Ethernet 100G", "NIC"),
    ("host_network_card_count", "4", "NIC count"),
    ("accelerator_model_name", "NVIDIA H200-SXM-141GB", "accelerator"),
    ("accelerators_per_node", 4, "accelerator count"),
    ("number_of_nodes", 2, "accelerator count"),
])
def test_any_component_difference_breaks_equivalence(field, value, label):
    audited = sub("Acme", "old")
    cur = sub("Acme", "new", **{field: value})
    diffs = equivalence_differences(cur, audited)
    assert any(d.startswith(label + ":") for d in diffs), diffs
    row = eligible([cur], [audited], apply_guidance=False)[0]
    assert row.verdict == "eligible"
    assert row.equivalence[0].differences == diffs


def test_network_submissions_need_same_networking():
    audited = sub("Acme", "old", is_network=True, network_config={"network_type": "Ethernet",
                                                                   "network_rate": "100G"})
    same = sub("Acme", "a", is_network=True, network_config={"network_type": "ethernet",
                                                              "network_rate": "100G"})
    other = sub("Acme", "b", is_network=True, network_config={"network_type": "Ethernet",
                                                               "network_rate": "400G"})
    local = sub("Acme", "c")
    rows = by_id(eligible([same, other, local], [audited], apply_guidance=False))
    assert rows["closed/Acme/a"].verdict == "excluded-equivalent"
    assert "networking" in rows["closed/Acme/a"].reason
    assert rows["closed/Acme/b"].verdict == "eligible"
    assert any("network_rate" in d for d in rows["closed/Acme/b"].equivalence[0].differences)
    assert rows["closed/Acme/c"].verdict == "eligible"


def test_equivalence_uses_previous_round_only():
    old = sub("Acme", "old", round="v3.1")
    row = eligible([sub("Acme", "new")], [], [old], apply_guidance=False)[0]
    assert row.verdict == "eligible"


# ------------------------------------------------------------------ guidance exemption


def _audited(**kw):
    # same accelerator as the candidates, different CPU → never "equivalent"
    return sub("Acme", "aud", res("resnet50", "Offline", 1000.0), res("resnet50", "Server", 900.0),
               host_processor_model_name="AMD EPYC 9654", **kw)


def test_guidance_within_10_percent_excludes():
    cur = sub("Beta", "x", res("resnet50", "Offline", 1050.0), res("resnet50", "Server", 860.0))
    row = eligible([cur], [_audited()])[0]
    assert row.verdict == "excluded-guidance"
    metrics = {(c.scenario, c.metric): c for c in row.comparisons}
    assert metrics[("Offline", "aggregate performance")].deviation == pytest.approx(0.05)
    assert metrics[("Server", "performance per accelerator")].deviation == pytest.approx(-40 / 900)
    assert all(c.within for c in row.comparisons)


def test_guidance_boundary_is_inclusive_and_exact():
    ok = sub("Beta", "x", res("resnet50", "Offline", 1100.0), res("resnet50", "Server", 810.0))
    over = sub("Beta", "y", res("resnet50", "Offline", 1100.1), res("resnet50", "Server", 900.0))
    rows = by_id(eligible([ok, over], [_audited()]))
    assert rows["closed/Beta/x"].verdict == "excluded-guidance"
    assert rows["closed/Beta/y"].verdict == "eligible"
    assert "outside 10%" in rows["closed/Beta/y"].reason


def test_guidance_slower_by_more_than_10_percent_is_also_outside():
    cur = sub("Beta", "x", res("resnet50", "Offline", 850.0), res("resnet50", "Server", 900.0))
    assert eligible([cur], [_audited()])[0].verdict == "eligible"


def test_guidance_per_accelerator_checked_separately():
    # aggregate identical, but on 4 accelerators instead of 8: per accelerator +100 %
    cur = sub("Beta", "x", res("resnet50", "Offline", 1000.0), res("resnet50", "Server", 900.0),
              accelerators_per_node=4)
    row = eligible([cur], [_audited()])[0]
    assert row.verdict == "eligible"
    bad = [c for c in row.comparisons if not c.within]
    assert {c.metric for c in bad} == {"performance per accelerator"}
    assert bad[0].deviation == pytest.approx(1.0)


def test_guidance_latency_scenarios_compared_as_reciprocal():
    aud = sub("Acme", "aud", res("resnet50", "SingleStream", 0.50, "ms"),
              host_processor_model_name="AMD EPYC 9654")
    near = sub("Beta", "x", res("resnet50", "SingleStream", 0.52, "ms"))
    far = sub("Beta", "y", res("resnet50", "SingleStream", 0.40, "ms"))
    rows = by_id(eligible([near, far], [aud]))
    assert rows["closed/Beta/x"].verdict == "excluded-guidance"
    assert rows["closed/Beta/y"].verdict == "eligible"  # 25 % faster


def test_guidance_void_new_model():
    cur = sub("Beta", "x", res("resnet50", "Offline", 1000.0), res("bert-99", "Offline", 10.0))
    row = eligible([cur], [_audited()])[0]
    assert row.verdict == "eligible"
    assert row.voiding == ("new model bert-99",)
    assert "exemption void" in row.reason


def test_guidance_void_new_model_named_once():
    """A new model with three scenarios is one reason, not the same words three times."""
    cur = sub("Beta", "x", res("resnet50", "Offline", 1000.0), res("resnet50", "Server", 900.0),
              res("llama3.1-8b", "Offline", 10.0), res("llama3.1-8b", "Server", 9.0),
              res("llama3.1-8b", "Interactive", 8.0))
    row = eligible([cur], [_audited()])[0]
    assert row.voiding == ("new model llama3.1-8b",)
    assert row.reason.count("new model llama3.1-8b") == 1


def test_guidance_void_new_non_inferred_scenario_but_not_inferred_one():
    aud = sub("Acme", "aud", res("resnet50", "SingleStream", 0.5, "ms"),
              host_processor_model_name="AMD EPYC 9654", system_type="edge")
    measured = sub("Beta", "x", res("resnet50", "SingleStream", 0.5, "ms"),
                   res("resnet50", "MultiStream", 4.0, "ms"))
    inferred = sub("Beta", "y", res("resnet50", "SingleStream", 0.5, "ms"),
                   res("resnet50", "MultiStream", 4.0, "ms", inferred=True))
    rows = by_id(eligible([measured, inferred], [aud]))
    assert rows["closed/Beta/x"].verdict == "eligible"
    assert rows["closed/Beta/x"].voiding == ("additional non-inferred scenario resnet50/MultiStream",)
    assert rows["closed/Beta/y"].verdict == "excluded-guidance"


def test_guidance_void_new_power_measurement():
    cur = sub("Beta", "x", res("resnet50", "Offline", 1000.0, power_metric=500.0),
              res("resnet50", "Server", 900.0))
    row = eligible([cur], [_audited()])[0]
    assert row.verdict == "eligible"
    assert row.voiding == ("new power measurement resnet50/Offline",)


def test_guidance_power_efficiency_within_and_outside():
    aud = sub("Acme", "aud", res("resnet50", "Offline", 1000.0, power_metric=500.0),
              host_processor_model_name="AMD EPYC 9654")
    ok = sub("Beta", "x", res("resnet50", "Offline", 1000.0, power_metric=520.0))
    bad = sub("Beta", "y", res("resnet50", "Offline", 1000.0, power_metric=400.0))
    rows = by_id(eligible([ok, bad], [aud]))
    assert rows["closed/Beta/x"].verdict == "excluded-guidance"
    eff = [c for c in rows["closed/Beta/y"].comparisons if c.metric == "power efficiency"][0]
    assert eff.current == pytest.approx(2.5) and eff.audited == pytest.approx(2.0)
    assert not eff.within and rows["closed/Beta/y"].verdict == "eligible"


def test_guidance_power_present_but_metric_unknown_is_not_enough_evidence():
    aud = sub("Acme", "aud", res("resnet50", "Offline", 1000.0, power_metric=500.0),
              host_processor_model_name="AMD EPYC 9654")
    cur = sub("Beta", "x", res("resnet50", "Offline", 1000.0, has_power=True))
    row = eligible([cur], [aud])[0]
    assert row.verdict == "eligible" and "not enough evidence" in row.reason


def test_guidance_requires_same_accelerator():
    cur = sub("Beta", "x", res("resnet50", "Offline", 1000.0), res("resnet50", "Server", 900.0),
              accelerator_model_name="NVIDIA L40S")
    row = eligible([cur], [_audited()])[0]
    assert row.verdict == "eligible" and "not audited before" in row.reason


def test_guidance_uses_earlier_rounds_and_the_last_audit_time():
    older = sub("Acme", "v30", res("resnet50", "Offline", 1000.0),
                host_processor_model_name="AMD EPYC 9654", round="v3.0")
    newer = sub("Acme", "v31", res("resnet50", "Offline", 2000.0),
                host_processor_model_name="AMD EPYC 7763", round="v3.1")
    cur = sub("Beta", "x", res("resnet50", "Offline", 1020.0))
    row = eligible([cur], [], [older, newer])[0]
    # the last audit of this accelerator is v3.1 (2000/s): 1020 is −49 % → not exempt
    assert row.verdict == "eligible" and row.matched_audit == "closed/Acme/v31"
    assert "round v3.1" in row.reason
    # with v3.1 audited in the previous round the ordering is the same
    row2 = eligible([sub("Beta", "y", res("resnet50", "Offline", 1990.0))], [newer], [older])[0]
    assert row2.verdict == "excluded-guidance" and row2.matched_audit == "closed/Acme/v31"


def test_guidance_can_be_switched_off():
    cur = sub("Beta", "x", res("resnet50", "Offline", 1000.0), res("resnet50", "Server", 900.0))
    row = eligible([cur], [_audited()], apply_guidance=False)[0]
    assert row.verdict == "eligible"


def test_cpu_only_systems_use_the_cpu_as_accelerator():
    aud = sub("Acme", "aud", res("resnet50", "Offline", 25000.0), accelerator_model_name="N/A",
              accelerators_per_node=0, host_networking="Ethernet 100G")
    cur = sub("Beta", "x", res("resnet50", "Offline", 26000.0), accelerator_model_name="N/A",
              accelerators_per_node=0)
    row = eligible([cur], [aud])[0]
    assert row.verdict == "excluded-guidance"
    per_acc = [c for c in row.comparisons if c.metric == "performance per accelerator"][0]
    assert per_acc.current == pytest.approx(13000.0)  # two sockets


# ------------------------------------------------------------------ committee decisions


def test_committee_can_exempt_and_can_keep():
    aud = sub("Acme", "old")
    rows = by_id(eligible([sub("Acme", "same"), sub("Beta", "new", accelerator_model_name="X")],
                          [aud], committee_exempt={"closed/Beta/new"},
                          committee_not_exempt={"closed/Acme/same"}))
    assert rows["closed/Beta/new"].verdict == "excluded-committee"
    assert rows["closed/Acme/same"].verdict == "eligible"
    assert "review committee" in rows["closed/Acme/same"].reason


def test_rows_sorted_and_serialisable():
    rows = eligible([sub("B", "y"), sub("A", "x")], [])
    assert [r.submission_id for r in rows] == ["closed/A/x", "closed/B/y"]
    assert rows[0].model_dump(mode="json")["verdict"] == "eligible"


# ------------------------------------------------------------------ real v4.1 tree


def test_real_v41_round_eligibility():
    subs = parse_real_tree(need(V41))
    rows = by_id(eligible(subs, []))
    closed = [r for r in rows.values() if r.submission_id.startswith("closed/")]
    assert len(closed) == 6 and all(r.eligible for r in closed)
    assert all(not r.eligible for k, r in rows.items() if k.startswith("open/"))
    # pretend the NVIDIA H200 system was audited last round: it is then excluded as equivalent
    h200 = next(s for s in subs if s.system_id == "H200-SXM-141GBx8_TRT")
    rows2 = by_id(eligible(subs, [h200]))
    assert rows2["closed/NVIDIA/H200-SXM-141GBx8_TRT"].verdict == "excluded-equivalent"
    # the Untether r760 (6 accelerators) vs h13 (3): same accelerator, different counts and CPU
    r760 = next(s for s in subs if s.system_id == "r760_u6_slim")
    row = by_id(eligible(subs, [r760]))["closed/UntetherAI/h13_u3_slim"]
    assert row.verdict == "eligible" and row.matched_audit == "closed/UntetherAI/r760_u6_slim"
