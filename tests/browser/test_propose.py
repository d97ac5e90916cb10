"""Propose mode: agent edits wait for the human's Accept or Deny."""

import pytest
from pyodide_webmcp.base.hashing import source_hash

from tests.browser.conftest import code_cell, diff_lines, notebook_json, payload
from tests.waiting import wait_until

PATH = "propose.ipynb"


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    lab.open()
    lab.save_file(PATH, notebook_json([code_cell(f"c{i}", f"x{i} = {i}") for i in range(6)]))
    lab.call("jupyter_open_notebook", {"path": PATH})
    lab.switch("propose-toggle", True)
    assert lab.page.evaluate(
        "() => window.jupyterapp.commands.isToggled('jupyterlite-pyodide-webmcp:toggle-propose-mode')"
    ) is True
    yield lab
    lab.page.evaluate("() => window.jupyterapp.commands.execute('jupyterlite-pyodide-webmcp:toggle-propose-mode')")


def propose(lab, cell_id, source):
    digest = lab.call("jupyter_get_cells", {"cellIds": [cell_id]})["cells"][0]["sourceHash"]
    lab.start_call("jupyter_update_cell", {"cellId": cell_id, "source": source, "expectedSourceHash": digest})
    box = lab.page.locator(".jp-webmcp-proposal")
    box.wait_for(timeout=10_000)
    return box


def outcome(lab):
    """The proposing call's result once the human has acted. A test whose steps outlast the call budget (a loaded
    machine) gets a pending answer, as any call does, and its outcome from jupyter_wait_for_result."""
    result = lab.finish_call()
    if result.get("status") == "pending":
        result = payload(lab.call_raw("jupyter_wait_for_result", {"pendingId": result["pendingId"]}))
    return result


def live_source(lab, index):
    return lab.live_cells(PATH)[index]["source"]


def test_accept_applies_the_change(lab):
    box = propose(lab, "c0", "x0 = 100")
    assert diff_lines(box.locator(".jp-webmcp-diff")) == [("removed", "x0 = 0"), ("added", "x0 = 100")]
    assert live_source(lab, 0) == "x0 = 0"  # nothing changes before the human decides
    box.locator(".jp-webmcp-proposal-accept").click()
    result = outcome(lab)
    assert result["status"] == "accepted" and result["proposalId"].startswith("p-")
    assert result["cell"]["sourceHash"] == source_hash(live_source(lab, 0)) == source_hash("x0 = 100")
    assert lab.page.locator(".jp-webmcp-proposal").count() == 0


def test_deny_returns_the_reason_as_a_normal_result(lab):
    box = propose(lab, "c1", "x1 = -1")
    box.locator(".jp-webmcp-proposal-reason").fill("Keep it positive")
    box.locator(".jp-webmcp-proposal-deny").click()
    result = outcome(lab)
    assert result == {
        "status": "denied", "code": "PROPOSAL_DENIED", "proposalId": result["proposalId"], "cellId": "c1",
        "reason": "Keep it positive",
    }
    assert live_source(lab, 1) == "x1 = 1"


def test_a_human_edit_while_pending_wins_on_accept(lab):
    box = propose(lab, "c2", "x2 = 'agent'")
    lab.set_source(PATH, 2, "x2 = 'human'")
    box.locator(".jp-webmcp-proposal-accept").click()
    outcome = lab.page.evaluate("() => window.__webmcpCall.then(JSON.parse)")
    assert outcome["isError"] is True and payload(outcome)["error"] == "STALE_CELL"
    assert payload(outcome)["currentSourceHash"] == source_hash("x2 = 'human'")
    assert live_source(lab, 2) == "x2 = 'human'"


def test_one_pending_proposal_per_cell_and_abort_withdraws_it(lab):
    box = propose(lab, "c3", "x3 = 33")
    proposal_id = box.get_attribute("data-proposal-id")
    digest = source_hash("x3 = 3")
    twice = lab.error("jupyter_update_cell", {"cellId": "c3", "source": "x3 = 34", "expectedSourceHash": digest})
    assert twice == {**twice, "error": "PROPOSAL_ALREADY_PENDING", "cellId": "c3", "existingProposalId": proposal_id}
    lab.abort_call()
    assert lab.finish_call() == {"rejected": "AbortError"}
    lab.page.locator(".jp-webmcp-proposal").wait_for(state="detached", timeout=5_000)
    assert live_source(lab, 3) == "x3 = 3"
    again = propose(lab, "c3", "x3 = 35")  # the cell is free again
    again.locator(".jp-webmcp-proposal-deny").click()
    assert outcome(lab)["status"] == "denied"


def test_deleting_the_cell_auto_denies(lab):
    propose(lab, "c4", "x4 = 44")
    lab.page.evaluate("() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.deleteCell(4)")
    result = outcome(lab)
    assert result["status"] == "denied" and "deleted" in result["reason"]


def test_hiding_the_cell_auto_denies_as_deleting_it_does(lab):
    cells = lab.live_cells(PATH)
    target = cells[-1]["id"]
    box = propose(lab, target, "x = 'hidden meanwhile'")
    lab.page.evaluate(
        """id => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells.find(c => c.id === id)
            .setMetadata('jupyterlite_webmcp', {access: 'none'})""",
        target,
    )
    result = outcome(lab)
    assert result == {**result, "status": "denied", "cellId": target, "reason": "The cell was deleted before the human decided."}
    box.wait_for(state="detached", timeout=5_000)
    lab.page.evaluate(
        """id => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells.find(c => c.id === id)
            .deleteMetadata('jupyterlite_webmcp')""",
        target,
    )


def test_an_insert_with_no_visible_place_is_reviewed_at_the_notebook_end(lab):
    lab.save_file("propose-hidden.ipynb", notebook_json([{**code_cell("SECRETONLY", "secret = 1"),
                                                          "metadata": {"jupyterlite_webmcp": {"access": "none"}}}]))
    lab.share_kernel("propose-hidden.ipynb")
    lab.call("jupyter_open_notebook", {"path": "propose-hidden.ipynb"})
    lab.switch("review-insert", True)
    try:
        lab.start_call("jupyter_insert_cell", {"source": "at_the_end = 1"})
        box = lab.page.locator(".jp-webmcp-proposal")
        box.wait_for(timeout=10_000)
        assert box.locator(".jp-webmcp-proposal-title").inner_text().endswith("at the end of the notebook:")
        assert box_owner(lab) == "SECRETONLY"  # the human sees it under the last cell, hidden from the agent or not
        box.locator(".jp-webmcp-proposal-deny").click()
        denied = outcome(lab)
        assert denied == {**denied, "status": "denied", "cellId": ""}
        lab.start_call("jupyter_insert_cell", {"source": "at_the_end = 1"})
        box.wait_for(timeout=10_000)
        box.locator(".jp-webmcp-proposal-accept").click()
        accepted = outcome(lab)
        assert accepted["status"] == "accepted" and accepted["cell"]["index"] == 1
        assert "SECRETONLY" not in str(accepted) and "SECRETONLY" not in str(denied)
        assert [c["id"] for c in lab.live_cells("propose-hidden.ipynb")][0] == "SECRETONLY"
    finally:
        lab.switch("review-insert", False)
        lab.call("jupyter_open_notebook", {"path": PATH})


def test_size_access_and_hash_are_checked_before_anything_is_shown(lab):
    stale = lab.error("jupyter_update_cell", {"cellId": "c5", "source": "y", "expectedSourceHash": "0" * 16})
    assert stale["error"] == "STALE_CELL"
    big = lab.error("jupyter_update_cell", {"cellId": "c5", "source": "z" * 300_000, "expectedSourceHash": "0"})
    assert big["error"] == "INVALID_ARGUMENT" and big["bytes"] == 300_000
    assert lab.page.locator(".jp-webmcp-proposal").count() == 0


def test_inserts_deletes_and_runs_are_reviewed_when_the_human_chooses(lab):
    for action in ("insert", "delete", "run"):
        lab.switch(f"review-{action}", True)
    try:
        lab.start_call("jupyter_insert_cell", {"referenceCellId": "c5", "source": "added = True"})
        box = lab.page.locator(".jp-webmcp-proposal")
        box.wait_for(timeout=10_000)
        assert "new code cell below" in box.locator(".jp-webmcp-proposal-title").inner_text()
        assert diff_lines(box.locator(".jp-webmcp-diff")) == [("added", "added = True")]
        count = len(lab.live_cells(PATH))
        box.locator(".jp-webmcp-proposal-accept").click()
        inserted = outcome(lab)
        assert inserted["status"] == "accepted" and inserted["cell"]["sourceHash"] == source_hash("added = True")
        assert len(lab.live_cells(PATH)) == count + 1

        lab.start_call(
            "jupyter_delete_cell", {"cellId": inserted["cell"]["id"], "expectedSourceHash": inserted["cell"]["sourceHash"]}
        )
        box.wait_for(timeout=10_000)
        box.locator(".jp-webmcp-proposal-reason").fill("keep it")
        box.locator(".jp-webmcp-proposal-deny").click()
        refused = outcome(lab)
        assert refused["status"] == "denied" and refused["reason"] == "keep it"
        assert len(lab.live_cells(PATH)) == count + 1

        lab.start_call("jupyter_run_cells", {"cellIds": ["c5"]})
        box.wait_for(timeout=10_000)
        assert diff_lines(box.locator(".jp-webmcp-diff"))[-1][1].endswith("x5 = 5")
        box.locator(".jp-webmcp-proposal-deny").click()
        assert outcome(lab)["code"] == "PROPOSAL_DENIED"
        assert "executionCount" not in lab.call("jupyter_get_cells", {"cellIds": ["c5"]})["cells"][0]
    finally:
        for action in ("insert", "delete", "run"):
            lab.switch(f"review-{action}", False)


MOVE = "([from, to]) => window.jupyterapp.shell.currentWidget.content.model.sharedModel.moveCell(from, to)"


def box_owner(lab):
    """The id of the cell whose widget holds the proposal box."""
    return lab.page.evaluate(
        """() => {
            const box = document.querySelector('.jp-webmcp-proposal');
            const widget = window.jupyterapp.shell.currentWidget.content.widgets.find(w => w.node.contains(box));
            return widget ? widget.model.id : null;
        }"""
    )


def drag_cell(lab, source: int, target: int) -> None:
    cells = lab.page.locator(".jp-Notebook .jp-Cell")
    start = cells.nth(source).locator(".jp-InputPrompt").bounding_box()
    end = cells.nth(target).bounding_box()
    x, y = start["x"] + 5, start["y"] + 5
    lab.page.mouse.move(x, y)
    lab.page.mouse.down()
    for step in range(1, 11):
        lab.page.mouse.move(x, y + (end["y"] + end["height"] * 0.7 - y) * step / 10)
    lab.page.mouse.up()


def test_a_pending_proposal_follows_its_cell_through_moves_and_rebuilds(lab):
    box = propose(lab, "c0", "x0 = 'moved'")
    box.locator(".jp-webmcp-proposal-reason").fill("half-typ")
    lab.page.evaluate(MOVE, [0, 2])
    wait_until(lambda: box_owner(lab) == "c0", timeout=5)
    assert [c["id"] for c in lab.live_cells(PATH)][2] == "c0"
    lab.page.evaluate(MOVE, [2, 0])
    wait_until(lambda: box_owner(lab) == "c0" and lab.live_cells(PATH)[0]["id"] == "c0", timeout=5)
    lab.call("jupyter_focus_cell", {"cellId": "c0"})
    lab.page.evaluate("() => window.jupyterapp.commands.execute('notebook:move-cell-down')")
    wait_until(lambda: box_owner(lab) == "c0" and lab.live_cells(PATH)[1]["id"] == "c0", timeout=5)
    for command in ("notebook:change-cell-to-markdown", "notebook:change-cell-to-code"):  # the widget is rebuilt
        lab.page.evaluate(f"() => window.jupyterapp.commands.execute('{command}')")
        wait_until(lambda: box_owner(lab) == "c0", timeout=5)
    assert box.locator(".jp-webmcp-proposal-reason").input_value() == "half-typ"
    box.locator(".jp-webmcp-proposal-accept").click()
    result = outcome(lab)
    assert result["status"] == "accepted" and result["cell"]["sourceHash"] == source_hash("x0 = 'moved'")
    assert result["cell"]["index"] == 1

    box = propose(lab, "c1", "x1 = 'moved'")
    box.locator(".jp-webmcp-proposal-reason").fill("not ")
    lab.page.evaluate(MOVE, [0, 3])  # c1 is at 0 now: below goes the box
    wait_until(lambda: box_owner(lab) == "c1", timeout=5)
    lab.page.evaluate(MOVE, [3, 0])
    wait_until(lambda: box_owner(lab) == "c1" and lab.live_cells(PATH)[0]["id"] == "c1", timeout=5)
    drag_cell(lab, 0, 2)  # with the mouse, as a human drags a cell by its prompt
    wait_until(lambda: box_owner(lab) == "c1" and lab.live_cells(PATH)[0]["id"] != "c1", timeout=5)
    box.locator(".jp-webmcp-proposal-reason").press("End")
    box.locator(".jp-webmcp-proposal-reason").press_sequentially("this one")
    box.locator(".jp-webmcp-proposal-deny").click()
    result = outcome(lab)
    assert result["status"] == "denied" and result["reason"] == "not this one"
    assert lab.page.locator(".jp-webmcp-proposal").count() == 0


def test_renaming_the_notebook_auto_denies(lab):
    propose(lab, "c5", "x5 = 55")
    lab.page.evaluate(
        "() => window.jupyterapp.serviceManager.contents.rename('propose.ipynb', 'proposed-renamed.ipynb')"
    )
    result = outcome(lab)
    assert result["status"] == "denied" and "renamed" in result["reason"]
    assert lab.page.locator(".jp-webmcp-proposal").count() == 0
