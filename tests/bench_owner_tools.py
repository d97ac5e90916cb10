"""The bench's site-tools section: the start of the demo site beside the same site with its own tools
(examples/owner-tools, installed when the page opens): when the built-in tools answer, and when the
site's tools are listed."""

import json
import shutil
import statistics

from bench_loads import browser_page, load
from bench_sites import Site
from owner_site import build_owner_site

from buildkit.paths import BUILD, LITE

SITE_TOOLS_LISTED = "() => !document.querySelector('.jp-webmcp-status')?.textContent.includes('installing site tools')"


def owner_site(listed: bool):
    """The demo's lite folder with the example package in its pypi/, named in its settings or not (the
    control: the same site built the same way, without its own tools), built into build/."""
    work = BUILD / ("owner-site" if listed else "owner-site-control")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    demo = json.loads((LITE / "files" / "demo.ipynb").read_text())
    return build_owner_site(work, {"demo.ipynb": demo}, failing=False, listed=listed)


def measure_owner_tools(playwright, chromium: str, sites: list[Site], owned: Site, runs: int) -> dict:
    """Per site, `runs` first visits in a fresh profile, interleaved: the built-in tools registered, the first
    built-in call answered (both after the lab restored), and for the site with its own tools (`owned`),
    when they were listed."""
    figures: dict = {site.label: {"toolsAfterRestoredMs": [], "firstCallAfterRestoredMs": [], "siteToolsMs": []}
                     for site in sites}
    for _ in range(runs):
        for site in sites:
            with browser_page(playwright, chromium) as page:
                measured = load(page, site, reload=False, trace=False, memory=False)
                row = figures[site.label]
                row["toolsAfterRestoredMs"].append(measured["toolsAfterRestoredMs"])
                row["firstCallAfterRestoredMs"].append(measured["firstCallAfterRestoredMs"])
                if site is owned:
                    page.wait_for_function(SITE_TOOLS_LISTED, timeout=120_000, polling=50)
                    listed = page.evaluate("() => Math.max(...performance.getEntriesByName('webmcp:ready')"
                                           ".map(mark => mark.startTime))")
                    restored = page.evaluate("() => window.__bench.restoredAt")
                    row["siteToolsMs"].append(listed - restored)
    return {label: {name: statistics.median(values) for name, values in row.items() if values}
            for label, row in figures.items()}


def print_owner_tools(figures: dict, runs: int) -> None:
    print(f"\nA site's own tools ({runs} cold loads each, medians, ms after the lab restored)")
    print(f"{'site':24} {'built-in tools listed':>22} {'first built-in call':>20} {'site tools listed':>18}")
    for label, row in figures.items():
        site_tools = f"{row['siteToolsMs']:,.0f}" if "siteToolsMs" in row else "-"
        print(f"{label:24} {row['toolsAfterRestoredMs']:>22,.0f} {row['firstCallAfterRestoredMs']:>20,.0f} "
              f"{site_tools:>18}")
