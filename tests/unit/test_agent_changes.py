"""ui/agent_changes.py: the journal of the agent's changes, bounded, with each notebook's checkpoint."""

from pyodide_webmcp.ui.agent_changes import AgentChange, ChangeJournal


def change(journal, cell_id="c", size=0, kind="edited"):
    return AgentChange(journal.new_number(), "2026-12-04T10:00:00.000Z", "jupyter_update_cell", kind, cell_id, 0,
                       before="", after="x" * size)


def test_a_checkpoint_starts_the_list_and_the_cells_own_last_change_stays():
    journal, heard = ChangeJournal(), []
    journal.on_change(heard.append)
    journal.opened("nb", "a.ipynb", "t0")
    first = change(journal, "c1")
    journal.record("nb", "a.ipynb", first)
    assert journal.since_checkpoint("nb") == [first]
    journal.checkpoint("nb", "a.ipynb", "t1", "saved")
    assert journal.since_checkpoint("nb") == [] and journal.last_change("nb", "c1") == first
    second = change(journal, "c1")
    journal.record("nb", "a.ipynb", second)
    assert journal.since_checkpoint("nb") == [second] and journal.notebook("nb").checkpoint.reason == "saved"
    journal.reverted("nb", second)
    assert journal.last_change("nb", "c1") == first  # the one taken back no longer shows on the cell
    assert heard == ["nb"] * 4


def test_what_is_kept_is_bounded_the_oldest_going_first_and_counted():
    journal = ChangeJournal(max_changes=3, max_bytes=10_000)
    journal.opened("nb", "a.ipynb", "t0")
    kept = [change(journal, f"c{i}") for i in range(5)]
    for item in kept:
        journal.record("nb", "a.ipynb", item)
    assert journal.since_checkpoint("nb") == kept[2:] and journal.notebook("nb").dropped == 2
    big = change(journal, "big", size=20_000)
    journal.record("nb", "a.ipynb", big)
    assert journal.since_checkpoint("nb") == [] and journal.kept_bytes == 0  # alone over the bound: not kept


def test_the_oldest_goes_first_across_notebooks_and_a_closed_notebook_is_forgotten():
    journal = ChangeJournal(max_changes=2)
    a, b, c = change(journal, "a"), change(journal, "b"), change(journal, "c")
    journal.record("one", "1.ipynb", a)
    journal.record("two", "2.ipynb", b)
    journal.record("two", "2.ipynb", c)
    assert journal.since_checkpoint("one") == [] and journal.since_checkpoint("two") == [b, c]
    journal.forget("two")
    assert journal.notebook("two") is None and journal.kept_bytes == 0
