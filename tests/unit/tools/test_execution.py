"""tools/execution.py: running cells and acting on the kernel."""

from memory_lab import MemoryLab, MemoryNotebook, call, cell


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
