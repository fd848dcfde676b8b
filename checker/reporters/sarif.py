"""SARIF 2.1.0 output (OASIS Static Analysis Results Interchange Format), e.g. for GitHub code scanning.

One run; the driver lists one reporting descriptor (rule) per check code with its documentation;
each finding is one result with its rule, level, message and location (a URI relative to the
submission root, base id ``SUBMISSION_ROOT``). Waived findings carry an accepted external
suppression with the waiver's reason. Paths stay relative: the absolute root is not written.
"""

from __future__ import annotations

from urllib.parse import quote

from checker.diagnostics import Severity
from checker.registry import ALL_CHECKS, TOOL_CODES
from checker.report import Report
from checker.reporters import jsontext

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
ROOT_BASE = "SUBMISSION_ROOT"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note", Severity.OFF: "none"}
SEVERITY_LEVELS = {"error": "error", "warning": "warning", "info": "note", "off": "none"}


def _catalogue() -> list[tuple[str, str, str, str, dict]]:
    """(code, name, summary, full documentation, properties) for every registered code."""
    out = []
    for c in ALL_CHECKS:
        out.append((c.code, c.name, c.summary, c.doc,
                    {"category": c.category, "scope": c.scope, "stricterThanOfficial": c.stricter}))
    for code, (name, summary) in TOOL_CODES.items():
        out.append((code, name, summary, summary, {"category": "tool", "scope": "-", "stricterThanOfficial": False}))
    return out


def _rule(code: str, name: str, summary: str, doc: str, props: dict, severities: dict | None) -> dict:
    rule = {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": doc or summary},
        "help": {"text": f"{doc or summary}\n\nmlpc explain {code}"},
        "properties": dict(props),
    }
    if severities and code in severities:
        rule["defaultConfiguration"] = {"level": SEVERITY_LEVELS.get(str(severities[code]), "warning"),
                                        "enabled": str(severities[code]) != "off"}
    return rule


def _location(f, uri_prefix: str = "") -> dict:
    path = f.location.path or "."
    if uri_prefix:  # relative to the repository instead of the submission root (GitHub code scanning)
        uri = uri_prefix.strip("/") + ("" if path == "." else "/" + path)
        artifact = {"uri": quote(uri, safe="/._-~")}
    else:
        artifact = {"uri": quote(path, safe="/._-~"), "uriBaseId": ROOT_BASE}
    physical: dict = {"artifactLocation": artifact}
    if f.location.line is not None and f.location.line >= 1:
        physical["region"] = {"startLine": f.location.line}
    loc: dict = {"physicalLocation": physical}
    if f.result_id:
        loc["logicalLocations"] = [{"name": f.result_id.rsplit("/", 1)[-1], "fullyQualifiedName": f.result_id,
                                    "kind": "module"}]
    return loc


def to_data(report: Report, severities: dict | None = None, all_rules: bool = True, uri_prefix: str = "") -> dict:
    """The SARIF log as a dict. ``severities``: the round file's grades (rule default levels);
    ``all_rules``: list every registered code (else only the codes that were reported);
    ``uri_prefix``: where the submission root lies in a repository (URIs then start with it and are
    relative to the repository, as GitHub code scanning reads them)."""
    catalogue = _catalogue()
    known = {entry[0] for entry in catalogue}
    for f in report.findings:  # codes not in the registry (should not happen) still get a rule
        if f.code not in known:
            catalogue.append((f.code, f.code, f.code, "", {"category": "unknown", "scope": "-",
                                                            "stricterThanOfficial": False}))
            known.add(f.code)
    used = {f.code for f in report.findings}
    rules = [_rule(*entry, severities) for entry in catalogue if all_rules or entry[0] in used]
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    for f in report.findings:
        item: dict = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": LEVELS.get(f.severity, "warning"),
            "message": {"text": f.message},
            "locations": [_location(f, uri_prefix)],
        }
        props = {k: v for k, v in (("expected", f.expected), ("actual", f.actual), ("hint", f.hint),
                                   ("resultId", f.result_id), ("pointer", f.location.pointer),
                                   ("scope", f.scope or None)) if v is not None}
        if f.scope:
            props["invalidatesResults"] = f.invalidates
        if props:
            item["properties"] = props
        if f.waived:
            item["suppressions"] = [{"kind": "external", "status": "accepted", "justification": f.waived}]
        results.append(item)
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {"name": "mlpc", "rules": rules}},
            "originalUriBaseIds": {ROOT_BASE: {"description": {
                "text": "The submission root that was checked (paths are relative to it)."}}},
            "automationDetails": {"id": f"mlpc/{report.round}/{report.profile}/"},
            "columnKind": "unicodeCodePoints",
            "results": results,
            "properties": {"round": report.round, "profile": report.profile,
                           "compliantProfile": report.compliant_profile, "counts": report.counts(),
                           "results": [{"id": r.id, "valid": r.valid} for r in report.results]},
        }],
    }


def render(report: Report, severities: dict | None = None, all_rules: bool = True, uri_prefix: str = "") -> str:
    """SARIF 2.1.0 as JSON text; each result, rule and location record takes one line."""
    return jsontext.dumps(to_data(report, severities, all_rules, uri_prefix), records=("results", "rules")) + "\n"
