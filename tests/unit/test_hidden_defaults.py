"""Every default that points at the human's active cell, selection or a call's cell: a cell the owner hid there
reads exactly as nothing there (the same bytes), on the in-memory lab. The browser proof is
tests/browser/test_access.py; the stress run explores the same states at random."""

import itertools
import json
import re

from pyodide_webmcp.calls.budget import CallTable
from pyodide_webmcp.calls.current import CallContext
from pyodide_webmcp.calls.dispatch import dispatch
from pyodide_webmcp.kit import testing
from pyodide_webmcp.kit.testing import (
    MemoryLab,
    MemoryNotebook,
    call,
    call_result,
    cell,
)
from pyodide_webmcp.port import EditorState
from pyodide_webmcp.tools import BUILT_IN

from tests.unit.aio import run

HIDDEN = {"jupyterlite_webmcp": {"access": "none"}}
SECRET = "SECRETC287054230"


def lab_with(active, selected, *, cells=None, editor=True):
    """A notebook whose second cell is hidden, the human's cursor and selection where the test says."""
    cells = cells if cells is not None else [
        cell("a = 1", cell_id="visible-a"),
        cell(f"{SECRET} = 2", cell_id=SECRET, **HIDDEN),
        cell("b = 3", cell_id="visible-b"),
    ]
    notebook = MemoryNotebook("n.ipynb", cells)
    notebook.active, notebook.selected = active, selected
    if editor and active is not None:
        notebook.editor = EditorState((0, 2), (0, 0), (0, 5))
    return MemoryLab(notebook)


def text(lab, name, arguments):
    """The call's result text; new cells get the same ids in every lab, and every time reads the same."""
    testing._ids = itertools.count(1000)
    return re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+Z", "TIME", call_result(lab, name, arguments)["content"][0]["text"])


DEFAULT_CALLS = [
    ("jupyter_get_context", {}),
    ("jupyter_insert_cell", {}),
    ("jupyter_insert_cell", {"position": "above", "cellType": "raw"}),
    ("jupyter_insert_cell", {"cells": [{"source": "x"}, {"cellType": "markdown", "source": "# y"}]}),
    ("jupyter_run_cells", {}),
    ("jupyter_list_comments", {"scope": "current-cell"}),
    ("jupyter_open_notebook", {"path": "n.ipynb"}),
    ("jupyter_get_output_selection", {}),
]


def test_a_hidden_active_and_selected_cell_reads_as_no_active_cell_byte_for_byte():
    for name, arguments in DEFAULT_CALLS:
        hidden = lab_with(1, [0, 1])
        nothing = lab_with(None, [0])
        seen = text(hidden, name, arguments)
        assert seen == text(nothing, name, arguments), name
        assert SECRET not in seen, name
        assert [c["source"] for c in hidden.current.data] == [c["source"] for c in nothing.current.data], name


def test_without_an_active_cell_inserts_go_to_the_end_and_runs_ask_for_a_selector():
    lab = lab_with(1, [1])
    inserted = call(lab, "jupyter_insert_cell", {"source": "x", "position": "above"})
    assert inserted["cell"]["index"] == 3 and [c["id"] for c in lab.current.data][:3] == ["visible-a", SECRET, "visible-b"]
    ran = call(lab_with(1, [1]), "jupyter_run_cells", {})
    assert ran["error"] == "INVALID_ARGUMENT" and ran["field"] == "cellIds"


def test_a_notebook_whose_only_cell_is_hidden_takes_inserts_at_its_end():
    lab = lab_with(0, [0], cells=[cell(f"{SECRET} = 1", cell_id=SECRET, **HIDDEN)])
    result = call_result(lab, "jupyter_insert_cell", {"cellType": "markdown", "source": "# new"})
    assert not result.get("isError") and SECRET not in result["content"][0]["text"]
    assert [c["id"] for c in lab.current.data][0] == SECRET and len(lab.current.data) == 2


def test_in_propose_mode_an_insert_with_no_visible_place_is_still_reviewed_at_the_notebook_end():
    lab = lab_with(0, [0], cells=[cell(f"{SECRET} = 1", cell_id=SECRET, **HIDDEN)])
    lab.proposals.enabled, lab.proposals.reviewed_actions = True, {"insert"}
    lab.proposals.human = lambda *_: ("denied", None)
    denied = call(lab, "jupyter_insert_cell", {"source": "x"})
    assert denied == {"status": "denied", "code": "PROPOSAL_DENIED", "proposalId": "p-1", "cellId": "", "reason": None}
    assert lab.proposals.shown[0][0] == "" and len(lab.current.data) == 1


def test_an_insert_placed_by_the_active_cell_fails_without_its_id_when_that_cell_is_hidden_while_the_human_decides():
    lab = lab_with(0, [0])
    lab.proposals.enabled, lab.proposals.reviewed_actions = True, {"insert"}

    def hide_then_accept(notebook, *_):
        notebook.data[0]["metadata"].update(HIDDEN)
        return "accepted", None

    lab.proposals.human = hide_then_accept
    error = call(lab, "jupyter_insert_cell", {"source": "x"})
    assert error["error"] == "CELL_NOT_FOUND" and "visible-a" not in json.dumps(error)
    assert len(lab.current.data) == 3


def test_delete_does_not_name_a_hidden_cell_that_becomes_active():
    lab = lab_with(1, [1])
    from pyodide_webmcp.base.hashing import source_hash

    deleted = call(lab, "jupyter_delete_cell", {"cellId": "visible-a", "expectedSourceHash": source_hash("a = 1")})
    assert deleted["deletedCellId"] == "visible-a" and deleted["activeCellId"] is None


def test_a_pending_run_does_not_name_a_cell_hidden_while_it_runs():
    async def scenario():
        notebook = MemoryNotebook("n.ipynb", [cell("slow()", cell_id="runs-then-hidden")])
        notebook.run_delay = 0.4
        lab = MemoryLab(notebook)
        table = CallTable()
        context = CallContext(lab, calls=table, budget_ms=100)
        first = json.loads((await dispatch(BUILT_IN, "jupyter_run_cells", {"cellIds": ["runs-then-hidden"]}, context))
                           ["content"][0]["text"])
        assert first["waitingFor"]["cellId"] == "runs-then-hidden"
        notebook.data[0]["metadata"].update(HIDDEN)
        again = await dispatch(BUILT_IN, "jupyter_wait_for_result", {"pendingId": first["pendingId"]}, context)
        seen = again["content"][0]["text"]
        assert json.loads(seen)["status"] == "pending" and "runs-then-hidden" not in seen
        context_now = await dispatch(BUILT_IN, "jupyter_get_context", {}, context)
        assert "runs-then-hidden" not in context_now["content"][0]["text"]
        assert "pending" in context_now["structuredContent"]
        notebook.notebook_metadata["jupyterlite_webmcp"] = {"notebookAccess": "none"}
        hidden_notebook = await dispatch(BUILT_IN, "jupyter_wait_for_result", {"pendingId": first["pendingId"]}, context)
        assert "cellId" not in hidden_notebook["structuredContent"].get("waitingFor", {})

    run(scenario())


def test_run_ranges_that_hold_no_cell_to_run_are_invalid_arguments_naming_the_field():
    cells = [cell(f"x = {i}", cell_id=f"c{i}") for i in range(3)] + [cell("s", cell_id=SECRET, **HIDDEN)]
    for selector, field in (
        ({"startIndex": 0, "endIndex": 0}, "endIndex"),
        ({"startIndex": 2, "endIndex": 1}, "endIndex"),
        ({"startIndex": 11, "endIndex": 12}, "startIndex"),
        ({"startIndex": 4, "endIndex": 5}, "startIndex"),
        ({"startIndex": 3, "endIndex": 4}, "startIndex"),  # only the hidden cell
        ({"startIndex": 0}, "endIndex"),
        ({"endIndex": 2}, "startIndex"),
        ({"startIndex": 0, "endIndex": 101}, "endIndex"),
    ):
        error = call(lab_with(None, [], cells=[dict(c) for c in cells]), "jupyter_run_cells", selector)
        assert error["error"] == "INVALID_ARGUMENT" and error["field"] == field, (selector, error)
        assert SECRET not in json.dumps(error)
    ran = call(lab_with(None, [], cells=[dict(c) for c in cells]), "jupyter_run_cells", {"startIndex": 1, "endIndex": 99})
    assert [r["cellId"] for r in ran["results"]] == ["c1", "c2"]


def test_read_ranges_past_the_end_or_empty_are_empty_pages():
    for name in ("jupyter_get_cells", "jupyter_get_cell_access"):
        for selector in ({"startIndex": 0, "endIndex": 0}, {"startIndex": 50}, {"startIndex": 3, "endIndex": 4}):
            page = call(lab_with(None, []), name, selector)
            assert page["cells"] == [] and "error" not in page, (name, selector, page)
        assert call(lab_with(None, []), name, {"startIndex": 50})["hasMore"] is False
        inverted = call(lab_with(None, []), name, {"startIndex": 2, "endIndex": 1})
        assert inverted["error"] == "INVALID_ARGUMENT" and inverted["field"] == "endIndex"


def test_tools_read_the_human_s_focus_only_through_the_kit():
    """The active cell, the selection and the editor reach a tool only through kit.active_cell / kit.focus_of,
    which drop what the owner hid: a tool reading them straight from the notebook could name a hidden cell."""
    import ast
    from pathlib import Path

    import pyodide_webmcp.tools

    raw = {"active_index", "selected_indexes", "editor_state"}
    found = [
        f"{path.name}:{node.lineno} {node.attr}"
        for path in sorted(Path(pyodide_webmcp.tools.__file__).parent.glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr in raw
    ]
    assert found == []
