"""ui/reverts.py: the agent's changes taken back, each only while the cell is as the agent left it; never a human
edit lost."""

import copy

from pyodide_webmcp.notebook.provenance import history_of
from pyodide_webmcp.ui.reverts import (
    BACK_ALREADY,
    EDITED_SINCE,
    GONE,
    MOVED_SINCE,
    NEW_OUTPUTS,
    revert,
    revert_all,
)

from tests.unit.human_lab import notebook


def state(book):
    return [(c["id"], c["cell_type"], c["source"], c.get("outputs")) for c in book.data]


def test_revert_all_leaves_the_notebook_as_at_the_checkpoint():
    book = notebook("a = 1", "b = 2", "c = 3", "d = 4")
    checkpoint = copy.deepcopy(state(book))
    changes = [book.agent_edit("c1", "b = 20"), book.agent_insert(2, "new = 1"), book.agent_delete("c0"),
               book.agent_move("c3", 0), book.agent_clear("c2"), book.agent_edit("c1", "b = 200")]
    assert state(book) != checkpoint
    outcomes = revert_all(changes, book)
    assert [why for _, why in outcomes] == [None] * len(changes)
    assert state(book) == checkpoint
    assert history_of(book.data[0]["metadata"])[-1]["actor"] == "human"  # the restored cell: the human's doing


def test_a_human_edit_since_is_never_overwritten():
    book = notebook("a = 1", "b = 2")
    edit = book.agent_edit("c1", "b = 20")
    book.set_source(1, "b = 'mine'")
    assert revert(edit, book) == EDITED_SINCE
    assert book.data[1]["source"] == "b = 'mine'"
    inserted = book.agent_insert(0, "x = 1")
    book.set_source(0, "x = 'mine'")
    assert revert(inserted, book) == EDITED_SINCE and book.data[0]["source"] == "x = 'mine'"


def test_each_refusal_says_why_and_changes_nothing():
    book = notebook("a = 1", "b = 2", "c = 3")
    deleted = book.agent_delete("c0")
    book.insert_cell_json(0, {"id": "c0", "cell_type": "code", "source": "typed back", "outputs": []})
    assert revert(deleted, book) == BACK_ALREADY
    moved = book.agent_move("c2", 0)
    book.move_cell(0, 2)
    assert revert(moved, book) == MOVED_SINCE
    cleared = book.agent_clear("c1")
    book.set_outputs(book.index("c1"), [{"output_type": "stream", "name": "stdout", "text": "again\n"}])
    assert revert(cleared, book) == NEW_OUTPUTS
    edit = book.agent_edit("c1", "b = 3")
    book.delete_cell(book.index("c1"))
    before = copy.deepcopy(state(book))
    assert revert(edit, book) == GONE and state(book) == before


def test_a_deleted_cell_comes_back_beside_its_old_neighbours():
    book = notebook("a", "b", "c", "d")
    deleted = book.agent_delete("c2")
    book.move_cell(book.index("c3"), 0)  # the human reorders meanwhile: d a b
    assert revert(deleted, book) is None
    assert [c["id"] for c in book.data] == ["c3", "c0", "c1", "c2"]
    assert book.data[3]["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "out 2\n"}]


def test_revert_all_goes_on_past_a_change_it_must_leave():
    book = notebook("a = 1", "b = 2")
    first, second = book.agent_edit("c0", "a = 10"), book.agent_edit("c1", "b = 20")
    book.set_source(0, "a = 'mine'")
    outcomes = dict((change.number, why) for change, why in revert_all([first, second], book))
    assert outcomes == {first.number: EDITED_SINCE, second.number: None}
    assert [c["source"] for c in book.data] == ["a = 'mine'", "b = 2"]
