"""jupyter_run_cells on the real Pyodide kernel, beside a human."""

import time

import pytest

from tests.browser.conftest import code_cell, notebook_json
from tests.waiting import wait_until

PATH = "running.ipynb"
HUMAN = "human.ipynb"


def markdown_cell(cell_id, source):
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": source}


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    lab.open()
    lab.save_file(
        PATH,
        notebook_json(
            [
                code_cell("define", "x = 21"),
                code_cell("boom", "raise ValueError('bad value')"),
                code_cell("double", "print(x * 2)"),
                markdown_cell("prose", "**bold** words"),
                {"cell_type": "raw", "id": "rawcell", "metadata": {}, "source": "raw text"},
                code_cell("blank", "   \n"),
                code_cell("slow", "import time\ntime.sleep(3)\nprint('slow done')"),
                code_cell("after", "print('after')"),
                code_cell("last", "print('last')"),
            ]
        ),
    )
    lab.save_file(HUMAN, notebook_json([code_cell("mine", "import time\ntime.sleep(4)\nprint('human done')")]))
    lab.open_with_idle_kernel(PATH)
    return lab


def test_a_range_stops_at_the_first_error(lab):
    result = lab.call("jupyter_run_cells", {"startIndex": 0, "endIndex": 3})
    assert result["status"] == "error"
    assert [(r["cellId"], r["status"]) for r in result["results"]] == [("define", "ok"), ("boom", "error")]
    error = result["results"][1]
    assert error["ename"] == "ValueError" and error["evalue"] == "bad value"  # not "<class 'ValueError'>"
    assert "bad value" in error["traceback"] and "\x1b" not in error["traceback"]
    assert "bad value" in error["outputSummary"] and "\n" not in error["outputSummary"]
    assert isinstance(error["executionCount"], int)


def test_without_stop_on_error_every_target_runs_in_order(lab):
    result = lab.call("jupyter_run_cells", {"cellIds": ["double", "boom", "define", "double"], "stopOnError": False})
    assert result["status"] == "error"
    assert [(r["cellId"], r["status"]) for r in result["results"]] == [
        ("double", "ok"), ("boom", "error"), ("define", "ok"), ("double", "ok")
    ]
    assert result["results"][0]["outputSummary"] == "42"
    counts = [r["executionCount"] for r in result["results"]]
    assert counts == sorted(counts) and len(set(counts)) == 4
    live = lab.call("jupyter_get_cells", {"cellIds": ["double"], "includeOutputs": True})["cells"][0]
    assert live["executionCount"] == counts[-1]
    assert live["outputs"] == [{"outputType": "stream", "name": "stdout", "text": "42\n"}]


def test_markdown_raw_and_empty_cells_are_no_ops(lab):
    result = lab.call("jupyter_run_cells", {"cellIds": ["prose", "rawcell", "blank"]})
    assert result["status"] == "ok"
    assert [r["status"] for r in result["results"]] == ["no-op"] * 3
    assert [r["index"] for r in result["results"]] == [3, 4, 5]
    assert all("executionCount" not in r for r in result["results"])
    rendered = lab.page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets[3].rendered")
    assert rendered is True


def test_a_target_the_human_deletes_mid_run_becomes_a_no_op(lab):
    lab.start_call("jupyter_run_cells", {"notebookPath": PATH, "cellIds": ["slow", "after", "last"]})
    wait_until(lambda: lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.widgets[6].model.executionState === 'running'"
    ), timeout=30)
    lab.set_source(PATH, 7, "print('after, edited')")
    lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.deleteCell(8)"
    )
    result = lab.finish_call()
    assert result["status"] == "ok"
    assert result["results"][0]["outputSummary"] == "slow done"
    assert result["results"][1] == {**result["results"][1], "cellId": "after", "status": "ok"}
    assert result["results"][1]["outputSummary"] == "after, edited"
    assert result["results"][2] == {
        "cellId": "last", "index": -1, "status": "no-op", "outputSummary": "The cell no longer exists; it was not run."
    }


def execution_counts(lab, *cell_ids):
    cells = lab.call("jupyter_get_cells", {"notebookPath": PATH, "cellIds": list(cell_ids)})["cells"]
    return [cell.get("executionCount") for cell in cells]


def test_aborting_stops_the_call_and_leaves_a_human_run_alone(lab):
    lab.open_with_idle_kernel(HUMAN)
    lab.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
    lab.call("jupyter_open_notebook", {"path": PATH})
    before = execution_counts(lab, "slow", "after", "define")
    lab.start_call("jupyter_run_cells", {"notebookPath": PATH, "cellIds": ["slow", "after", "define"]})
    wait_until(lambda: lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.widgets[6].model.executionState === 'running'"
    ), timeout=30)
    lab.abort_call()
    # Chromium rejects an aborted call for the caller; the tool itself sees the signal.
    assert lab.finish_call() == {"rejected": "AbortError"}
    # The kernel was interrupted: the in-flight cell ends without an execution count.
    wait_until(lambda: lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.widgets[6].model.executionState === 'idle'"
    ), timeout=30)
    slow = lab.call("jupyter_get_cells", {"notebookPath": PATH, "cellIds": ["slow"], "includeOutputs": True})
    print("interrupted cell:", slow["cells"][0])
    # The kernel runs in order: the targets after the abort, had the call gone on, would have run before this probe.
    probe = lab.call("jupyter_run_cells", {"notebookPath": PATH, "cellIds": ["double"]})
    after = execution_counts(lab, "slow", "after", "define")
    assert after[1:] == before[1:], "targets after the abort must not run"
    assert probe["status"] == "ok" and isinstance(probe["results"][0]["executionCount"], int)
    human = wait_until(
        lambda: (c := lab.call("jupyter_get_cells", {"notebookPath": HUMAN, "includeOutputs": True})["cells"][0])
        .get("outputs") and c,
        timeout=60,
    )
    assert human["outputs"][0]["text"] == "human done\n"


def test_an_already_aborted_call_does_nothing(lab):
    before = execution_counts(lab, "define")
    lab.page.evaluate(
        """async () => {
            const tool = (await document.modelContext.getTools()).find(t => t.name === 'jupyter_run_cells');
            const controller = new AbortController();
            controller.abort();
            window.__webmcpCalls = {call: document.modelContext.executeTool(
                tool, {notebookPath: 'running.ipynb', cellIds: ['define']}, {signal: controller.signal})};
        }"""
    )
    assert lab.finish_call() == {"rejected": "AbortError"}
    # The kernel runs in order: had the aborted call run define, it would have run before this probe.
    lab.call("jupyter_run_cells", {"notebookPath": PATH, "cellIds": ["double"]})
    assert execution_counts(lab, "define") == before


def test_selector_errors(lab):
    one_end = lab.error("jupyter_run_cells", {"notebookPath": PATH, "startIndex": 0})
    assert one_end["error"] == "INVALID_ARGUMENT" and one_end["field"] == "endIndex"
    both = lab.error("jupyter_run_cells", {"notebookPath": PATH, "cellIds": ["define"], "startIndex": 0, "endIndex": 1})
    assert both["error"] == "INVALID_ARGUMENT"
    missing = lab.error("jupyter_run_cells", {"notebookPath": PATH, "cellIds": ["define", "ghost"]})
    assert missing == {**missing, "error": "CELL_NOT_FOUND", "cellId": "ghost"}


def test_restart_loses_state_and_no_kernel_is_reported(lab):
    lab.call("jupyter_open_notebook", {"path": PATH})
    restarted = lab.call("jupyter_kernel_action", {"action": "restart"})
    assert restarted["action"] == "restart" and "lost" in restarted["message"]
    wait_until(lambda: lab.call("jupyter_get_context")["kernel"]["status"] == "idle", timeout=120)
    result = lab.call("jupyter_run_cells", {"cellIds": ["double"]})
    assert result["results"][0]["status"] == "error" and "NameError" in result["results"][0]["ename"]
    interrupted = lab.call("jupyter_kernel_action", {"action": "interrupt"})
    assert interrupted["action"] == "interrupt"

    lab.page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
    wait_until(lambda: lab.call("jupyter_get_context")["kernel"]["status"] == "unavailable", timeout=30)
    error = lab.error("jupyter_run_cells", {"cellIds": ["define"]})
    assert error["error"] == "KERNEL_UNAVAILABLE"
    assert lab.error("jupyter_kernel_action", {"action": "interrupt"})["error"] == "KERNEL_UNAVAILABLE"
    markdown_only = lab.call("jupyter_run_cells", {"cellIds": ["prose"]})
    assert markdown_only["status"] == "ok" and markdown_only["results"][0]["status"] == "no-op"


ASKS = "asks.ipynb"


def test_an_agent_run_goes_through_the_cell_executor_and_waits_for_input_as_the_human_would(lab):
    lab.save_file(ASKS, notebook_json([code_cell("ask", "name = input('name? ')\nprint('hello', name)"),
                                       code_cell("other", "print('other ran')")]))
    lab.open_with_idle_kernel(ASKS)
    # The executor records timing when the notebook is configured to, as for a human's Run.
    lab.page.evaluate("""() => {
        const notebook = window.jupyterapp.shell.currentWidget.content;
        notebook.notebookConfig = {...notebook.notebookConfig, recordTiming: true};
    }""")
    started = time.monotonic()
    lab.start_call("jupyter_run_cells", {"notebookPath": ASKS, "cellIds": ["ask"]}, key="ask")
    prompt = lab.page.locator(".jp-Stdin-input")
    prompt.wait_for(timeout=30_000)

    refused = lab.call("jupyter_run_cells", {"notebookPath": ASKS, "cellIds": ["other"]})["results"][0]
    assert refused["status"] == "no-op" and "input()" in refused["outputSummary"]

    pending = lab.finish_call("ask")
    assert time.monotonic() - started < 30
    assert pending["status"] == "pending" and pending["waitingFor"]["kind"] == "input"
    assert "input() prompt" in pending["message"]
    listed = lab.call("jupyter_get_context").get("pending", [])
    assert [call["waitingFor"]["kind"] for call in listed if call["pendingId"] == pending["pendingId"]] == ["input"]

    prompt.fill("Ada")
    prompt.press("Enter")
    final = lab.call("jupyter_wait_for_result", {"pendingId": pending["pendingId"]})
    assert final["status"] == "ok" and final["results"][0]["status"] == "ok"
    assert "hello Ada" in final["results"][0]["outputSummary"]
    timing = lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells[0].getMetadata('execution') || {}"
    )
    assert "shell.execute_reply" in timing and "iopub.execute_input" in timing
    after = lab.call("jupyter_run_cells", {"notebookPath": ASKS, "cellIds": ["other"]})["results"][0]
    assert after["status"] == "ok" and after["outputSummary"] == "other ran"


def test_a_rename_mid_run_is_told_at_once_and_the_run_goes_on(lab):
    path, renamed = "to-rename.ipynb", "renamed-mid-run.ipynb"
    lab.save_file(path, notebook_json([code_cell("nap", "import time\ntime.sleep(6)\nprint('rested')")]))
    lab.share_kernel(path)
    lab.open_with_idle_kernel(path)
    lab.start_call("jupyter_run_cells", {"notebookPath": path, "cellIds": ["nap"]}, key="nap")
    wait_until(lambda: lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.widgets[0].model.executionState === 'running'"))
    renamed_at = time.monotonic()
    lab.page.evaluate("([a, b]) => window.jupyterapp.serviceManager.contents.rename(a, b)", [path, renamed])
    pending = lab.finish_call("nap")
    assert time.monotonic() - renamed_at < 5
    assert pending["status"] == "pending" and pending["waitingFor"]["renamedTo"] == renamed
    assert f"renamed to {renamed}" in pending["message"]
    final = lab.call("jupyter_wait_for_result", {"pendingId": pending["pendingId"]})
    assert final["status"] == "ok" and final["results"][0]["outputSummary"] == "rested"
    assert final["notebook"]["path"] == renamed


def test_closing_the_notebook_mid_run_ends_the_call_at_once_with_a_clear_code(lab):
    path = "to-close.ipynb"
    lab.save_file(path, notebook_json([code_cell("nap", "import time\ntime.sleep(6)"), code_cell("next", "1")]))
    lab.share_kernel(path)
    lab.open_with_idle_kernel(path)
    lab.start_call("jupyter_run_cells", {"notebookPath": path, "startIndex": 0, "endIndex": 2}, key="closing")
    wait_until(lambda: lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.widgets[0].model.executionState === 'running'"))
    closed_at = time.monotonic()
    lab.page.evaluate("() => window.jupyterapp.shell.currentWidget.dispose()")
    error = lab.finish_call("closing")
    assert time.monotonic() - closed_at < 5
    assert error["error"] == "NOTEBOOK_NOT_FOUND" and error["cellId"] == "nap" and error["results"] == []
    assert "closed while cell nap ran" in error["message"]
