"""Every JupyterLite app: the Notebook app's notebook page serves the notebook it shows, and says where
any other notebook can be reached; the tree page starts nothing. Both show the bridge's status."""

import time

import pytest

from tests.browser.conftest import BOOT_TIMEOUT_MS, DEFAULT_TOOLS, READY

INDICATOR = ".jp-webmcp-status.jp-webmcp-indicator"
OTHER = "analysis/sample.ipynb"


@pytest.fixture(scope="module")
def notebook_page(lab_page):
    lab, _ = lab_page
    lab.page.goto(f"{lab.origin}/notebooks/index.html?path=demo.ipynb")
    lab.page.wait_for_selector(READY, timeout=BOOT_TIMEOUT_MS)
    return lab


def test_the_notebook_page_shows_the_status_in_an_indicator(notebook_page):
    page = notebook_page.page
    assert page.locator(".jp-StatusBar-Widget").count() == 0  # the Notebook app has no status bar
    indicator = page.locator(INDICATOR)
    assert indicator.is_visible()
    assert indicator.inner_text().startswith(f"WebMCP: ready ({len(DEFAULT_TOOLS)} tools; snapshot start")
    assert len(page.webmcp.tools()) == len(DEFAULT_TOOLS)


def test_the_notebook_page_serves_its_own_notebook(notebook_page):
    cells = notebook_page.call("jupyter_get_cells", {"notebookPath": "demo.ipynb", "startIndex": 1, "endIndex": 3})
    assert [cell["id"] for cell in cells["cells"]] == ["greeting", "arithmetic"]
    context = notebook_page.call("jupyter_get_context")
    assert context["notebook"]["path"] == "demo.ipynb"
    notebook_page.open_with_idle_kernel("demo.ipynb")  # its own notebook: opening it only reveals it
    ran = notebook_page.call("jupyter_run_cells", {"cellIds": ["arithmetic"]})
    assert ran["results"][0]["status"] == "ok" and ran["results"][0]["outputSummary"] == "42", ran


@pytest.mark.parametrize(
    "tool, arguments",
    [
        ("jupyter_open_notebook", {"path": OTHER}),
        ("jupyter_run_cells", {"notebookPath": OTHER, "cellIds": ["anything"]}),
        ("jupyter_insert_cell", {"notebookPath": OTHER, "source": "x = 1"}),
    ],
    ids=["open", "run_cells", "insert_cell"],
)
def test_a_notebook_not_open_in_the_notebook_page_is_reported_with_where_to_reach_it(notebook_page, tool, arguments):
    page = notebook_page.page
    started = time.monotonic()
    error = notebook_page.error(tool, arguments)
    assert time.monotonic() - started < 5, "the call waited"
    assert error["error"] == "NOTEBOOK_NOT_IN_THIS_PAGE", error
    assert error["path"] == OTHER
    origin = notebook_page.origin
    assert error["url"] == f"{origin}/notebooks/index.html?path=analysis%2Fsample.ipynb"
    assert error["labUrl"] == f"{origin}/lab/index.html?path=analysis%2Fsample.ipynb"
    assert error["url"] in error["message"] and error["labUrl"] in error["message"]
    assert len(page.context.pages) == 1, "a browser tab was opened"


def test_another_notebook_is_read_from_its_file_in_the_notebook_page(notebook_page):
    """Reads need no open notebook (they read the file): they work here, opening no tab."""
    cells = notebook_page.call("jupyter_get_cells", {"notebookPath": OTHER})["cells"]
    on_disk = notebook_page.read_file(OTHER)["cells"]
    assert [cell["id"] for cell in cells] == [cell["id"] for cell in on_disk] and cells
    assert len(notebook_page.page.context.pages) == 1, "a browser tab was opened"


def test_a_missing_notebook_is_still_not_found_in_the_notebook_page(notebook_page):
    assert notebook_page.error("jupyter_open_notebook", {"path": "nowhere.ipynb"})["error"] == "NOTEBOOK_NOT_FOUND"


def test_the_tree_page_starts_nothing_and_says_where_the_tools_are(browser, site_url):
    context = browser.new_context()
    requested = []
    context.on("request", lambda request: requested.append(request.url))
    page = context.new_page()
    try:
        page.goto(f"{site_url}/tree/index.html")
        indicator = page.wait_for_selector(f"{INDICATOR}[data-state=off]", timeout=60_000)
        assert "lab and notebook pages" in indicator.inner_text()
        page.wait_for_selector(".jp-DirListing-item", timeout=60_000)  # the file list is there
        assert page.webmcp.tools() == []
        assert not [url for url in requested if "pyodide" in url.rsplit("/", 1)[-1] or "/static/bridge/" in url]
    finally:
        context.close()
