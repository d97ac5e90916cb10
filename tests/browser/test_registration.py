"""The bridge registers its tools with Chromium's native WebMCP, and degrades without it."""

import pytest
from pyodide_webmcp.tools import BUILT_IN

from buildkit.env import CHROMIUM_FLAGS
from tests.browser.conftest import (
    DEFAULT_TOOLS,
    SETTLED,
    RequestRecorder,
    chromium_path,
)


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    return lab.open("?path=demo.ipynb")


def test_every_tool_is_listed_with_its_schema(lab):
    listed = {tool["name"]: tool for tool in lab.page.webmcp.tools()}
    assert set(listed) == {tool.name for tool in DEFAULT_TOOLS}
    for tool in DEFAULT_TOOLS:
        seen = listed[tool.name]
        assert seen["description"] == tool.description
        assert seen["inputSchema"] == tool.input_schema
        annotations = seen.get("annotations") or {}  # Playwright leaves out all-false annotations
        hints = tool.hints
        assert bool(annotations.get("readOnly")) is hints["readOnlyHint"]
        assert bool(annotations.get("untrustedContent")) is hints["untrustedContentHint"]
        assert bool(annotations.get("consequential")) is hints["consequentialHint"], tool.name


KEPT_BY_CHROMIUM = ("readOnlyHint", "untrustedContentHint", "consequentialHint")

# Passes every registration on to the browser's own registerTool, keeping a copy of its name and annotations.
RECORD_REGISTRATIONS = """(() => {
    const context = document.modelContext;
    const register = context.registerTool.bind(context);
    window.__registered = [];
    context.registerTool = (tool, options) => {
        window.__registered.push(JSON.parse(JSON.stringify({name: tool.name, annotations: tool.annotations})));
        return register(tool, options);
    };
})()"""


def test_every_registration_states_both_hints_as_booleans(browser, site_url):
    """What the page passes to registerTool (early from the manifest, then from Python), false hints too: Chromium
    reads a missing one as false, another client may read it as unknown."""
    context = browser.new_context()
    try:
        context.add_init_script(RECORD_REGISTRATIONS)
        page = context.new_page()
        page.goto(f"{site_url}/lab/index.html?path=demo.ipynb")
        page.wait_for_selector(".jp-webmcp-status[data-state=ready]", timeout=120_000)
        registered = page.evaluate("() => window.__registered")
        assert {entry["name"] for entry in registered} == {tool.name for tool in DEFAULT_TOOLS}
        for entry in registered:
            hints = BUILT_IN.get(entry["name"]).hints
            for key in ("readOnlyHint", "untrustedContentHint"):
                assert entry["annotations"][key] is hints[key], (entry["name"], key)
    finally:
        context.close()


def test_titles_and_the_hints_chromium_keeps_as_the_browser_holds_them(lab):
    held = lab.page.evaluate(
        "async () => (await document.modelContext.getTools()).map(t => [t.name, t.title, t.annotations])"
    )
    assert sorted(held) == sorted(
        [tool.name, tool.title, {**{k: tool.hints[k] for k in KEPT_BY_CHROMIUM}, "debugging": False}]
        for tool in DEFAULT_TOOLS
    )
    consequential = {name for name, _, hints in held if hints["consequentialHint"]}
    assert {"jupyter_delete_cell", "jupyter_run_cells", "jupyter_kernel_action", "jupyter_save_notebook"} <= consequential


def test_status_item_reports_ready_with_the_tool_count(lab):
    text = lab.page.inner_text(".jp-webmcp-status")
    assert text == f"WebMCP: ready ({len(DEFAULT_TOOLS)} tools; snapshot start)"


def assert_lab_works(page):
    """The demo notebook opens with its six cells (however slowly the machine renders it)."""
    page.wait_for_function(
        "() => window.jupyterapp?.shell.currentWidget?.content?.model?.cells.length === 6", timeout=60_000
    )


INSECURE_HOST = "notebooks.webmcp.test"  # a name, not localhost: plain http to it is not a secure context


def test_over_plain_http_on_another_host_the_status_names_the_insecure_context(playwright, site_url):
    """The site reached by a host name over http (as from another machine on a LAN): WebMCP is on in this
    Chromium, yet the browser withholds it, and the status says why instead of blaming the browser."""
    port = site_url.rsplit(":", 1)[1]
    resolve_to_this_server = f"--host-resolver-rules=MAP {INSECURE_HOST} 127.0.0.1"
    browser = playwright.chromium.launch(executable_path=chromium_path(), args=[*CHROMIUM_FLAGS, resolve_to_this_server])
    try:
        page = browser.new_page()
        origin = f"http://{INSECURE_HOST}:{port}"
        recorder = RequestRecorder(origin)
        page.on("request", recorder.record)
        page.goto(f"{origin}/lab/index.html")
        page.wait_for_selector(SETTLED, timeout=60_000)
        assert page.inner_text(".jp-webmcp-status") == (
            "WebMCP unavailable: not a secure context (open the site over https or on localhost) · click for the "
            "access and review controls (no agent can connect)")
        assert page.evaluate("() => [isSecureContext, 'modelContext' in document || 'modelContext' in navigator]") == [
            False, False]
        assert not [url for url in recorder.urls if "/static/bridge/" in url or "/static/pyodide/" in url], (
            "the bridge or Pyodide loaded for nothing")
        assert recorder.urls and recorder.foreign() == []
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
