"""notebook/provenance.py: each cell's history of who edited or ran it."""

from pyodide_webmcp.base import limits
from pyodide_webmcp.notebook.access import METADATA_KEY
from pyodide_webmcp.notebook.provenance import (
    add_history,
    history_of,
    human_changes,
    last_edit,
)


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
