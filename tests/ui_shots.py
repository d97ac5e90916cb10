"""The human's side drawn, beside the reference extension's: the same notebook and the same agent calls on both
sites, screenshots in the light and the dark theme, and axe-core's findings in each Agent panel.

    python3 build.py shots

Our screenshots go to docs/images/ (the user docs show them), the reference's and the side-by-side ones to
build/shots/; the axe-core figures are printed.
"""

import json
import threading
from pathlib import Path

from jupyterlite_pyodide_webmcp.site_server import site_server
from playwright.sync_api import sync_playwright

from buildkit.env import CHROMIUM_FLAGS
from buildkit.paths import BUILD, ROOT, SITE
from buildkit.reference import REFERENCE_SITE
from tests.waiting import wait_until

DOCS_IMAGES = ROOT / "docs" / "images"
SHOTS = BUILD / "shots"
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
VIEWPORT = {"width": 1500, "height": 950}
PATH = "report.ipynb"
HIDE = {"jupyterlite_webmcp": {"access": "none"}}
READ = {"jupyterlite_webmcp": {"access": "read"}}
PANELS = {"bridge": "jp-webmcp-agent-panel", "reference": "jupyterlite-webmcp-panel"}
THEMES = ("light", "dark")


def code(cell_id: str, source: str, metadata: dict = None) -> dict:
    return {"cell_type": "code", "id": cell_id, "metadata": metadata or {}, "source": source, "outputs": [],
            "execution_count": None}


REPORT = {
    "nbformat": 4, "nbformat_minor": 5,
    "metadata": {"kernelspec": {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}},
    "cells": [
        {"cell_type": "markdown", "id": "title", "metadata": {}, "source": "# Sensor report\n\nReadings from the roof station."},
        code("readings", "readings = [0.12, 0.03, 0.07, 0.01, 0.2, 0.04]\nlen(readings)"),
        code("secret", "API_KEY = 'owner-only'", HIDE),
        code("filter", "tmp = [r for r in readings if r < 0.1]\nlimit = 0.15\nflagged = [r for r in readings if r > limit]\n"
                       "print(len(tmp), flagged)", READ),
        code("mean", "total = sum(readings)\nmean = total / len(readings)\nprint(mean)"),
    ],
}
MEAN_NOW = "total = sum(readings)\nmean = total / len(readings)\nprint(f'mean {mean:.3f} over {len(readings)} readings')"


def serve(directory: Path) -> str:
    server = site_server(0, directory)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def call(page, name: str, arguments: dict) -> dict:
    return json.loads(page.webmcp.call_tool(name, arguments)["content"][0]["text"])


def agent_session(page) -> None:
    """What the agent does on both sites: read the notebook, edit a cell, run two cells, comment."""
    cells = call(page, "jupyter_get_cells", {"notebookPath": PATH})["cells"]
    mean = next(cell for cell in cells if cell["id"] == "mean")
    call(page, "jupyter_update_cell", {"notebookPath": PATH, "cellId": "mean", "source": MEAN_NOW,
                                       "expectedSourceHash": mean["sourceHash"]})
    call(page, "jupyter_run_cells", {"notebookPath": PATH, "cellIds": ["readings", "mean"]})
    call(page, "jupyter_create_comment", {"notebookPath": PATH, "anchor": {"kind": "cell", "cellId": "mean"},
                                          "message": "Should the mean leave out the flagged readings?"})


def open_report(page, origin: str) -> None:
    page.goto(f"{origin}/lab/index.html")
    page.wait_for_function("() => !!window.jupyterapp", timeout=120_000)
    page.evaluate("() => window.jupyterapp.restored")
    wait_until(lambda: page.evaluate("async () => (await document.modelContext.getTools()).length") > 20, timeout=120)
    page.evaluate("""content => window.jupyterapp.serviceManager.contents.save('report.ipynb',
        {type: 'notebook', format: 'json', content})""", REPORT)
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:open', {path: 'report.ipynb', factory: 'Notebook'})")
    page.wait_for_function("""() => { const panel = window.jupyterapp.shell.currentWidget;
        return panel && panel.sessionContext && panel.sessionContext.session && panel.sessionContext.session.kernel
            && panel.sessionContext.session.kernel.status === 'idle'; }""", timeout=120_000, polling=500)


def theme(page, name: str) -> None:
    label = "JupyterLab Light" if name == "light" else "JupyterLab Dark"
    page.evaluate("theme => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", label)
    page.wait_for_function("light => document.body.dataset.jpThemeLight === light", arg=str(name == "light").lower())
    page.wait_for_timeout(800)


def axe_counts(page, panel: str) -> dict:
    """Violations of WCAG 2 A and AA that axe-core finds in the panel, by impact."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate("""async id => {
        const result = await axe.run(document.getElementById(id), {runOnly: ['wcag2a', 'wcag2aa']});
        const counts = {};
        for (const v of result.violations) counts[v.impact] = (counts[v.impact] || 0) + v.nodes.length;
        return counts; }""", panel)


def bridge_shots(page, found: dict) -> None:
    page.evaluate("() => window.jupyterapp.commands.execute('jupyterlite-pyodide-webmcp:show-agent-panel')")
    chip = page.locator(".jp-Notebook .jp-webmcp-chip-agent").first
    chip.wait_for()
    for name in THEMES:
        theme(page, name)
        page.screenshot(path=str(DOCS_IMAGES / f"after-agent-{name}.png"))
        found[f"bridge {name}"] = axe_counts(page, PANELS["bridge"])
    theme(page, "light")
    chip.click()
    page.locator(".jp-webmcp-change").wait_for()
    page.locator(".jp-webmcp-tabs .lm-TabBar-tab", has_text="Changes").click()
    page.wait_for_timeout(500)
    page.screenshot(path=str(DOCS_IMAGES / "undo-and-changes-light.png"))
    page.locator(".jp-webmcp-propose-toggle [role=switch]").set_checked(True)
    cells = call(page, "jupyter_get_cells", {"notebookPath": PATH, "cellIds": ["readings"]})["cells"]
    page.evaluate("""async ([name, input]) => {
        const tool = (await document.modelContext.getTools()).find(t => t.name === name);
        window.__proposal = document.modelContext.executeTool(tool, input); }""",
                  ["jupyter_update_cell", {"notebookPath": PATH, "cellId": "readings", "expectedSourceHash": cells[0]["sourceHash"],
                                           "source": "readings = [0.12, 0.03, 0.07, 0.01, 0.2, 0.04, 0.09]\nlen(readings)"}])
    page.locator(".jp-webmcp-proposal").wait_for()
    for name in THEMES:
        theme(page, name)
        page.locator(".jp-webmcp-tabs .lm-TabBar-tab", has_text="Activity").click()
        page.wait_for_timeout(1200)
        page.screenshot(path=str(DOCS_IMAGES / f"propose-{name}.png"))
    page.locator(".jp-webmcp-proposal-deny").click()
    page.evaluate("() => window.__proposal")
    page.locator(".jp-webmcp-propose-toggle [role=switch]").set_checked(False)
    theme(page, "light")


def reference_shots(page, found: dict) -> None:
    page.evaluate(f"() => window.jupyterapp.shell.activateById('{PANELS['reference']}')")
    page.wait_for_timeout(1500)
    for name in THEMES:
        theme(page, name)
        page.screenshot(path=str(SHOTS / f"reference-after-agent-{name}.png"))
        found[f"reference {name}"] = axe_counts(page, PANELS["reference"])
    theme(page, "light")


def take_shots(chromium: str) -> dict:
    """Draw both sites after the same agent session; returns axe-core's counts per site and theme."""
    DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
    SHOTS.mkdir(parents=True, exist_ok=True)
    found: dict = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        for site, folder, draw in (("bridge", SITE, bridge_shots), ("reference", REFERENCE_SITE, reference_shots)):
            page = browser.new_context(viewport=VIEWPORT).new_page()
            open_report(page, serve(folder))
            agent_session(page)
            draw(page, found)
            page.context.close()
        browser.close()
    print("axe-core, WCAG 2 A and AA, violations in the Agent panel by impact (nodes):")
    for name, counts in found.items():
        print(f"  {name}: {counts or 'none'}")
    print(f"screenshots: {DOCS_IMAGES.relative_to(ROOT)}/ (ours), {SHOTS.relative_to(ROOT)}/ (the reference's)")
    return found
