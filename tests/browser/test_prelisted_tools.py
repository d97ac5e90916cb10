"""The tools are listed from the build's copy of their descriptors before Python has started; calls made
then are served once it has, refused within the budget when it has not, and refused when it cannot start."""

import json

import pytest

from tests.browser.conftest import DEFAULT_TOOLS, READY, SETTLED, Lab, RequestRecorder
from tests.waiting import wait_until

# Polls the browser's own list every 20 ms (wait_for_function would take the async predicate's promise as true),
# for two minutes at most.
UNTIL_LISTED = """async count => {
    const deadline = performance.now() + 120000;
    while ((await document.modelContext.getTools()).length < count) {
        if (performance.now() > deadline) throw new Error(`fewer than ${count} tools listed after two minutes`);
        await new Promise(r => setTimeout(r, 20));
    }
}"""


@pytest.fixture
def fresh(browser, site_url):
    """A new page (service workers blocked so page.route sees every request); fails on foreign requests."""
    context = browser.new_context(service_workers="block")
    recorder = RequestRecorder(site_url)
    context.on("request", recorder.record)
    yield Lab(context.new_page(), site_url)
    context.close()
    assert recorder.foreign() == []


def listed_before_python(lab: Lab) -> str:
    """Open the lab and return the status shown when every default tool was first listed."""
    lab.page.goto(f"{lab.origin}/lab/index.html?path=demo.ipynb")
    lab.page.wait_for_function("() => document.modelContext", timeout=120_000)
    lab.page.evaluate(UNTIL_LISTED, len(DEFAULT_TOOLS))
    return lab.page.inner_text(".jp-webmcp-status")


def edit_manifest(lab: Lab, change) -> None:
    def fulfil(route):
        manifest = route.fetch().json()
        change(manifest["prelisted"])
        route.fulfill(json=manifest)

    lab.page.route("**/static/bridge/manifest.json", fulfil)


def held_snapshot(lab: Lab) -> list:
    """Holds the snapshot's download (Python cannot start) until each route returned is continued."""
    held = []
    lab.page.route("**/static/bridge/snapshot.br*", lambda route: held.append(route))
    return held


def release(lab: Lab, held: list) -> None:
    # A call refused at once may be answered before the worker has asked for the snapshot.
    wait_until(lambda: held, timeout=60, interval=0.05, what="the snapshot's request",
               pause=lambda seconds: lab.page.wait_for_timeout(seconds * 1000))
    for route in held:
        route.continue_()


def test_a_call_made_as_soon_as_the_tools_are_listed_is_served_by_python(fresh):
    held = held_snapshot(fresh)
    status = listed_before_python(fresh)
    assert status == "WebMCP: booting…"
    fresh.start_call("jupyter_get_context", {})
    release(fresh, held)
    context = fresh.finish_call()
    # Python's answer, not a refusal (the lab may not have opened ?path='s notebook yet: then none is current).
    assert "error" not in context and "notebook" in context, context
    assert context["notebook"] is None or context["notebook"]["path"] == "demo.ipynb", context
    fresh.page.wait_for_selector(READY, timeout=120_000)
    assert sorted(tool["name"] for tool in fresh.page.webmcp.tools()) == sorted(tool.name for tool in DEFAULT_TOOLS)


def test_past_the_budget_an_early_call_is_refused_unrun_and_other_tools_are_re_registered(fresh):
    # A budget too short for any start, and descriptors Python does not recognise as its own.
    edit_manifest(fresh, lambda prelisted: prelisted.update(budgetMs=1, digest="another build"))
    held = held_snapshot(fresh)
    listed_before_python(fresh)
    fresh.start_call("jupyter_insert_cell", {"cellType": "markdown", "source": "never written"})
    refusal = fresh.finish_call()
    assert refusal["error"] == "BRIDGE_STARTING" and refusal["retryable"] is True, refusal
    release(fresh, held)
    fresh.page.wait_for_selector(READY, timeout=120_000)
    assert sorted(tool["name"] for tool in fresh.page.webmcp.tools()) == sorted(tool.name for tool in DEFAULT_TOOLS)
    cells = fresh.call("jupyter_get_cells", {"notebookPath": "demo.ipynb"})["cells"]
    assert not any("never written" in cell["source"] for cell in cells)


def test_when_python_cannot_start_early_calls_are_refused_and_the_tools_withdrawn(fresh):
    for files in ("snapshot.br", "*.whl"):
        fresh.page.route(f"**/static/bridge/{files}*", lambda route: route.fulfill(status=404, body="gone"))
    listed_before_python(fresh)
    fresh.start_call("jupyter_get_context", {})
    refusal = fresh.finish_call()
    assert refusal["error"] == "BRIDGE_UNAVAILABLE" and refusal["retryable"] is False, refusal
    fresh.page.wait_for_selector(SETTLED, timeout=120_000)
    assert fresh.page.inner_text(".jp-webmcp-status").startswith("WebMCP unavailable: ")
    assert fresh.page.evaluate("async () => (await document.modelContext.getTools()).length") == 0
    assert json.loads(fresh.page.evaluate("() => JSON.stringify(window.jupyterapp.shell.currentWidget.context.path)")) == "demo.ipynb"
