"""The bridge registers its tools with Chromium's native WebMCP, and degrades without it."""

import pytest

from buildkit.env import CHROMIUM_FLAGS
from conftest import SETTLED, RequestRecorder, chromium_path
from pyodide_webmcp.registry import REGISTRY


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    return lab.open("?path=demo.ipynb")


def test_every_tool_is_listed_with_its_schema(lab):
    listed = {tool["name"]: tool for tool in lab.page.webmcp.tools()}
    assert set(listed) == {tool.name for tool in REGISTRY}
    for tool in REGISTRY:
        seen = listed[tool.name]
        assert seen["description"] == tool.description
        assert seen["inputSchema"] == tool.input_schema
        annotations = seen.get("annotations") or {}  # Playwright leaves out all-false annotations
        assert bool(annotations.get("readOnly")) is tool.read_only
        assert bool(annotations.get("untrustedContent")) is tool.untrusted_content


def test_titles_and_hints_as_the_browser_holds_them(lab):
    held = lab.page.evaluate(
        "async () => (await document.modelContext.getTools()).map(t => [t.name, t.title, t.annotations])"
    )
    assert sorted(held) == sorted(
        [tool.name, tool.title, {**tool.annotations, "consequentialHint": False, "debugging": False}]
        for tool in REGISTRY
    )


def test_status_item_reports_ready_with_the_tool_count(lab):
    text = lab.page.inner_text(".jp-webmcp-status")
    assert text == f"WebMCP: ready ({len(REGISTRY)} tools; snapshot start)"


def assert_lab_works(page):
    # The first cell renders before the notebook's content has loaded: wait for all six.
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget?.content?.model?.cells.length === 6",
                           timeout=60_000)


def test_a_browser_without_webmcp_keeps_a_working_lab(playwright, site_url):
    flags = [flag for flag in CHROMIUM_FLAGS if "WebMCP" not in flag]
    browser = playwright.chromium.launch(executable_path=chromium_path(), args=flags)
    try:
        page = browser.new_page()
        recorder = RequestRecorder(site_url)
        page.on("request", recorder.record)
        page.goto(f"{site_url}/lab/index.html?path=demo.ipynb")
        page.wait_for_selector(SETTLED, timeout=60_000)
        assert page.inner_text(".jp-webmcp-status") == "WebMCP unavailable: this browser has no WebMCP"
        assert page.evaluate("() => 'modelContext' in document || 'modelContext' in navigator") is False
        assert_lab_works(page)
        assert not any("/static/bridge/" in url for url in recorder.urls), "the bridge loaded for nothing"
        assert recorder.foreign() == []
    finally:
        browser.close()


def test_a_failed_boot_is_reported_and_the_lab_still_works(browser, site_url):
    # The service worker would serve the request beyond page.route's reach.
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        page.route("**/static/bridge/manifest.json", lambda route: route.fulfill(status=404, body="gone"))
        page.goto(f"{site_url}/lab/index.html?path=demo.ipynb")
        page.wait_for_selector(SETTLED, timeout=60_000)
        assert page.inner_text(".jp-webmcp-status").startswith("WebMCP unavailable: ")
        assert_lab_works(page)
        assert page.webmcp.tools() == []
    finally:
        context.close()


def test_the_bridge_can_be_switched_off_by_url(browser, site_url):
    context = browser.new_context()
    try:
        page = context.new_page()
        recorder = RequestRecorder(site_url)
        page.on("request", recorder.record)
        page.goto(f"{site_url}/lab/index.html?path=demo.ipynb&webmcp=off")
        page.wait_for_selector(".jp-webmcp-status[data-state=off]", timeout=60_000)
        assert_lab_works(page)
        assert page.webmcp.tools() == []
        assert not any("/static/bridge/" in url for url in recorder.urls)
    finally:
        context.close()
