"""One call of every default tool, in an order that gives each what it needs (a notebook, a cell, a
thread...), on a page just restored: each tool's module is imported on its first call. The browser test
(tests/browser/test_first_calls.py) checks every call answers; the bench times each one."""

import json
from typing import Callable

FOLDER = "first-calls"
PATH = f"{FOLDER}/first.ipynb"
NOTES = f"{FOLDER}/notes.txt"


def notebook() -> dict:
    cells = [{"cell_type": "code", "id": cell_id, "metadata": {}, "source": source, "outputs": [],
              "execution_count": None} for cell_id, source in (("a", "x = 1\nprint(x)"), ("b", "y = x + 1"))]
    return {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": {"kernelspec": {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}}}


SETUP = """async ([folder, path, content, notes]) => {
    const contents = window.jupyterapp.serviceManager.contents;
    await contents.save(folder, {type: 'directory'});
    await contents.save(path, {type: 'notebook', format: 'json', content});
    await contents.save(notes, {type: 'file', format: 'text', content: 'one\\ntwo\\n'});
}"""


def every_first_call(call: Callable[[str, dict], dict], wait_idle: Callable[[], None]) -> list[tuple[str, dict]]:
    """Call every default tool once; returns (tool, payload) in order. `call(name, arguments)` returns the
    payload (an error's too); `wait_idle()` returns once the open notebook's kernel is idle."""
    made = []

    def step(name: str, arguments: dict) -> dict:
        payload = call(name, arguments)
        made.append((name, payload))
        return payload

    step("jupyter_get_context", {})
    step("jupyter_list_workspace", {"path": FOLDER})
    step("jupyter_read_file", {"path": NOTES})
    step("jupyter_open_notebook", {"path": PATH})
    wait_idle()
    cells = step("jupyter_get_cells", {"notebookPath": PATH})["cells"]
    a, b = cells
    step("jupyter_search_notebook", {"notebookPath": PATH, "query": "x"})
    step("jupyter_export_notebook", {"notebookPath": PATH})
    step("jupyter_get_cell_access", {"notebookPath": PATH})
    step("jupyter_get_output_selection", {})
    step("jupyter_focus_cell", {"notebookPath": PATH, "cellId": "a", "cursor": {"line": 0, "column": 1}})
    step("jupyter_run_cells", {"notebookPath": PATH, "cellIds": ["a", "b"]})
    step("jupyter_kernel_action", {"notebookPath": PATH, "action": "interrupt"})
    step("jupyter_start_kernel", {"notebookPath": PATH})
    step("jupyter_clear_outputs", {"notebookPath": PATH})
    inserted = step("jupyter_insert_cell", {"notebookPath": PATH, "referenceCellId": "b", "source": "z = 3"})["cell"]
    updated = step("jupyter_update_cell", {"notebookPath": PATH, "cellId": "b", "source": "y = x + 2",
                                           "expectedSourceHash": b["sourceHash"]})["cell"]
    replaced = step("jupyter_replace_in_cell", {"notebookPath": PATH, "cellId": "b", "old": "+ 2", "new": "+ 3",
                                                "expectedSourceHash": updated["sourceHash"]})["cell"]
    step("jupyter_update_cells", {"notebookPath": PATH, "cells": [
        {"cellId": "a", "source": "x = 10\nprint(x)", "expectedSourceHash": a["sourceHash"]},
        {"cellId": "b", "source": "y = x + 4", "expectedSourceHash": replaced["sourceHash"]}]})
    step("jupyter_move_cell", {"notebookPath": PATH, "cellId": inserted["id"], "referenceCellId": "a",
                               "position": "above"})
    step("jupyter_delete_cell", {"notebookPath": PATH, "cellId": inserted["id"],
                                 "expectedSourceHash": inserted["sourceHash"]})
    thread = step("jupyter_create_comment", {"notebookPath": PATH, "anchor": {"kind": "cell", "cellId": "a"},
                                             "message": "Why ten?"})["thread"]
    step("jupyter_list_comments", {"notebookPath": PATH})
    step("jupyter_get_comment", {"notebookPath": PATH, "threadId": thread["id"]})
    step("jupyter_reply_comment", {"notebookPath": PATH, "threadId": thread["id"], "message": "It is the new rate."})
    step("jupyter_resolve_comment", {"notebookPath": PATH, "threadId": thread["id"]})
    step("jupyter_reopen_comment", {"notebookPath": PATH, "threadId": thread["id"]})
    step("jupyter_focus_comment", {"notebookPath": PATH, "threadId": thread["id"]})
    step("jupyter_save_notebook", {"notebookPath": PATH})
    step("jupyter_create_notebook", {"name": "second", "directory": FOLDER})
    step("jupyter_wait_for_result", {"pendingId": "call-none"})  # a structured PENDING_CALL_NOT_FOUND
    step("jupyter_answer_dialog", {"button": "Ok"})  # a structured DIALOG_NOT_FOUND: no dialog is open
    return made


EXPECTED_ERRORS = {"jupyter_wait_for_result": "PENDING_CALL_NOT_FOUND", "jupyter_answer_dialog": "DIALOG_NOT_FOUND"}


def payload_of(result: dict) -> dict:
    return json.loads(result["content"][0]["text"])
