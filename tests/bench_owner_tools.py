"""The bench's site-tools section: the start of the demo site beside the same site with its own tools
(examples/owner-tools, installed when the page opens): when the built-in tools answer, when the site's
tools are listed (the build lists them from the start), and when their install has finished."""

import json
import shutil
import statistics

from bench_loads import browser_page, load
from bench_sites import Site
from owner_site import build_owner_site

from buildkit.paths import BUILD, LITE

SITE_TOOLS = ("course_list_exercises", "course_mark_for_review")  # examples/owner-tools
SITE_TOOLS_INSTALLED = ("() => !document.querySelector('.jp-webmcp-status')?.textContent"
                        ".includes('installing site tools')")
FIGURES = ("appRestoredMs", "toolsRegisteredMs", "toolsAfterRestoredMs", "firstCallAfterRestoredMs")


def owner_site(listed: bool):
    """The demo's lite folder with the example package in its pypi/, named in its settings or not (the
    control: the same site built the same way, without its own tools), built into build/."""
    work = BUILD / ("owner-site" if listed else "owner-site-control")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    demo = json.loads((LITE / "files" / "demo.ipynb").read_text())
    return build_owner_site(work, {"demo.ipynb": demo}, failing=False, listed=listed)


def measure_owner_tools(playwright, chromium: str, sites: list[Site], owned: Site, runs: int) -> dict:
    """Per site, `runs` first visits in a fresh profile, interleaved: the lab restored and the built-in tools
    registered (ms from the page's navigation), the built-in tools registered and the first built-in call
    answered (ms after the lab restored), and for the site with its own tools (`owned`), when they were all
    in the browser's list (ms from the navigation) and when their install finished (ms after restored)."""
    figures: dict = {site.label: {name: [] for name in (*FIGURES, "siteToolsListedMs", "siteToolsInstalledMs")}
                     for site in sites}
    for _ in range(runs):
        for site in sites:
            with browser_page(playwright, chromium) as page:
                measured = load(page, site, reload=False, trace=False, memory=False,
                                listed=SITE_TOOLS if site is owned else ())
                row = figures[site.label]
                for name in FIGURES:
                    row[name].append(measured[name])
                if site is owned:
                    row["siteToolsListedMs"].append(max(measured["seenMs"].values()))
                    page.wait_for_function(SITE_TOOLS_INSTALLED, timeout=120_000, polling=50)
                    installed = page.evaluate("() => Math.max(...performance.getEntriesByName('webmcp:ready')"
                                              ".map(mark => mark.startTime))")
                    restored = page.evaluate("() => window.__bench.restoredAt")
                    row["siteToolsInstalledMs"].append(installed - restored)
    return {label: {name: statistics.median(values) for name, values in row.items() if values}
            for label, row in figures.items()}


def print_owner_tools(figures: dict, runs: int) -> None:
    print(f"\nA site's own tools ({runs} cold loads each, medians)")
    print(f"{'':28}{'seconds from the page load until':^47} |{'ms after the lab restored until':^60}")
    print(f"{'site':28}{'lab restored':>14}{'built-in listed':>16}{'site tool listed':>17} |"
          f"{'built-in listed':>17}{'first built-in call':>21}{'site tools installed':>22}")
    for label, row in figures.items():
        listed = f"{row['siteToolsListedMs'] / 1000:.2f}" if "siteToolsListedMs" in row else "-"
        installed = f"{row['siteToolsInstalledMs']:,.0f}" if "siteToolsInstalledMs" in row else "-"
        print(f"{label:28}{row['appRestoredMs'] / 1000:>14.2f}{row['toolsRegisteredMs'] / 1000:>16.2f}{listed:>17} |"
              f"{row['toolsAfterRestoredMs']:>17,.0f}{row['firstCallAfterRestoredMs']:>21,.0f}{installed:>22}")
    if any("siteToolsListedMs" in row for row in figures.values()):
        print("(a site tool listed: all of the site's tools in the browser's list; installed: its status no longer "
              "says installing site tools)")
