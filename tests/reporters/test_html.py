"""index.html: self-contained and offline; in headless Chromium the script builds the tables and the
URL-hash filter hides the rows that do not match.

The browser tests skip when no Chromium is installed (Debian: `apt-get install -y chromium`), and fail
instead under CI (CI=true: .ci/run installs Debian's chromium).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from checker.reporters import html as html_report
from tests.conftest import missing_tool

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    missing_tool("headless Chromium not found (Debian: apt-get install -y chromium); browser test skipped")


def _island(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="mlpc-data">(.*?)</script>', page, re.S)
    assert match, "data island missing"
    return json.loads(match.group(1))


def test_page_is_self_contained(synthetic):
    page = html_report.render(synthetic)
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc=", page, re.I)
    assert not re.search(r"<link\b", page, re.I)
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", page, re.I)
    assert not re.search(r"\b(fetch|XMLHttpRequest|WebSocket|import)\s*\(", page)
    assert "default-src 'none'" in page  # the page itself forbids network access
    data = _island(page)
    assert [r["id"] for r in data["results"]] == [r.id for r in synthetic.results]
    # hostile text stays inert: no raw '<' inside the JSON island
    island = page.split('id="mlpc-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in island and "\\u003cscript\\u003e" in island
    bad = next(r for r in data["results"] if not r["valid"])
    assert {data["findings"][i]["code"] for i in bad["findings"]} == {"PF001", "CP005", "SY011"}
    assert [data["findings"][i]["code"] for i in data["loose"]] == ["ST010"]


class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows: list[dict] = []
        self.body: dict = {}
        self.table: dict = {}
        self.charts = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "result-row" in (attrs.get("class") or "").split():
            self.rows.append(attrs)
        elif tag == "body":
            self.body = attrs
        elif tag == "table" and attrs.get("id") == "results":
            self.table = attrs
        elif tag == "div" and attrs.get("class") == "chart":
            self.charts += 1


def _dump(page_path: str, tmp_path, fragment: str = "") -> _Rows:
    browser = _browser()
    profile = tmp_path / "chromium-profile"
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
               f"--user-data-dir={profile}", "--dump-dom", f"file://{page_path}{fragment}"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=90, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("headless Chromium did not finish within 90 s")
    assert done.returncode == 0, done.stderr[-2000:]
    parsed = _Rows()
    parsed.feed(done.stdout)
    parsed.dom = done.stdout
    assert parsed.body.get("data-mlpc-ready") == "1", "the page script did not run"
    return parsed


@pytest.fixture()
def page(tmp_path, synthetic):
    path = tmp_path / "index.html"
    path.write_text(html_report.render(synthetic), encoding="utf-8")
    return str(path)


def test_browser_renders_rows_and_charts(page, tmp_path, synthetic):
    dom = _dump(page, tmp_path)
    assert len(dom.rows) == len(synthetic.results)
    assert not [r for r in dom.rows if "hidden" in r]
    assert dom.table["data-rows-visible"] == dom.table["data-rows-total"] == str(len(synthetic.results))
    assert dom.charts == 4  # valid results per (benchmark, scenario, unit); the invalid bert-99 has no value


@pytest.mark.parametrize("fragment, visible", [
    ("#submitter=Acme", lambda r: r["data-submitter"] == "Acme"),
    ("#verdict=invalid", lambda r: r["data-verdict"] == "invalid"),
    ("#division=closed&model=resnet", lambda r: r["data-division"] == "closed" and r["data-model"] == "resnet"),
])
def test_browser_hash_filter_hides_rows(page, tmp_path, fragment, visible):
    dom = _dump(page, tmp_path, fragment)
    assert dom.rows, "no rows rendered"
    shown = [r for r in dom.rows if "hidden" not in r]
    hidden = [r for r in dom.rows if "hidden" in r]
    assert shown == [r for r in dom.rows if visible(r)]
    assert hidden == [r for r in dom.rows if not visible(r)]
    assert dom.table["data-rows-visible"] == str(len(shown))
    assert dom.body["data-mlpc-filter"] == fragment[1:]


def test_browser_on_real_round(tmp_path, real41):
    path = tmp_path / "index.html"
    path.write_text(html_report.render(real41), encoding="utf-8")
    dom = _dump(str(path), tmp_path, "#submitter=NVIDIA")
    assert len(dom.rows) == len(real41.results)
    shown = [r for r in dom.rows if "hidden" not in r]
    assert len(shown) == sum(1 for r in real41.results if r.submitter == "NVIDIA") > 0
    assert all(r["data-submitter"] == "NVIDIA" for r in shown)
    assert dom.charts > 0


def test_browser_shows_values_as_the_text_report(tmp_path, real41):
    """Result values and power in the results table have six significant figures, as in the text report
    (the page showed 7636.489583333 where the text showed 7636.49)."""
    path = tmp_path / "index.html"
    path.write_text(html_report.render(real41), encoding="utf-8")
    dom = _dump(str(path), tmp_path)
    import re

    page = re.sub(r"<script.*?</script>", "", dom.dom, flags=re.S).replace("<wbr>", "")  # not its data island
    table = re.sub(r"<[^>]*>", "|", page)  # the text a reader sees (sort keys in attributes keep every digit)
    powered = [r for r in real41.results if r.power_value is not None]
    assert powered
    for r in powered:
        assert f"{r.power_value:.6g} {r.power_unit}" in table, r.id
        if f"{r.power_value:.6g}" != repr(r.power_value):
            assert repr(r.power_value) not in table, r.id
    for r in real41.results:
        if r.value is not None:
            assert f"|{r.value:.6g} {r.unit or ''}".rstrip() in table, r.id
