"""One self-contained, offline HTML page for a checked round (``index.html`` of ``mlpc report``).

Everything is inline: the report data as a JSON island, the CSS and a small script that builds the
tables (sortable by clicking a header), the filters (division, submitter, model, verdict, free
text), the per-result finding details and inline-SVG bar charts of the results per benchmark and
scenario. No network access, no external script or style sheet.

The filter state lives in the URL hash, e.g. ``index.html#submitter=NVIDIA&verdict=invalid``, so a
view can be bookmarked or shared. After each render the script marks the DOM for tests and tools:
``<body data-mlpc-ready="1">`` and, on the results table, ``data-rows-total`` and
``data-rows-visible``; filtered-out rows carry the ``hidden`` attribute.
"""

from __future__ import annotations

import html
import json

from checker.diagnostics import Severity
from checker.report import Report, results_in_scope, scope_note
from checker.reporters.markdown import accuracy_text, compliance_text
from checker.words import count


def page_data(report: Report) -> dict:
    """The JSON island: results with the indexes of the findings in their scope, and the findings."""
    findings = []
    for i, f in enumerate(report.findings):
        findings.append({
            "code": f.code, "severity": f.severity.value, "where": str(f.location), "message": f.message,
            "expected": f.expected, "actual": f.actual, "hint": f.hint, "waived": f.waived,
            "scope": f.result_id, "level": scope_note(f),
        })
    per_result: dict[str, list[int]] = {r.id: [] for r in report.results}
    holders_of = results_in_scope(per_result)
    loose = []
    for i, f in enumerate(report.findings):
        holders = holders_of(f.result_id)
        for rid in holders:
            per_result[rid].append(i)
        if not holders:
            loose.append(i)
    results = []
    for r in report.results:
        results.append({
            "id": r.id, "division": r.division, "submitter": r.submitter, "system": r.system, "model": r.model,
            "benchmark": r.mlperf_model, "scenario": r.scenario, "valid": r.valid, "value": r.value,
            "unit": r.unit, "power": r.power_value, "power_unit": r.power_unit, "inferred": r.inferred,
            "has_power": r.has_power, "accuracy": accuracy_text(r), "compliance": compliance_text(r),
            "compliance_status": r.compliance, "errors": r.errors, "warnings": r.warnings,
            "findings": per_result[r.id],
        })
    return {"round": report.round, "round_reason": report.round_reason, "profile": report.profile,
            "counts": report.counts(), "results": results, "findings": findings, "loose": loose}


def _json_island(data: dict) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


CSS = r"""
:root { --ok: #1b7f3b; --bad: #b3261e; --warn: #9a6700; --muted: #666; --line: #ddd; --bg: #fafafa; }
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #111; }
header { padding: 12px 20px; background: #20304a; color: #fff; }
header h1 { margin: 0 0 4px; font-size: 20px; }
header .meta { color: #cdd6e4; }
.warnbar { background: #7a1f5c; color: #fff; padding: 6px 20px; font-weight: bold; }
main { padding: 12px 20px 40px; }
section { margin: 18px 0; }
h2 { font-size: 17px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
.counts span { display: inline-block; margin-right: 14px; }
.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: end; background: var(--bg);
           border: 1px solid var(--line); padding: 8px 10px; position: sticky; top: 0; z-index: 2; }
.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
.filters select, .filters input { font: inherit; padding: 2px 4px; min-width: 140px; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: #eef1f5; cursor: pointer; user-select: none; white-space: nowrap; position: relative; }
th[data-dir="asc"]::after { content: " \25B2"; font-size: 10px; }
th[data-dir="desc"]::after { content: " \25BC"; font-size: 10px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
code, .id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; overflow-wrap: anywhere; }
#results td:first-child { min-width: 24em; }
#results td:nth-child(10), #results td:nth-child(11) { min-width: 20em; }
#results td:last-child { min-width: 16em; }
.scroll { overflow-x: auto; }
.valid { color: var(--ok); font-weight: bold; }
.invalid { color: var(--bad); font-weight: bold; }
.sev-error { color: var(--bad); font-weight: bold; }
.sev-warning { color: var(--warn); font-weight: bold; }
.sev-info { color: var(--muted); }
.waived { text-decoration: line-through; color: var(--muted); }
details summary { cursor: pointer; }
details table { margin: 6px 0; font-size: 12px; }
.flag { display: inline-block; padding: 0 5px; border-radius: 3px; background: #e4e8ef; font-size: 11px; margin-right: 3px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 14px; }
.chart { border: 1px solid var(--line); padding: 6px 8px; background: #fff; }
.chart h3 { font-size: 13px; margin: 0 0 4px; }
.chart svg text { font-size: 11px; fill: #222; }
.chart .bar { fill: #3d6fb4; }
.muted { color: var(--muted); }
"""

SCRIPT = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("mlpc-data").textContent);
  var FILTERS = ["division", "submitter", "model", "verdict", "text"];
  var state = { division: "", submitter: "", model: "", verdict: "", text: "" };

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (attrs[k] === null || attrs[k] === undefined) { return; }
        if (k === "text") { node.textContent = attrs[k]; } else { node.setAttribute(k, attrs[k]); }
      });
    }
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }
  function num(v) { return (v === null || v === undefined) ? "" : String(v); }
  function uniq(values) {
    var seen = {}; var out = [];
    values.forEach(function (v) { if (!seen[v]) { seen[v] = true; out.push(v); } });
    return out.sort(function (a, b) { return a.localeCompare(b); });
  }

  function parseHash() {
    var text = window.location.hash.replace(/^#/, "");
    text.split("&").forEach(function (part) {
      if (!part) { return; }
      var eq = part.indexOf("=");
      var key = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
      var value = eq < 0 ? "" : decodeURIComponent(part.slice(eq + 1).replace(/\+/g, " "));
      if (FILTERS.indexOf(key) >= 0) { state[key] = value; }
    });
  }
  function writeHash() {
    var parts = FILTERS.filter(function (k) { return state[k]; }).map(function (k) {
      return encodeURIComponent(k) + "=" + encodeURIComponent(state[k]);
    });
    var hash = parts.length ? "#" + parts.join("&") : "";
    if (window.location.hash !== hash && window.history && window.history.replaceState) {
      try { window.history.replaceState(null, "", hash || window.location.pathname); } catch (e) { /* file:// */ }
    }
  }

  function findingTable(indexes) {
    var rows = indexes.map(function (i) {
      var f = data.findings[i];
      return el("tr", { "class": f.waived ? "waived-row" : null }, [
        el("td", {}, [el("span", { "class": "sev-" + f.severity + (f.waived ? " waived" : ""), text: f.code })]),
        el("td", { text: f.severity + (f.waived ? " (waived)" : "") }),
        el("td", { text: f.level || "" }),
        el("td", {}, [el("code", { text: f.where })]),
        el("td", { text: f.message }),
        el("td", { text: num(f.expected) }),
        el("td", { text: num(f.actual) }),
        el("td", { text: f.waived ? "waived: " + f.waived : num(f.hint) })
      ]);
    });
    var head = el("tr", {}, ["code", "severity", "scope", "where", "message", "expected", "actual", "hint / waiver"].map(
      function (h) { return el("th", { text: h }); }));
    return el("table", { "class": "findings" }, [el("thead", {}, [head]), el("tbody", {}, rows)]);
  }

  function idNode(id) {
    var node = el("span", { "class": "id" });
    id.split("/").forEach(function (part, i) {
      if (i) { node.appendChild(document.createTextNode("/")); node.appendChild(document.createElement("wbr")); }
      node.appendChild(document.createTextNode(part));
    });
    return node;
  }
  // six significant figures, as the text report prints values (%.6g)
  function shown(v) { return String(Number(Number(v).toPrecision(6))); }

  function resultValue(r) {
    if (r.value === null || r.value === undefined) { return "no value"; }
    return shown(r.value) + " " + (r.unit || "");
  }

  function buildResults() {
    var body = document.querySelector("#results tbody");
    data.results.forEach(function (r, i) {
      var flags = el("td", {}, []);
      if (r.inferred) { flags.appendChild(el("span", { "class": "flag", text: "inferred" })); }
      if (r.has_power) { flags.appendChild(el("span", { "class": "flag", text: "power" })); }
      var detail;
      if (r.findings.length) {
        var nerr = 0, nwarn = 0;
        r.findings.forEach(function (k) {
          var f = data.findings[k];
          if (f.waived) { return; }
          if (f.severity === "error") { nerr++; } else if (f.severity === "warning") { nwarn++; }
        });
        detail = el("details", {}, [el("summary", { text: r.findings.length + " finding(s): " + nerr + " E, " + nwarn + " W" }),
                                    findingTable(r.findings)]);
      } else {
        detail = el("span", { "class": "muted", text: "none" });
      }
      var row = el("tr", { "class": "result-row", "data-index": String(i), "data-division": r.division,
                          "data-submitter": r.submitter, "data-model": r.benchmark,
                          "data-verdict": r.valid ? "valid" : "invalid" }, [
        el("td", {}, [idNode(r.id)]),
        el("td", { "data-sort": r.valid ? "1" : "0" }, [el("span", { "class": r.valid ? "valid" : "invalid", text: r.valid ? "valid" : "INVALID" })]),
        el("td", { text: r.division }),
        el("td", { text: r.submitter }),
        el("td", { text: r.system }),
        el("td", { text: r.model === r.benchmark ? r.model : r.model + " (" + r.benchmark + ")" }),
        el("td", { text: r.scenario }),
        el("td", { "class": "num", "data-sort": num(r.value), text: resultValue(r) }),
        el("td", { "class": "num", "data-sort": num(r.power), text: r.power === null ? "" : shown(r.power) + " " + (r.power_unit || "") }),
        el("td", { text: r.accuracy }),
        el("td", { text: r.compliance }),
        flags,
        el("td", { "class": "num", "data-sort": String(r.errors), text: String(r.errors) }),
        el("td", { "class": "num", "data-sort": String(r.warnings), text: String(r.warnings) }),
        el("td", {}, [detail])
      ]);
      body.appendChild(row);
    });
  }

  function buildSubmitters() {
    var body = document.querySelector("#submitters tbody");
    var groups = {};
    data.results.forEach(function (r) {
      var key = r.division + "/" + r.submitter;
      var g = groups[key] || (groups[key] = { division: r.division, submitter: r.submitter, n: 0, ok: 0, power: 0, inferred: 0, errors: 0, warnings: 0 });
      g.n++; if (r.valid) { g.ok++; } if (r.has_power) { g.power++; } if (r.inferred) { g.inferred++; }
    });
    Object.keys(groups).sort().forEach(function (key) {
      var g = groups[key];
      body.appendChild(el("tr", { "class": "submitter-row", "data-division": g.division, "data-submitter": g.submitter }, [
        el("td", { text: g.division }), el("td", { text: g.submitter }),
        el("td", { "class": "num", "data-sort": String(g.n), text: String(g.n) }),
        el("td", { "class": "num", "data-sort": String(g.ok), text: String(g.ok) }),
        el("td", { "class": "num", "data-sort": String(g.n - g.ok), text: String(g.n - g.ok) }),
        el("td", { "class": "num", "data-sort": String(g.power), text: String(g.power) }),
        el("td", { "class": "num", "data-sort": String(g.inferred), text: String(g.inferred) })
      ]));
    });
  }

  function buildCodes() {
    var body = document.querySelector("#codes tbody");
    var groups = {};
    data.findings.forEach(function (f) {
      var key = f.code + "|" + f.severity;
      var g = groups[key] || (groups[key] = { code: f.code, severity: f.severity, n: 0, waived: 0 });
      g.n++; if (f.waived) { g.waived++; }
    });
    Object.keys(groups).sort().forEach(function (key) {
      var g = groups[key];
      body.appendChild(el("tr", {}, [
        el("td", {}, [el("span", { "class": "sev-" + g.severity, text: g.code })]), el("td", { text: g.severity }),
        el("td", { "class": "num", "data-sort": String(g.n), text: String(g.n) }),
        el("td", { "class": "num", "data-sort": String(g.waived), text: String(g.waived) })
      ]));
    });
    var loose = document.getElementById("loose");
    if (data.loose.length) { loose.appendChild(findingTable(data.loose)); }
    else { loose.appendChild(el("p", { "class": "muted", text: "None." })); }
  }

  function fillSelect(id, values) {
    var select = document.getElementById(id);
    values.forEach(function (v) { select.appendChild(el("option", { value: v, text: v })); });
  }

  function matches(r) {
    if (state.division && r.division !== state.division) { return false; }
    if (state.submitter && r.submitter !== state.submitter) { return false; }
    if (state.model && r.benchmark !== state.model) { return false; }
    if (state.verdict && (r.valid ? "valid" : "invalid") !== state.verdict) { return false; }
    if (state.text) {
      var hay = [r.id, r.system, r.model, r.benchmark, r.scenario].join(" ").toLowerCase();
      if (hay.indexOf(state.text.toLowerCase()) < 0) { return false; }
    }
    return true;
  }

  function drawCharts(visible) {
    var box = document.getElementById("charts");
    while (box.firstChild) { box.removeChild(box.firstChild); }
    var groups = {};
    visible.forEach(function (r) {
      if (!r.valid || r.value === null || r.value === undefined) { return; }
      var key = r.benchmark + " | " + r.scenario + " | " + (r.unit || "");
      (groups[key] || (groups[key] = [])).push(r);
    });
    var keys = Object.keys(groups).sort();
    if (!keys.length) { box.appendChild(el("p", { "class": "muted", text: "No valid result matches the filters." })); }
    var NS = "http://www.w3.org/2000/svg";
    keys.forEach(function (key) {
      var rows = groups[key].slice().sort(function (a, b) { return b.value - a.value; });
      var max = rows.reduce(function (m, r) { return Math.max(m, r.value); }, 0) || 1;
      var barH = 16, gap = 4, labelW = 170, width = 230, valueW = 70;
      var height = rows.length * (barH + gap) + gap;
      var svg = document.createElementNS(NS, "svg");
      svg.setAttribute("viewBox", "0 0 " + (labelW + width + valueW) + " " + height);
      svg.setAttribute("width", "100%");
      svg.setAttribute("role", "img");
      rows.forEach(function (r, i) {
        var y = gap + i * (barH + gap);
        var w = Math.max(1, Math.round(width * r.value / max));
        var label = document.createElementNS(NS, "text");
        label.setAttribute("x", String(labelW - 4)); label.setAttribute("y", String(y + barH - 4));
        label.setAttribute("text-anchor", "end");
        var name = r.submitter + " / " + r.system;
        label.textContent = name.length > 32 ? name.slice(0, 31) + "\u2026" : name;
        var bar = document.createElementNS(NS, "rect");
        bar.setAttribute("class", "bar"); bar.setAttribute("x", String(labelW)); bar.setAttribute("y", String(y));
        bar.setAttribute("width", String(w)); bar.setAttribute("height", String(barH));
        var tip = document.createElementNS(NS, "title");
        tip.textContent = r.id + ": " + r.value + " " + (r.unit || "");
        bar.appendChild(tip);
        var val = document.createElementNS(NS, "text");
        val.setAttribute("x", String(labelW + w + 4)); val.setAttribute("y", String(y + barH - 4));
        val.textContent = String(Math.round(r.value * 1000) / 1000);
        svg.appendChild(label); svg.appendChild(bar); svg.appendChild(val);
      });
      var lower = /latency|joules/i.test(key) ? " (lower is better)" : "";
      box.appendChild(el("div", { "class": "chart", "data-key": key }, [el("h3", { text: key + lower }), svg]));
    });
  }

  function apply() {
    FILTERS.forEach(function (k) {
      var input = document.getElementById("f-" + k);
      if (input && input.value !== state[k]) { input.value = state[k]; }
    });
    var rows = document.querySelectorAll("#results tbody tr.result-row");
    var visible = [];
    Array.prototype.forEach.call(rows, function (row) {
      var r = data.results[Number(row.getAttribute("data-index"))];
      if (matches(r)) { row.removeAttribute("hidden"); visible.push(r); } else { row.setAttribute("hidden", ""); }
    });
    Array.prototype.forEach.call(document.querySelectorAll("#submitters tbody tr"), function (row) {
      var show = (!state.division || row.getAttribute("data-division") === state.division) &&
                 (!state.submitter || row.getAttribute("data-submitter") === state.submitter);
      if (show) { row.removeAttribute("hidden"); } else { row.setAttribute("hidden", ""); }
    });
    var table = document.getElementById("results");
    table.setAttribute("data-rows-total", String(rows.length));
    table.setAttribute("data-rows-visible", String(visible.length));
    document.getElementById("shown").textContent = visible.length + " of " + rows.length + " results shown";
    drawCharts(visible);
    document.body.setAttribute("data-mlpc-filter", FILTERS.filter(function (k) { return state[k]; })
      .map(function (k) { return k + "=" + state[k]; }).join("&"));
    document.body.setAttribute("data-mlpc-ready", "1");
  }

  function sortable(table) {
    var heads = table.querySelectorAll("thead th");
    Array.prototype.forEach.call(heads, function (th, col) {
      th.addEventListener("click", function () {
        var dir = th.getAttribute("data-dir") === "asc" ? "desc" : "asc";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("data-dir"); });
        th.setAttribute("data-dir", dir);
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        function key(row) {
          var cell = row.cells[col];
          var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
          var n = raw === "" ? NaN : Number(raw);
          return { n: n, s: raw.toLowerCase() };
        }
        rows.sort(function (a, b) {
          var ka = key(a), kb = key(b), c;
          if (!isNaN(ka.n) && !isNaN(kb.n)) { c = ka.n - kb.n; }
          else if (isNaN(ka.n) !== isNaN(kb.n)) { c = isNaN(ka.n) ? 1 : -1; }
          else { c = ka.s < kb.s ? -1 : (ka.s > kb.s ? 1 : 0); }
          return dir === "asc" ? c : -c;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  }

  buildResults();
  buildSubmitters();
  buildCodes();
  fillSelect("f-division", uniq(data.results.map(function (r) { return r.division; })));
  fillSelect("f-submitter", uniq(data.results.map(function (r) { return r.submitter; })));
  fillSelect("f-model", uniq(data.results.map(function (r) { return r.benchmark; })));
  FILTERS.forEach(function (k) {
    var input = document.getElementById("f-" + k);
    input.addEventListener(k === "text" ? "input" : "change", function () { state[k] = input.value; writeHash(); apply(); });
  });
  document.getElementById("f-reset").addEventListener("click", function () {
    FILTERS.forEach(function (k) { state[k] = ""; }); writeHash(); apply();
  });
  window.addEventListener("hashchange", function () {
    FILTERS.forEach(function (k) { state[k] = ""; }); parseHash(); apply();
  });
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);
  parseHash();
  apply();
}());
"""


def _th(names) -> str:
    return "".join(f"<th>{html.escape(n)}</th>" for n in names)


def render(report: Report) -> str:
    data = page_data(report)
    counts = report.counts()
    esc = html.escape
    warn = ""
    checker = (f" &middot; checked by mlpc {esc(report.tool_version)}, fingerprint "
               f"<code>{esc(report.fingerprint[:16])}</code>" if report.fingerprint else "")
    if not report.compliant_profile:
        warn = (f'<div class="warnbar">Profile \'{esc(report.profile)}\': results checked this way are NOT '
                "compliant MLPerf results.</div>")
    waived = sum(1 for f in report.findings if f.waived)
    infos = sum(1 for f in report.findings if f.severity == Severity.INFO and not f.waived)
    results_head = _th(["ID", "verdict", "division", "submitter", "system", "model", "scenario", "result", "power",
                        "accuracy vs target", "compliance", "flags", "E", "W", "findings"])
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>mlpc report: round {esc(report.round)}</title>
<style>{CSS}</style>
</head>
<body>
<header>
<h1>mlpc report: round {esc(report.round)}</h1>
<div class="meta">round chosen: {esc(report.round_reason or "-")} &middot; profile: {esc(report.profile)} &middot;
paths relative to the submission root{checker}</div>
</header>
{warn}
<main>
<section class="counts" id="counts">
<span>{count(counts['results'], 'result')}</span><span class="valid">{counts['valid']} valid</span>
<span class="invalid">{counts['invalid']} invalid</span><span class="sev-error">{count(counts['errors'], 'error')}</span>
<span class="sev-warning">{count(counts['warnings'], 'warning')}</span><span class="sev-info">{infos} info</span>
<span class="muted">{waived} waived</span>
</section>
<noscript><p><strong>This page needs JavaScript to show its tables</strong> (no network access is used).
The same data is in report.json, summary.csv and the Markdown review packs.</p></noscript>
<form class="filters" id="filters" onsubmit="return false">
<label>division<select id="f-division"><option value="">all</option></select></label>
<label>submitter<select id="f-submitter"><option value="">all</option></select></label>
<label>benchmark<select id="f-model"><option value="">all</option></select></label>
<label>verdict<select id="f-verdict"><option value="">all</option><option value="valid">valid</option>
<option value="invalid">invalid</option></select></label>
<label>search<input id="f-text" type="search" placeholder="id, system, model"></label>
<button type="button" id="f-reset">reset</button>
<span id="shown" class="muted"></span>
</form>
<section>
<h2>Results</h2>
<div class="scroll"><table id="results" class="sortable"><thead><tr>{results_head}</tr></thead><tbody></tbody></table></div>
</section>
<section>
<h2>Results per benchmark and scenario (valid results that match the filters)</h2>
<div id="charts" class="charts"></div>
</section>
<section>
<h2>Submitters</h2>
<table id="submitters" class="sortable"><thead><tr>{_th(["division", "submitter", "results", "valid", "invalid", "power", "inferred"])}</tr></thead><tbody></tbody></table>
</section>
<section>
<h2>Findings by code</h2>
<table id="codes" class="sortable"><thead><tr>{_th(["code", "severity", "findings", "waived"])}</tr></thead><tbody></tbody></table>
</section>
<section>
<h2>Findings not tied to a result</h2>
<div id="loose"></div>
</section>
</main>
<script type="application/json" id="mlpc-data">{_json_island(data)}</script>
<script>{SCRIPT}</script>
</body>
</html>
"""
