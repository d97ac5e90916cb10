import pytest
from pyodide_webmcp import limits
from pyodide_webmcp.access import (
    METADATA_KEY,
    cell_access,
    guard_cell,
    guard_notebook,
    next_access,
    notebook_access,
    with_cell_access,
    with_notebook_access,
)
from pyodide_webmcp.errors import ErrorCode, ToolError
from pyodide_webmcp.provenance import add_history, history_of, human_changes, last_edit
from pyodide_webmcp.views import CellRecord, cell_snapshot, focus_context, notebook_info


@pytest.mark.parametrize(
    ("metadata", "access"),
    [
        ({}, "write"),
        (None, "write"),
        ({METADATA_KEY: {}}, "write"),
        ({METADATA_KEY: {"access": "read"}}, "read"),
        ({METADATA_KEY: {"access": "none"}}, "none"),
        ({METADATA_KEY: {"access": "READ"}}, "none"),
        ({METADATA_KEY: {"access": 3}}, "none"),
        ({METADATA_KEY: {"access": None}}, "none"),
        ({METADATA_KEY: "garbage"}, "none"),
        ({METADATA_KEY: None}, "none"),
        ({METADATA_KEY: ["read"]}, "none"),
    ],
)
def test_cell_access_reads_absent_as_write_and_anything_unreadable_as_hidden(metadata, access):
    assert cell_access(metadata) == access


@pytest.mark.parametrize(
    ("entry", "access"),
    [
        ({}, "write"),
        ({"notebookAccess": "read"}, "read"),
        ({"notebookAccess": "none"}, "none"),
        ({"access": "read"}, "read"),  # written by earlier versions of this bridge
        ({"notebookAccess": "write", "access": "none"}, "none"),
        ({"notebookAccess": "none", "access": "write"}, "none"),
        ({"notebookAccess": "read", "access": "write"}, "read"),
        ({"notebookAccess": "Write"}, "none"),
        ({"notebookAccess": {"level": "write"}}, "none"),
        ({"history": [], "unknown": 1}, "write"),
    ],
)
def test_notebook_access_reads_the_seed_field_and_ours_and_the_stricter_wins(entry, access):
    assert notebook_access({METADATA_KEY: entry}) == access
    assert notebook_access({}) == "write" and notebook_access({METADATA_KEY: 7}) == "none"


def test_cycle_and_setting_keep_what_else_is_stored():
    assert [next_access(a) for a in ("write", "read", "none")] == ["read", "none", "write"]
    entry = with_cell_access({METADATA_KEY: {"history": [1], "future": {"x": 1}}}, "read")
    assert entry == {"history": [1], "future": {"x": 1}, "access": "read"}
    assert with_cell_access({METADATA_KEY: "junk"}, "none") == {"access": "none"}
    notebook = with_notebook_access({METADATA_KEY: {"access": "none", "future": 2}}, "write")
    assert notebook == {"future": 2, "notebookAccess": "write"}
    assert notebook_access({METADATA_KEY: notebook}) == "write"


def test_guards():
    guard_cell("write", "write", "a", "n.ipynb")
    guard_cell("read", "read", "a", "n.ipynb")
    with pytest.raises(ToolError) as denied:
        guard_cell("read", "write", "a", "n.ipynb")
    assert denied.value.code is ErrorCode.CELL_ACCESS_DENIED and denied.value.details == {"cellId": "a", "access": "read"}
    with pytest.raises(ToolError) as hidden:
        guard_cell("none", "read", "a", "n.ipynb")
    assert hidden.value.code is ErrorCode.CELL_NOT_FOUND and hidden.value.details == {"cellId": "a", "notebookPath": "n.ipynb"}
    with pytest.raises(ToolError) as notebook:
        guard_notebook("read", "write", "n.ipynb")
    assert notebook.value.code is ErrorCode.NOTEBOOK_ACCESS_DENIED
    guard_notebook("read", "read", "n.ipynb")


def test_history_coalesces_and_is_bounded():
    history = []
    history = add_history(history, "agent", "edited", "2026-01-01T00:00:00.000Z", "jupyter_update_cell")
    history = add_history(history, "agent", "edited", "2026-01-01T00:00:30.000Z", "jupyter_update_cell")
    assert len(history) == 1 and history[0]["at"].endswith("00:30.000Z")
    history = add_history(history, "agent", "edited", "2026-01-01T00:02:00.000Z")
    history = add_history(history, "human", "edited", "2026-01-01T00:02:01.000Z")
    assert [entry["actor"] for entry in history] == ["agent", "agent", "human"]
    for minute in range(40):
        history = add_history(history, "agent" if minute % 2 else "human", "ran", f"2026-01-02T00:{minute:02d}:00.000Z")
    assert len(history) == limits.MAX_CELL_HISTORY_ENTRIES


def test_hostile_history_is_normalized():
    metadata = {METADATA_KEY: {"history": [{"at": "x" * 500, "actor": "agent", "action": "ran", "tool": 5}, "junk", {"actor": "root"}]}}
    assert history_of(metadata) == [{"at": "x" * 40, "actor": "agent", "action": "ran"}]
    assert last_edit(metadata) == {"lastEditedBy": "agent", "lastEditedAt": "x" * 40}
    assert last_edit({}) == {}


def test_human_changes():
    assert human_changes({"a": "h1", "b": "h2"}, [("a", "h1"), ("b", "h9"), ("c", "h3")]) == [
        ("b", "edited"), ("c", "inserted")
    ]


def test_hidden_cells_do_not_count_in_revision_or_focus():
    visible = [CellRecord("a", "code", "1")]
    with_hidden = [*visible, CellRecord("s", "code", "secret", "none")]
    changed_hidden = [*visible, CellRecord("s", "code", "other secret", "none")]
    assert notebook_info("n", False, with_hidden)["revision"] == notebook_info("n", False, changed_hidden)["revision"]
    assert notebook_info("n", False, with_hidden)["cellCount"] == 2
    focus = focus_context(with_hidden, 1, [0, 1], None)
    assert focus["activeCellId"] is None and focus["hiddenActiveCell"] is True
    assert focus["selectedCellIds"] == ["a"] and focus["hiddenSelectedCellCount"] == 1


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
