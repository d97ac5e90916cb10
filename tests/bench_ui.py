"""The human's side on a large notebook: the longest task of the bridge's views, and the longest task of the page,
while an agent edits, inserts, deletes, moves, runs and comments, and while the human opens the panel, goes
through its tabs, undoes a change and reverts everything.

    python3 build.py bench --ui-only
"""

import json
import statistics

from bench_loads import browser_page

from tests.waiting import KERNEL_IDLE, wait_until

CELLS = 400
PATH = "ui-bench.ipynb"
TARGET_MS = 50
RECORDER = """() => {
    window.__ui = {views: [], tasks: []};
    new PerformanceObserver(list => list.getEntries().forEach(e => e.name === 'webmcp:view'
        && window.__ui.views.push(e.duration))).observe({type: 'measure'});
    new PerformanceObserver(list => list.getEntries().forEach(e => window.__ui.tasks.push(e.duration)))
        .observe({type: 'longtask'});
}"""


def notebook() -> dict:
    cells = [{"cell_type": "code", "id": f"c{i:03d}", "metadata": {}, "source": f"value_{i} = {i}\nprint(value_{i})",
              "outputs": [{"output_type": "stream", "name": "stdout", "text": f"{i}\n"}], "execution_count": i + 1}
             for i in range(CELLS)]
    return {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": {"kernelspec": {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}}}


def call(page, name: str, arguments: dict) -> dict:
    result = page.webmcp.call_tool(name, arguments)
    assert not result.get("isError"), result
    return json.loads(result["content"][0]["text"])


def phase(page, run) -> dict:
    """The longest view task and page task while `run` runs (and the views settle after it)."""
    page.evaluate("() => { window.__ui.views = []; window.__ui.tasks = []; }")
    run()
    page.wait_for_timeout(1500)
    seen = page.evaluate("() => window.__ui")
    return {"view_ms": max(seen["views"], default=0.0), "views": len(seen["views"]),
            "page_ms": max(seen["tasks"], default=0.0)}


def agent_work(page) -> None:
    cells = call(page, "jupyter_get_cells", {"notebookPath": PATH, "startIndex": 0, "endIndex": 20})["cells"]
    call(page, "jupyter_update_cells", {"notebookPath": PATH, "cells": [
        {"cellId": cell["id"], "expectedSourceHash": cell["sourceHash"], "source": f"changed_{cell['index']} = 1"}
        for cell in cells]})
    call(page, "jupyter_insert_cell", {"notebookPath": PATH, "position": "below", "referenceCellId": "c100", "source": "x = 1"})
    last = call(page, "jupyter_get_cells", {"notebookPath": PATH, "cellIds": ["c300"]})["cells"][0]
    call(page, "jupyter_delete_cell", {"notebookPath": PATH, "cellId": "c300", "expectedSourceHash": last["sourceHash"]})
    call(page, "jupyter_move_cell", {"notebookPath": PATH, "cellId": "c200", "position": "above", "referenceCellId": "c010"})
    call(page, "jupyter_run_cells", {"notebookPath": PATH, "cellIds": ["c000", "c001", "c002"]})
    for index in range(5):
        call(page, "jupyter_create_comment", {"notebookPath": PATH, "cellId": f"c05{index}", "message": "Why?"})


def human_work(page) -> None:
    page.evaluate("() => window.jupyterapp.commands.execute('jupyterlite-pyodide-webmcp:show-agent-panel')")
    for label in ("Changes", "Comments", "Access", "Activity"):
        page.locator(".jp-webmcp-tabs .lm-TabBar-tab", has_text=label).click()
        page.wait_for_timeout(300)
    page.locator(".jp-webmcp-chip-agent").first.click()
    page.locator(".jp-webmcp-undo").click()
    page.locator(".jp-webmcp-tabs .lm-TabBar-tab", has_text="Changes").click()
    page.locator(".jp-webmcp-revert-all").click()


def measure_ui(playwright, chromium: str, bridge, runs: int) -> dict:
    """Per run, each phase's longest view task and page task; the medians over the runs."""
    figures: dict = {"agent": [], "human": []}
    for _ in range(runs):
        with browser_page(playwright, chromium) as page:
            page.goto(bridge.url)
            page.wait_for_selector(".jp-webmcp-status[data-state=ready]", timeout=120_000)
            page.evaluate("""content => window.jupyterapp.serviceManager.contents.save(
                'ui-bench.ipynb', {type: 'notebook', format: 'json', content})""", notebook())
            call(page, "jupyter_open_notebook", {"path": PATH})
            wait_until(lambda: page.evaluate(KERNEL_IDLE), timeout=120)
            page.evaluate(RECORDER)
            figures["agent"].append(phase(page, lambda: agent_work(page)))
            figures["human"].append(phase(page, lambda: human_work(page)))
    return {name: {key: statistics.median(run[key] for run in done) for key in done[0]}
            for name, done in figures.items()}


def print_ui(figures: dict, runs: int) -> None:
    print(f"\nThe human's side on a {CELLS}-cell notebook (medians of {runs} runs):")
    print(f"{'phase':<44}{'longest view task':>20}{'views':>8}{'longest page task':>20}")
    labels = {"agent": "an agent edits, adds, deletes, moves, runs", "human": "the human opens the panel, undoes, reverts"}
    for name, row in figures.items():
        verdict = "met" if row["view_ms"] <= TARGET_MS else "NOT MET"
        print(f"{labels[name]:<44}{row['view_ms']:>15.0f} ms {verdict:>3}{row['views']:>8.0f}{row['page_ms']:>17.0f} ms")
    print(f"target: no task of the views over {TARGET_MS} ms")
