"""tools/execution.py: running cells and acting on the kernel."""

from pyodide_webmcp.kit.testing import (
    MemoryLab,
    MemoryNotebook,
    call,
    call_result,
    cell,
)


def test_a_notebook_closed_mid_run_ends_the_call_with_a_clear_code_and_the_results_so_far():
    notebook = MemoryNotebook("closing.ipynb", [cell(f"v = {i}", cell_id=c) for i, c in enumerate("abc")])
    original = notebook.execute_code

    async def closed_during_b(index, cell_id):
        status = await original(index, cell_id)
        if cell_id == "b":
            notebook.is_closed = True
            return "gone"
        return status

    notebook.execute_code = closed_during_b
    envelope = call_result(MemoryLab(notebook), "jupyter_run_cells", {"startIndex": 0, "endIndex": 3})
    error = envelope["structuredContent"]
    assert envelope["isError"] is True and error["error"] == "NOTEBOOK_NOT_FOUND" and error["cellId"] == "b"
    assert "closed while cell b ran" in error["message"]
    assert [result["cellId"] for result in error["results"]] == ["a"]


def test_an_accepted_reviewed_run_keeps_its_own_status():
    """Propose mode with runs reviewed: the human accepts, the result is the run's (ok) with the proposal's id."""
    notebook = MemoryNotebook("r.ipynb", [cell("a = 1", cell_id="a")])
    lab = MemoryLab(notebook)
    lab.proposals.enabled, lab.proposals.reviewed_actions = True, {"run"}
    lab.proposals.human = lambda *_: ("accepted", None)
    ran = call(lab, "jupyter_run_cells", {"cellIds": ["a"]})
    assert ran["status"] == "ok" and ran["proposalId"] == "p-1" and ran["results"][0]["status"] == "ok"
    lab.proposals.human = lambda *_: ("denied", "not now")
    refused = call(lab, "jupyter_run_cells", {"cellIds": ["a"]})
    assert refused["status"] == "denied" and refused["code"] == "PROPOSAL_DENIED" and notebook.executions == 1
