"""A browser without WebMCP: no agent can connect, so nothing of the bridge's Python loads by itself; the human's
own controls (cell and notebook access, review comments, the Agent panel, Propose mode) start on a click on the
status item, or with the page when the settings ask for them."""

import json

from tests.browser.conftest import (
    CONTROLS_ON,
    STATUS,
    RequestRecorder,
    code_cell,
    notebook_json,
)
from tests.waiting import wait_until

SETTINGS_ID = "jupyterlite-pyodide-webmcp:bridge"
PATH = "controls.ipynb"
SAVE = """([path, content]) => window.jupyterapp.serviceManager.contents.save(path, {type: 'notebook', format: 'json',
    content})"""


def open_lab(no_webmcp, site_url, settings=None):
    context = no_webmcp.new_context(service_workers="block")
    recorder = RequestRecorder(site_url)
    context.on("request", recorder.record)
    page = context.new_page()
    page.goto(f"{site_url}/lab/index.html")
    page.wait_for_selector(f"{STATUS}[data-state=unavailable]", timeout=120_000)
    if settings is not None:
        page.evaluate("([id, raw]) => window.jupyterapp.serviceManager.settings.save(id, raw)",
                      [SETTINGS_ID, json.dumps(settings)])
    page.evaluate(SAVE, [PATH, notebook_json([code_cell("first", "x = 1"), code_cell("second", "y = 2")])])
    return context, page, recorder


def bridge_requests(recorder) -> list[str]:
    """What the page fetched of the bridge's start (the kernel starts from the bridge's standard library too)."""
    return [url for url in recorder.urls if "/static/bridge/" in url and "python_stdlib.zip" not in url]


def cycle_access_of_the_first_cell(page) -> None:
    cell = page.locator(".jp-Notebook .jp-Cell").first
    cell.locator(".jp-InputPrompt").click(button="right")
    page.locator(".lm-Menu-item", has_text="Agent access:").click()


def first_cell_access(page):
    return page.evaluate("""() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells[0]
        .getMetadata('jupyterlite_webmcp')?.access ?? null""")


def test_nothing_loads_until_the_human_asks_and_then_the_controls_work(no_webmcp, site_url):
    context, page, recorder = open_lab(no_webmcp, site_url)
    try:
        page.evaluate("path => window.jupyterapp.commands.execute('docmanager:open', {path})", PATH)
        page.wait_for_selector(".jp-Notebook .jp-Cell")
        offer = page.locator(STATUS)
        assert offer.inner_text().endswith("click for the access and review controls (no agent can connect)")
        assert bridge_requests(recorder) == []  # a visitor who never asks pays nothing
        page.locator(".jp-Notebook .jp-Cell").first.locator(".jp-InputPrompt").click(button="right")
        assert page.locator(".lm-Menu-item", has_text="Agent access:").count() == 0
        page.keyboard.press("Escape")
        offer.click()
        page.wait_for_function("([s, text]) => document.querySelector(s).textContent === text", arg=[STATUS, CONTROLS_ON],
                               timeout=120_000)
        assert bridge_requests(recorder)  # the bridge's Python started for the controls
        cycle_access_of_the_first_cell(page)
        wait_until(lambda: first_cell_access(page) == "read", what="the cell made read-only from its menu")
        page.evaluate("() => window.jupyterapp.commands.execute('jupyterlite-pyodide-webmcp:toggle-propose-mode')")
        assert page.evaluate(
            "() => window.jupyterapp.commands.isToggled('jupyterlite-pyodide-webmcp:toggle-propose-mode')") is True
        page.evaluate("() => window.jupyterapp.commands.execute('jupyterlite-pyodide-webmcp:toggle-propose-mode')")
        page.evaluate("() => window.jupyterapp.shell.activateById('jp-webmcp-agent-panel')")
        page.locator(".jp-webmcp-propose-toggle [role=switch]").wait_for(timeout=10_000)
        assert page.evaluate("() => 'modelContext' in document || 'modelContext' in navigator") is False
        assert recorder.foreign() == []
    finally:
        context.close()


def test_the_setting_starts_the_controls_with_the_page(no_webmcp, site_url):
    context, page, recorder = open_lab(no_webmcp, site_url, settings={"controlsWithoutWebMCP": True})
    try:
        page.reload()
        page.wait_for_function("([s, text]) => document.querySelector(s)?.textContent === text", arg=[STATUS, CONTROLS_ON],
                               timeout=120_000)
        page.evaluate("path => window.jupyterapp.commands.execute('docmanager:open', {path})", PATH)
        page.wait_for_selector(".jp-Notebook .jp-Cell")
        cycle_access_of_the_first_cell(page)
        wait_until(lambda: first_cell_access(page) == "read", what="the cell made read-only from its menu")
        assert recorder.foreign() == []
    finally:
        context.close()
