#!/usr/bin/env python3
"""Make the README's screenshots with headless Chromium (Debian: apt-get install -y chromium).

    python docs/make_screenshots.py [--shared ../shared]

* docs/review-page.png: `mlpc report`'s index.html of the real v4.1 subset (shared/real_submissions/v4.1;
  the bundled example tree when absent), filtered to its invalid results;
* docs/terminal.png: `mlpc check` of a copy of fixtures/checks/_base with one result's accuracy lowered,
  as a terminal shows it (rich's SVG export of the coloured report, photographed by the browser).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
ACCURACY = "closed/Acme/results/edge_sys/gptj-99/Offline/accuracy/accuracy.txt"


def browser() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    sys.exit("no Chromium found (Debian: apt-get install -y chromium)")


def shoot(url: str, out: str, width: int, height: int, work: str) -> None:
    subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--disable-background-networking", "--disable-component-update", "--no-first-run",
                    f"--user-data-dir={os.path.join(work, 'profile')}", f"--window-size={width},{height}",
                    f"--screenshot={out}", url], check=True, capture_output=True, timeout=120)
    print(f"wrote {os.path.relpath(out, REPO)} ({os.path.getsize(out) // 1024} KiB)")


def review_page(shared: str, work: str) -> None:
    from checker.api import check
    from checker.reporters import html

    tree = os.path.join(shared, "real_submissions", "v4.1")
    report = check(tree, round="v4.1") if os.path.isdir(tree) else check(
        os.path.join(REPO, "fixtures", "example_submission"), profile="smoke")
    page = os.path.join(work, "index.html")
    with open(page, "w", encoding="utf-8") as handle:
        handle.write(html.render(report))
    shoot(f"file://{page}#verdict=invalid", os.path.join(HERE, "review-page.png"), 1600, 900, work)


def terminal(work: str) -> None:
    from rich.console import Console
    from rich.text import Text

    from checker.api import check
    from checker.reporters import text

    tree = os.path.join(work, "submission")
    shutil.copytree(os.path.join(REPO, "fixtures", "checks", "_base"), tree, symlinks=True)
    path = os.path.join(tree, ACCURACY)
    with open(path) as handle:
        body = handle.read()
    with open(path, "w") as handle:
        handle.write(body.replace("'rouge1': 43.1", "'rouge1': 41.0"))
    report = check(tree, cache=False)
    report.root = "submission"
    console = Console(record=True, width=118, force_terminal=True, color_system="truecolor", file=io.StringIO())
    console.print(Text("$ mlpc check submission", style="bold"))
    console.print(text.build(report))
    console.print(Text(f"$ echo $?\n{0 if report.ok() else 1}", style="bold"))
    svg = console.export_svg(title="mlpc check")
    width, height = (float(v) for v in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
    page = os.path.join(work, "terminal.html")
    with open(page, "w", encoding="utf-8") as handle:
        handle.write(f"<!DOCTYPE html><html><body style='margin:0'>{svg}</body></html>")
    shoot(f"file://{page}", os.path.join(HERE, "terminal.png"), int(width) + 1, int(height) + 1, work)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared", default=os.environ.get("MLPC_SHARED", os.path.join(os.path.dirname(REPO), "shared")))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="mlpc-screens-")
    os.environ.setdefault("MLPC_CACHE_DIR", os.path.join(work, "cache"))
    try:
        review_page(args.shared, work)
        terminal(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
