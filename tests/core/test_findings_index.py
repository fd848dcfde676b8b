"""The one-pass index of findings by result equals filtering all findings for each result."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from checker.diagnostics import Finding, Location
from checker.engine import _in_scope
from checker.summary import findings_by_result

_part = st.sampled_from(["closed", "open", "A", "B", "sys", "resnet50", "Offline", "Server", "x y", ""])
_rel = st.lists(_part, min_size=1, max_size=5).map("/".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(_rel, max_size=6, unique=True), st.lists(st.one_of(st.none(), _rel, st.just("")), max_size=12))
def test_index_equals_filter(rels, scopes):
    results = [SimpleNamespace(rel=rel) for rel in rels]
    findings = [Finding(message=f"m{i}", location=Location("p"), result_id=scope) for i, scope in enumerate(scopes)]
    index = findings_by_result(results, findings)
    for result in results:
        expected = [f for f in findings if f.result_id is not None and _in_scope(f.result_id, result.rel)]
        assert index[result.rel] == expected
