"""The lab embedded in another page: in a same-origin iframe (as jupyterlite-sphinx and Jupyter Book embed it)
and in a cross-origin one, with and without allow="tools". What Chromium 156 does with tools registered in a
frame, and what the lab's status says."""

import pytest
from playwright.sync_api import Error

from buildkit.paths import SITE
from tests.browser.conftest import (
    BOOT_TIMEOUT_MS,
    DEFAULT_TOOLS,
    READY,
    SETTLED,
    RequestRecorder,
    payload,
)

TOP_TOOLS = "() => document.modelContext.getTools().then(tools => tools.map(tool => tool.name))"
TOP_CALL = """async name => {
    const tool = (await document.modelContext.getTools()).find(candidate => candidate.name === name);
    return await document.modelContext.executeTool(tool, {});
}"""


def page_embedding(src: str, allow: str = "") -> str:
    attribute = f' allow="{allow}"' if allow else ""
    return (f'<!doctype html><html><head><meta charset="utf-8"><title>A page with a lab</title></head><body>'
            f'<h1>A page with a lab</h1><iframe src="{src}"{attribute} width="1200" height="800"></iframe>'
            f'</body></html>')


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """A folder like a built Jupyter Book with jupyterlite-sphinx: its page beside the lab, on one origin."""
    folder = tmp_path_factory.mktemp("book")
    for entry in SITE.iterdir():
        (folder / entry.name).symlink_to(entry)
    (folder / "chapter.html").write_text(page_embedding("lab/index.html"))
    return folder


@pytest.fixture(scope="module")
def other_site(tmp_path_factory, site_url):
    """Pages of another origin, embedding the lab of `site_url`."""
    folder = tmp_path_factory.mktemp("other-site")
    (folder / "allowed.html").write_text(page_embedding(f"{site_url}/lab/index.html", allow="tools"))
    (folder / "plain.html").write_text(page_embedding(f"{site_url}/lab/index.html"))
    return folder


@pytest.fixture
def context(browser):
    context = browser.new_context()
    recorder = RequestRecorder("")
    context.on("request", recorder.record)
    yield context, recorder
    context.close()


def lab_frame(page):
    frame = page.frame_locator("iframe")
    return frame, page.frames[1]


def test_a_lab_in_a_same_origin_frame_serves_the_embedding_pages_webmcp(context, served, book):
    context, recorder = context
    origin = served(book)
    page = context.new_page()
    page.goto(f"{origin}/chapter.html")
    frame_locator, frame = lab_frame(page)
    status = frame_locator.locator(READY)
    status.wait_for(timeout=BOOT_TIMEOUT_MS)
    assert status.inner_text().startswith(f"WebMCP: ready ({len(DEFAULT_TOOLS)} tools; ")
    assert "in a frame" not in status.inner_text()
    # The page's own WebMCP lists the frame's tools and calls them.
    assert set(page.evaluate(TOP_TOOLS)) == {tool.name for tool in DEFAULT_TOOLS}
    context_now = payload(page.evaluate(f"async () => JSON.parse(await ({TOP_CALL})('jupyter_get_context'))"))
    assert "notebook" in context_now or "openNotebooks" in context_now
    # A browser-driving client sees them as the frame's (Playwright: frame.webmcp, not page.webmcp).
    assert page.webmcp.tools() == []
    assert {tool["name"] for tool in frame.webmcp.tools()} == {tool.name for tool in DEFAULT_TOOLS}
    assert all(url.startswith(origin + "/") for url in recorder.urls if url.startswith("http"))


def test_a_lab_in_a_cross_origin_frame_with_allow_tools_serves_that_frame_only(context, served, other_site,
                                                                                site_url):
    context, recorder = context
    origin = served(other_site)
    page = context.new_page()
    page.goto(f"{origin}/allowed.html")
    frame_locator, frame = lab_frame(page)
    status = frame_locator.locator(READY)
    status.wait_for(timeout=BOOT_TIMEOUT_MS)
    text = status.inner_text()
    assert text.startswith(f"WebMCP: ready ({len(DEFAULT_TOOLS)} tools; ")
    assert text.endswith(f", in a frame of {origin}: that page's own WebMCP does not list them")
    assert page.evaluate(TOP_TOOLS) == []
    assert page.webmcp.tools() == []
    # An agent that drives the browser reaches them in the frame.
    assert {tool["name"] for tool in frame.webmcp.tools()} == {tool.name for tool in DEFAULT_TOOLS}
    result = frame.webmcp.call_tool("jupyter_list_workspace", {})
    assert not result.get("isError") and "entries" in payload(result)
    assert all(url.startswith((origin + "/", site_url + "/")) for url in recorder.urls if url.startswith("http"))


def test_a_lab_in_a_cross_origin_frame_without_allow_tools_says_so_and_loads_no_python(context, served,
                                                                                       other_site):
    context, recorder = context
    origin = served(other_site)
    page = context.new_page()
    page.goto(f"{origin}/plain.html")
    frame_locator, frame = lab_frame(page)
    status = frame_locator.locator(SETTLED)
    status.wait_for(timeout=BOOT_TIMEOUT_MS)
    assert status.get_attribute("data-state") == "unavailable"
    assert status.inner_text() == ('WebMCP unavailable: the page embedding this lab does not allow tools in its '
                                   'frame (give its iframe allow="tools")')
    assert page.evaluate(TOP_TOOLS) == []
    with pytest.raises(Error, match='Access to the feature "tools" is disallowed by permissions policy'):
        frame.webmcp.tools()  # the frame's WebMCP is closed to every client
    assert not any("/static/bridge/" in url for url in recorder.urls)  # no interpreter started for nothing


def test_a_site_whose_permissions_policy_refuses_tools_says_so(context, served):
    context, _ = context
    origin = served(headers={"Permissions-Policy": "tools=()"})
    page = context.new_page()
    page.goto(f"{origin}/lab/index.html")
    status = page.locator(SETTLED)
    status.wait_for(timeout=BOOT_TIMEOUT_MS)
    assert status.inner_text() == "WebMCP unavailable: this site's Permissions-Policy header does not allow tools"
