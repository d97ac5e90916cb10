"""notebook/views.py: cells, notebooks and the human's focus as agents see them: bounded, hidden cells left out."""

from pyodide_webmcp.base import limits
from pyodide_webmcp.base.hashing import source_hash
from pyodide_webmcp.base.text import utf8_len
from pyodide_webmcp.notebook.access import METADATA_KEY
from pyodide_webmcp.notebook.views import cell_snapshot, focus_context, notebook_info
from pyodide_webmcp.port import CellRecord, EditorState


def test_cell_snapshot_bounds_source_and_marks_its_hash_partial():
    source = "s" * (limits.MAX_CELL_SOURCE_BYTES + 10)
    snapshot = cell_snapshot({"id": "c1", "cell_type": "code", "source": source, "outputs": [], "metadata": {}}, 3)
    assert snapshot["sourceTruncated"] is True and snapshot["nextSourceOffset"] == limits.MAX_CELL_SOURCE_BYTES
    assert snapshot["source"] == "s" * limits.MAX_CELL_SOURCE_BYTES  # cut without a mark: pages join exactly
    assert snapshot["sourceHash"] == source_hash(source) + ":part"
    unread = cell_snapshot({"id": "c1", "cell_type": "code", "source": source, "metadata": {}}, 3, include_source=False)
    assert unread["sourceHash"] == source_hash(source)  # nothing shown, nothing to build a write on
    assert snapshot["index"] == 3 and "outputs" not in snapshot and "metadata" not in snapshot


def test_cell_snapshot_options_and_metadata_rule():
    cell = {
        "id": "m",
        "cell_type": "markdown",
        "source": ["a", "b"],
        "metadata": {"tags": ["x"]},
    }
    snapshot = cell_snapshot(cell, 0, include_source=False, include_outputs=True)
    assert "source" not in snapshot and snapshot["sourceHash"] == source_hash("ab")
    assert snapshot["metadata"] == {"tags": ["x"]}
    assert "executionCount" not in snapshot
    big = cell_snapshot({**cell, "metadata": {"k": "v" * 600}}, 0)
    assert "metadata" not in big


def test_notebook_info_counts_and_revision():
    cells = [CellRecord("a", "code", "1"), CellRecord("b", "markdown", "2")]
    info = notebook_info("dir/n.ipynb", True, cells)
    assert info["name"] == "n.ipynb" and info["cellCount"] == 2 and info["dirty"] is True
    changed = notebook_info("dir/n.ipynb", True, [cells[0], CellRecord("b", "markdown", "3")])
    assert changed["revision"] != info["revision"]


def test_focus_context_reports_selection_text():
    cells = [CellRecord("a", "code", "x = 1\ny = 😀 + 2"), CellRecord("b", "code", "")]
    focus = focus_context(cells, 0, [0, 1], EditorState(cursor=(1, 8), selection_start=(1, 4), selection_end=(1, 8)))
    assert focus["activeCellId"] == "a" and focus["selectedCellIds"] == ["a", "b"]
    assert focus["cursor"] == {"line": 1, "column": 7}
    assert focus["textSelection"]["text"] == "😀 +"
    empty = focus_context(cells, 0, [0], EditorState(cursor=(0, 1), selection_start=(0, 1), selection_end=(0, 1)))
    assert empty["textSelection"] is None
    none = focus_context(cells, None, [], None)
    assert none["activeCellId"] is None and none["cursor"] is None


def test_selected_text_is_bounded():
    source = "q" * 10_000
    focus = focus_context([CellRecord("a", "code", source)], 0, [0], EditorState((0, 0), (0, 0), (0, 10_000)))
    assert focus["textSelection"]["truncated"] is True
    assert utf8_len(focus["textSelection"]["text"]) <= limits.MAX_SELECTED_TEXT_BYTES


def test_a_cell_list_derives_revision_and_hidden_ids_like_a_plain_list():
    from pyodide_webmcp.base.hashing import revision
    from pyodide_webmcp.port import CellList

    records = [CellRecord("a", "code", "x = 1"), CellRecord("h", "code", "secret", "none"),
               CellRecord("b", "markdown", "# t", "read")]
    cells = CellList(records)
    expected = revision((r.id, r.type, r.source_hash) for r in records if not r.hidden)
    assert cells.revision == expected == notebook_info("n.ipynb", False, records)["revision"]
    assert notebook_info("n.ipynb", False, cells)["revision"] == expected
    assert cells.hidden_ids == {"h"}
    assert CellList(records[:1]).revision != expected  # a different list, a different token


def test_hidden_cells_do_not_count_in_revision_or_focus():
    visible = [CellRecord("a", "code", "1")]
    with_hidden = [*visible, CellRecord("s", "code", "secret", "none")]
    changed_hidden = [*visible, CellRecord("s", "code", "other secret", "none")]
    assert notebook_info("n", False, with_hidden)["revision"] == notebook_info("n", False, changed_hidden)["revision"]
    assert notebook_info("n", False, with_hidden)["cellCount"] == 2
    focus = focus_context(with_hidden, 1, [0, 1], None)
    assert focus == focus_context(with_hidden, None, [0], None)  # a hidden cell is neither active nor selected
    assert focus["activeCellId"] is None and focus["hiddenActiveCell"] is False
    assert focus["selectedCellIds"] == ["a"] and focus["hiddenSelectedCellCount"] == 0


def test_snapshot_exposes_last_edit_but_not_the_access_key():
    cell = {
        "id": "a",
        "cell_type": "code",
        "source": "",
        "metadata": {"tags": ["t"], METADATA_KEY: {"access": "read", "history": [{"at": "T", "actor": "human", "action": "edited"}]}},
    }
    snapshot = cell_snapshot(cell, 0)
    assert snapshot["metadata"] == {"tags": ["t"]}
    assert snapshot["lastEditedBy"] == "human" and snapshot["lastEditedAt"] == "T"
