"""A site's own tools: the example package (examples/owner-tools) built into a site as its README says,
beside wheels that fail each way a site's wheel can, listed and called through page.webmcp."""

import json
import threading

import pytest
from jupyterlite_pyodide_webmcp.site_server import site_server

from tests.browser.conftest import (
    BOOT_TIMEOUT_MS,
    READY,
    Lab,
    RequestRecorder,
    diff_lines,
    notebook_json,
    payload,
    require_current_site,
)
from tests.owner_site import build_owner_site
from tests.waiting import wait_until

COURSE = notebook_json([
    {"cell_type": "markdown", "id": "e1", "metadata": {}, "source": "## Exercise 1: add\nAdd two numbers."},
    {"cell_type": "code", "id": "a1", "metadata": {}, "source": "total = 1 + 2", "outputs": [], "execution_count": None},
    {"cell_type": "code", "id": "hidden", "metadata": {"jupyterlite_webmcp": {"access": "none"}},
     "source": "# TODO secret-answer-key", "outputs": [], "execution_count": None},
])


@pytest.fixture(scope="module")
def owner_site(tmp_path_factory):
    """The example package and the failing wheels, built into a site."""
    require_current_site()
    site = build_owner_site(tmp_path_factory.mktemp("owner"), {"week1.ipynb": COURSE}, failing=True)
    server = site_server(0, site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


STATUS = ".jp-webmcp-status"


@pytest.fixture(scope="module")
def lab(browser, owner_site):
    context = browser.new_context()
    recorder = RequestRecorder(owner_site)
    context.on("request", recorder.record)
    page = context.new_page()
    lab = Lab(page, owner_site)
    page.goto(f"{owner_site}/lab/index.html?path=week1.ipynb")
    page.wait_for_selector(READY, timeout=BOOT_TIMEOUT_MS)
    page.wait_for_function("s => !document.querySelector(s).textContent.includes('installing site tools')",
                           arg=STATUS, timeout=BOOT_TIMEOUT_MS)
    yield lab
    context.close()
    assert recorder.foreign() == [], f"requests left the site: {recorder.foreign()[:5]}"


def status(lab) -> str:
    return lab.page.locator(STATUS).first.text_content()


def call(lab, name: str, arguments: dict) -> dict:
    return lab.page.webmcp.call_tool(name, arguments)


def test_the_sites_tools_are_listed_beside_the_built_in_ones(lab):
    said = status(lab)
    assert "site tools: course_list_exercises, course_mark_for_review" in said and "site_raises_boom" in said
    names = [tool["name"] for tool in lab.page.webmcp.tools()]
    assert {"course_list_exercises", "course_mark_for_review", "site_raises_boom", "jupyter_get_cells"} <= set(names)
    assert names.count("jupyter_get_cells") == 1 and "jupyter_site_cells" not in names


def test_each_failure_is_named_in_the_status_and_the_built_in_tools_go_on(lab):
    said = status(lab)
    assert "files/broken-0.1-py3-none-any.whl:" in said
    assert "https://elsewhere.example/x-0.1-py3-none-any.whl: ValueError:" in said and "not a file of this site" in said
    assert "pypi/missing-0.1-py3-none-any.whl: HTTP 404 (no such file in the site)" in said
    assert "site_missing_dep: ModuleNotFoundError" in said
    assert "jupyter_site_cells: names beginning jupyter_ are the bridge's own" in said
    assert lab.call("jupyter_get_context")["notebook"]["path"] == "week1.ipynb"


def test_a_tool_that_raises_is_a_structured_error(lab):
    result = call(lab, "site_raises_boom", {})
    error = payload(result)
    assert result["isError"] is True and error["error"] == "INTERNAL_ERROR" and "broke" in error["message"]
    assert "Traceback" not in json.dumps(result)


def test_the_access_rules_hold_inside_the_sites_tools(lab):
    result = call(lab, "course_list_exercises", {"notebookPath": "week1.ipynb"})
    assert payload(result) == {"exercises": [{"title": "Exercise 1: add", "answerCellId": "a1", "answered": True}]}
    hidden = payload(call(lab, "course_mark_for_review", {"cellId": "hidden", "expectedSourceHash": "x"}))
    assert hidden["error"] == "CELL_NOT_FOUND" and "secret-answer-key" not in json.dumps(hidden)


def test_a_write_is_reviewed_in_propose_mode(lab):
    lab.page.evaluate("() => window.jupyterapp.commands.execute('jupyterlite-pyodide-webmcp:toggle-propose-mode')")
    try:
        digest = lab.call("jupyter_get_cells", {"cellIds": ["a1"]})["cells"][0]["sourceHash"]
        lab.start_call("course_mark_for_review", {"cellId": "a1", "expectedSourceHash": digest})
        box = lab.page.locator(".jp-webmcp-proposal")
        box.wait_for(timeout=10_000)
        assert ("added", "# ready for review") in diff_lines(box.locator(".jp-webmcp-diff"))
        assert lab.live_cells("week1.ipynb")[1]["source"] == "total = 1 + 2"  # nothing before the human decides
        box.locator(".jp-webmcp-proposal-accept").click()
        result = lab.finish_call()
        assert result["status"] == "accepted"
        wait_until(lambda: lab.live_cells("week1.ipynb")[1]["source"] == "# ready for review\ntotal = 1 + 2",
                   what="the accepted change")
    finally:
        lab.page.evaluate("() => window.jupyterapp.commands.execute('jupyterlite-pyodide-webmcp:toggle-propose-mode')")


def test_the_site_build_lists_the_sites_tools_in_the_manifest(owner_site):
    import urllib.request

    with urllib.request.urlopen(f"{owner_site}/extensions/jupyterlite-pyodide-webmcp/static/bridge/manifest.json") as r:
        listed = json.load(r)["siteTools"]
    assert [tool["name"] for tool in listed["tools"]] == ["course_list_exercises", "course_mark_for_review",
                                                          "site_raises_boom"]
    assert any("site_missing_dep: ModuleNotFoundError" in problem for problem in listed["problems"])
    assert any("jupyter_site_cells: names beginning jupyter_" in problem for problem in listed["problems"])


def test_the_sites_tools_are_listed_from_the_start_and_a_call_waits_for_their_install(browser, owner_site):
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{owner_site}/lab/index.html")
        page.wait_for_function(
            "async () => (await document.modelContext.getTools()).some(t => t.name === 'course_list_exercises')",
            timeout=BOOT_TIMEOUT_MS, polling=50)
        state = page.locator(STATUS).first.get_attribute("data-state")
        early = Lab(page, owner_site)
        early.start_call("course_list_exercises", {"notebookPath": "week1.ipynb"})
        said_then = page.locator(STATUS).first.text_content()
        result = early.finish_call()
        assert result == {"exercises": [{"title": "Exercise 1: add", "answerCellId": "a1", "answered": True}]}
        assert state == "booting" or "installing site tools" in said_then  # called before the install was done
        page.wait_for_function("s => !document.querySelector(s).textContent.includes('installing site tools')",
                               arg=STATUS, timeout=BOOT_TIMEOUT_MS)
        after = payload(page.webmcp.call_tool("course_list_exercises", {"notebookPath": "week1.ipynb"}))
        assert after == result
        names = [tool["name"] for tool in page.webmcp.tools()]
        assert names.count("course_list_exercises") == 1 and "site_raises_boom" in names
    finally:
        context.close()
