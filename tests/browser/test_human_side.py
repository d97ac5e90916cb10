"""What the human sees of the agent's work and takes back: the marks on cells, the Activity feed, the agent's
presence, a change's diff and its undo, reverting everything since a checkpoint, open comments on a cell; the
reference extension's command ids; and an accessibility check of all of it in both themes."""

from pathlib import Path

import pytest
from pyodide_webmcp.base.hashing import source_hash

from tests.browser.conftest import code_cell, diff_lines, notebook_json
from tests.waiting import wait_until

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
MEAN = "total = sum(readings)\nmean = total / len(readings)\nprint(mean)"
MEAN_NOW = "total = sum(readings)\nmean = total / len(readings)\nprint(f'mean {mean:.3f}')"


def report(path: str) -> dict:
    cells = [code_cell("readings", "readings = [0.12, 0.03, 0.07]\nlen(readings)"), code_cell("mean", MEAN),
             code_cell("spare", "spare = 1")]
    cells[1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "0.07\n"}]
    return notebook_json(cells)


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    lab.open()
    lab.make_directory("human")
    return lab


CLOSE_ALL = """() => {
    for (const widget of Array.from(window.jupyterapp.shell.widgets('main'))) {
        if (widget.context) { widget.context.model.dirty = false; widget.dispose(); }
    }
}"""


def fresh(lab, path: str, kernel: bool = False):
    """A new notebook, the only one open, on the module's one kernel (idle when the test runs cells); its cells'
    hashes."""
    lab.page.evaluate(CLOSE_ALL)
    lab.save_file(path, report(path))
    lab.share_kernel(path)
    if kernel:
        lab.open_with_idle_kernel(path)
    else:
        lab.call("jupyter_open_notebook", {"path": path})
    return {c["id"]: c["sourceHash"] for c in lab.call("jupyter_get_cells", {"notebookPath": path})["cells"]}


def agent_edits_mean(lab, path: str, hashes: dict) -> None:
    """The agent's edit every test starts from: the mean cell's print made an f-string."""
    lab.call("jupyter_update_cell", {"notebookPath": path, "cellId": "mean", "expectedSourceHash": hashes["mean"],
                                     "source": MEAN_NOW})


def cell_node(lab, index: int):
    return lab.page.locator(".jp-Notebook:visible .jp-Cell").nth(index)


def chips(lab, index: int) -> list[str]:
    return cell_node(lab, index).locator(".jp-webmcp-cell-marks .jp-webmcp-chip").all_inner_texts()


def test_after_an_agent_edit_and_run_the_cells_the_feed_and_the_presence_say_so(lab):
    path = "human/after.ipynb"
    hashes = fresh(lab, path, kernel=True)
    agent_edits_mean(lab, path, hashes)
    lab.call("jupyter_run_cells", {"notebookPath": path, "cellIds": ["readings", "mean"]})
    wait_until(lambda: len(chips(lab, 1)) == 2 and not chips(lab, 1)[0].startswith("Browser agent"),
               what="the edited and run cell's two chips, the agent gone from it")
    edited, ran = chips(lab, 1)
    assert edited.startswith("Edited by agent · ") and edited.endswith(" · ±2") and ran.startswith("Run by agent · ")
    assert [text.split(" · ")[0] for text in chips(lab, 0)] == ["Run by agent"] and chips(lab, 2) == []
    lines = lab.panel_tab("Activity").locator(".jp-webmcp-feed-line")
    assert [lines.nth(i).locator(".jp-webmcp-verb").inner_text() for i in range(2)] == ["ran", "edited"]
    assert lines.nth(0).locator(".jp-webmcp-feed-target").inner_text() == "2 cells in after.ipynb"
    assert lines.nth(1).locator(".jp-webmcp-feed-target").inner_text() == "cell 2 in after.ipynb"
    agent = lab.page.locator('.jp-webmcp-participant[data-who="agent"]')
    assert agent.get_attribute("data-state") == "idle"
    assert agent.locator(".jp-webmcp-presence-status").inner_text() == "ran 2 cells · just now"
    lines.nth(1).locator(".jp-webmcp-feed-target").click()  # shows the cell
    wait_until(lambda: lab.page.evaluate("() => window.jupyterapp.shell.currentWidget.content.activeCellIndex") == 1)


def test_the_diff_shown_is_the_change_and_undo_restores_it_as_the_human(lab):
    path = "human/undo.ipynb"
    hashes = fresh(lab, path)
    agent_edits_mean(lab, path, hashes)
    chip = cell_node(lab, 1).locator(".jp-webmcp-chip-agent")
    chip.click()
    assert chip.get_attribute("aria-expanded") == "true"
    change = cell_node(lab, 1).locator(".jp-webmcp-change")
    shown = diff_lines(change.locator(".jp-webmcp-diff"))
    assert shown == [("same", "total = sum(readings)"), ("same", "mean = total / len(readings)"),
                     ("removed", "print(mean)"), ("added", "print(f'mean {mean:.3f}')")]
    assert change.locator("ins").all_inner_texts() == ["f'", " {mean:.3f}'"] and change.locator("del").count() == 0
    change.locator(".jp-webmcp-undo").click()
    assert lab.live_cells(path)[1]["source"] == MEAN
    wait_until(lambda: chips(lab, 1) == [], what="the chip cleared by the undo")
    seen = lab.call("jupyter_get_cells", {"notebookPath": path, "cellIds": ["mean"]})["cells"][0]
    assert seen["lastEditedBy"] == "human"  # the agent learns of it as of any human edit
    stale = lab.error("jupyter_update_cell", {"notebookPath": path, "cellId": "mean", "source": "x",
                                               "expectedSourceHash": source_hash(MEAN_NOW)})
    assert stale["error"] == "STALE_CELL"


def test_the_marks_and_the_panel_work_from_the_keyboard(lab):
    path = "human/keys.ipynb"
    hashes = fresh(lab, path)
    agent_edits_mean(lab, path, hashes)
    # The marks are drawn again when the agent's presence leaves the cell: focus the chip once they are settled.
    wait_until(lambda: len(chips(lab, 1)) == 1 and chips(lab, 1)[0].startswith("Edited by agent"),
               what="the edited cell's chip, the agent gone from it")
    chip = cell_node(lab, 1).locator(".jp-webmcp-chip-agent")
    chip.focus()
    lab.page.keyboard.press("Enter")
    wait_until(lambda: chip.get_attribute("aria-expanded") == "true", what="the chip opened from the keyboard")
    undo = cell_node(lab, 1).locator(".jp-webmcp-undo")
    undo.focus()
    lab.page.keyboard.press("Space")
    wait_until(lambda: lab.live_cells(path)[1]["source"] == MEAN, what="the undo pressed from the keyboard")
    lab.panel_tab("Activity")
    tabs = lab.page.locator(".jp-webmcp-tabs .lm-TabBar-tab")
    tabs.nth(0).focus()
    lab.page.keyboard.press("ArrowRight")
    lab.page.keyboard.press("Enter")
    wait_until(lambda: tabs.nth(1).get_attribute("aria-selected") == "true", what="Changes chosen with the arrow key")
    switch = lab.page.locator(".jp-webmcp-review-run [role=switch]")
    switch.focus()
    lab.page.keyboard.press("Space")
    try:
        assert switch.get_attribute("aria-checked") == "true"
    finally:
        lab.switch("review-run", False)


def test_undo_is_refused_after_a_human_edit_and_the_human_text_is_kept(lab):
    path = "human/kept.ipynb"
    hashes = fresh(lab, path)
    agent_edits_mean(lab, path, hashes)
    cell_node(lab, 1).locator(".jp-webmcp-chip-agent").wait_for()
    lab.panel_tab("Changes")
    lab.set_source(path, 1, "mean = 'mine'")
    undo = lab.page.locator("#jp-webmcp-tab-changes .jp-webmcp-change-item[data-cell-id='mean']")
    wait_until(lambda: "You changed this cell since" in undo.inner_text(), what="the reason the revert is off")
    assert undo.locator(".jp-webmcp-revert").count() == 0
    assert lab.live_cells(path)[1]["source"] == "mean = 'mine'"
    wait_until(lambda: chips(lab, 1) == [], what="the agent's chip cleared by the human edit")


def test_revert_all_over_an_edit_an_insert_a_delete_and_a_move_is_back_at_the_checkpoint(lab):
    path = "human/revert.ipynb"
    hashes = fresh(lab, path)
    checkpoint = lab.page.evaluate(
        """path => Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path)
            .content.model.sharedModel.cells.map(c => c.toJSON())""", path)
    lab.call("jupyter_update_cell", {"notebookPath": path, "cellId": "readings", "expectedSourceHash": hashes["readings"],
                                     "source": "readings = []"})
    lab.call("jupyter_insert_cell", {"notebookPath": path, "position": "below", "referenceCellId": "spare",
                                     "source": "added = 1"})
    lab.call("jupyter_delete_cell", {"notebookPath": path, "cellId": "mean", "expectedSourceHash": hashes["mean"]})
    lab.call("jupyter_move_cell", {"notebookPath": path, "cellId": "spare", "position": "above",
                                   "referenceCellId": "readings"})
    tab = lab.panel_tab("Changes")
    tab.locator(".jp-webmcp-changes-notebook select").select_option(path)
    items = tab.locator(".jp-webmcp-change-item")
    wait_until(lambda: items.count() == 4, what="four changes listed")
    assert [items.nth(i).get_attribute("data-kind") for i in range(4)] == ["moved", "deleted", "inserted", "edited"]
    tab.locator(".jp-webmcp-revert-all").click()
    wait_until(lambda: [c["source"] for c in lab.live_cells(path)] == [c["source"] for c in checkpoint])
    after = lab.page.evaluate(
        """path => Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path)
            .content.model.sharedModel.cells.map(c => c.toJSON())""", path)
    assert [(c["id"], c["source"], c.get("outputs")) for c in after] == [
        (c["id"], c["source"], c.get("outputs")) for c in checkpoint]
    assert items.locator(".jp-webmcp-outcome", has_text="Taken back").count() == 4


def test_the_humans_save_starts_a_checkpoint_an_autosave_or_the_agents_does_not(lab):
    path = "human/saved.ipynb"
    hashes = fresh(lab, path)
    lab.call("jupyter_update_cell", {"notebookPath": path, "cellId": "spare", "expectedSourceHash": hashes["spare"],
                                     "source": "spare = 2"})
    tab = lab.panel_tab("Changes")
    tab.locator(".jp-webmcp-changes-notebook select").select_option(path)
    wait_until(lambda: tab.locator(".jp-webmcp-change-item").count() == 1)
    # An agent's save and an autosave (JupyterLab saving the context by itself) start no checkpoint.
    lab.call("jupyter_save_notebook", {"notebookPath": path})
    lab.page.evaluate("""path => Array.from(window.jupyterapp.shell.widgets('main'))
        .find(w => w.context && w.context.path === path).context.save()""", path)
    assert tab.locator(".jp-webmcp-change-item").count() == 1
    assert "when you saved it" not in tab.locator(".jp-webmcp-since").inner_text()
    lab.page.keyboard.press("Control+s")
    wait_until(lambda: tab.locator(".jp-webmcp-change-item").count() == 0, what="the list emptied by the save")
    assert "when you saved it" in tab.locator(".jp-webmcp-since").inner_text()


def test_the_comment_chip_follows_create_resolve_and_reopen_and_opens_the_thread(lab):
    path = "human/comments.ipynb"
    fresh(lab, path)
    created = lab.call("jupyter_create_comment", {"notebookPath": path, "cellId": "spare", "message": "Why 1?"})
    lab.call("jupyter_create_comment", {"notebookPath": path, "cellId": "spare", "message": "And why here?"})
    chip = cell_node(lab, 2).locator(".jp-webmcp-chip-comments")
    wait_until(lambda: chip.count() == 1 and chip.inner_text() == "2 open comments")
    thread = {"notebookPath": path, "threadId": created["thread"]["id"]}
    lab.call("jupyter_resolve_comment", thread)
    wait_until(lambda: chip.count() == 1 and chip.inner_text() == "1 open comment")
    lab.call("jupyter_reopen_comment", thread)
    wait_until(lambda: chip.count() == 1 and chip.inner_text() == "2 open comments")
    chip.click()
    cards = lab.page.locator("#jp-webmcp-tab-comments .jp-webmcp-thread")
    wait_until(lambda: cards.count() == 2, what="the cell's two threads in the Comments tab")
    assert lab.page.locator("#jp-webmcp-tab-comments .jp-webmcp-thread-filter").input_value() == "cell"
    lab.call("jupyter_reply_comment", {**thread, "message": "Because."})
    wait_until(lambda: "Because." in cards.all_inner_texts()[-1] or "Because." in "".join(cards.all_inner_texts()),
               timeout=3, what="the agent's reply shown at once")


def test_the_agent_waiting_for_a_proposal_is_shown_on_the_cell_and_in_the_panel(lab):
    path = "human/presence.ipynb"
    hashes = fresh(lab, path)
    lab.switch("propose-toggle", True)
    try:
        lab.start_call("jupyter_update_cell", {"notebookPath": path, "cellId": "spare", "source": "spare = 3",
                                               "expectedSourceHash": hashes["spare"]})
        here = cell_node(lab, 2).locator(".jp-webmcp-chip-here")
        wait_until(lambda: here.count() == 1 and here.inner_text() == "Browser agent: waiting for you: a proposal")
        agent = lab.page.locator('.jp-webmcp-participant[data-who="agent"]')
        wait_until(lambda: agent.get_attribute("data-state") == "waiting")
        assert agent.locator(".jp-webmcp-presence-status").inner_text() == "waiting for you: a proposal"
        box = cell_node(lab, 2).locator(".jp-webmcp-proposal")
        assert box.evaluate("box => box.nextElementSibling.classList.contains('jp-Cell-outputWrapper')")
        box.locator(".jp-webmcp-proposal-deny").click()
        assert lab.finish_call()["status"] == "denied"
        wait_until(lambda: here.count() == 0, what="the live marker gone when the call ended")
        newest = lab.panel_tab("Activity").locator(".jp-webmcp-feed-line").first
        assert newest.get_attribute("data-outcome") == "denied" and newest.locator(".jp-webmcp-verb").inner_text() == "edit"
    finally:
        lab.switch("propose-toggle", False)


def test_the_reference_extensions_command_ids_run_ours(lab):
    path = "human/commands.ipynb"
    fresh(lab, path)
    run = "([id, args]) => window.jupyterapp.commands.execute(id, args)"
    toggled = "() => window.jupyterapp.commands.isToggled('jupyterlite-pyodide-webmcp:toggle-propose-mode')"
    lab.page.evaluate(run, ["jupyterlite-webmcp:set-propose-mode", {"mode": "propose"}])
    try:
        assert lab.page.evaluate(toggled) is True and lab.call("jupyter_get_context")["proposeMode"]["on"] is True
    finally:
        lab.page.evaluate(run, ["jupyterlite-webmcp:set-propose-mode", {"mode": "direct"}])
    assert lab.page.evaluate(toggled) is False
    lab.call("jupyter_focus_cell", {"notebookPath": path, "cellId": "spare"})
    lab.page.evaluate(run, ["jupyterlite-webmcp:cycle-cell-access", {}])
    wait_until(lambda: lab.call("jupyter_get_cell_access", {"notebookPath": path, "cellIds": ["spare"]})["cells"][0]["access"]
               == "read")
    lab.page.evaluate(run, ["jupyterlite-webmcp:add-cell-comment", {}])
    composer = lab.page.locator(".jp-webmcp-composer-text")
    composer.fill("From the reference's command")
    lab.page.locator(".jp-webmcp-composer-add").click()
    threads = lab.call("jupyter_list_comments", {"notebookPath": path})["threads"]
    assert [t["lastMessage"]["body"] for t in threads] == ["From the reference's command"]


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"])
def test_the_panel_the_marks_and_the_proposal_box_pass_axe_in_both_themes(lab, theme):
    path = f"human/axe-{theme.split()[-1].lower()}.ipynb"
    hashes = fresh(lab, path)
    lab.page.evaluate("theme => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", theme)
    lab.page.wait_for_function("light => document.body.dataset.jpThemeLight === light",
                               arg="true" if theme.endswith("Light") else "false")
    agent_edits_mean(lab, path, hashes)
    lab.call("jupyter_create_comment", {"notebookPath": path, "cellId": "mean", "message": "Check this"})
    cell_node(lab, 1).locator(".jp-webmcp-chip-comments").wait_for()
    cell_node(lab, 1).locator(".jp-webmcp-chip-agent").click()
    lab.switch("propose-toggle", True)
    try:
        lab.start_call("jupyter_update_cell", {"notebookPath": path, "cellId": "spare", "source": "spare = 2",
                                               "expectedSourceHash": hashes["spare"]})
        cell_node(lab, 2).locator(".jp-webmcp-proposal").wait_for()
        lab.page.add_script_tag(path=str(AXE))
        found = {}
        for tab in ("Activity", "Changes", "Comments", "Access"):
            lab.panel_tab(tab)
            lab.page.wait_for_timeout(300)
            found[tab] = serious(lab, "#jp-webmcp-agent-panel")
        cell_node(lab, 1).evaluate("node => { node.id = 'jp-webmcp-axe-cell'; }")
        found["marks"] = serious(lab, "#jp-webmcp-axe-cell .jp-webmcp-cell-marks", "#jp-webmcp-axe-cell .jp-webmcp-change")
        found["proposal"] = serious(lab, ".jp-webmcp-proposal")
        assert found == {name: [] for name in found}
        cell_node(lab, 2).locator(".jp-webmcp-proposal-deny").click()
        lab.finish_call()
    finally:
        lab.switch("propose-toggle", False)
        lab.page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', {theme: 'JupyterLab Light'})")


def serious(lab, *selectors: str) -> list[str]:
    """The serious and critical WCAG 2 A/AA violations axe-core finds in the elements, each with where."""
    return lab.page.evaluate(
        """async selectors => (await axe.run({include: selectors.map(s => [s])}, {runOnly: ['wcag2a', 'wcag2aa']}))
            .violations.filter(v => ['serious', 'critical'].includes(v.impact))
            .map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).slice(0, 3).join(', '))""", list(selectors))
