"""Taking back the agent's changes, each guarded so that no human edit is ever lost. Pure.

A change is taken back only while the cell is as the agent left it (the same source, type and place); a
deleted cell comes back at its place with its id, source, outputs and metadata. Taking back everything since a
checkpoint goes newest first, each change guarded on its own against the notebook as the one before left it (no
transaction: a notebook's cells are read afresh only between changes of its document).
Every change made here is the human's, and recorded so in the cell's provenance trail.
"""

from typing import Any, Optional, Protocol, Sequence

from ..base.shapes import Action, is_cell_type
from ..notebook.provenance import record_history
from ..port import CellList, NotebookPort
from .agent_changes import AgentChange

EDITED_SINCE = "You changed this cell since; your version is kept."
GONE = "The cell is no longer in the notebook."
BACK_ALREADY = "A cell with this id is in the notebook again."
MOVED_SINCE = "The cell was moved since; it stays where it is."
NEW_OUTPUTS = "The cell has new outputs since; they are kept."


class RevertTarget(NotebookPort, Protocol):
    """A live notebook, with the two writes only taking back needs."""

    def insert_cell_json(self, index: int, cell: dict[str, Any]) -> None:
        """Insert an nbformat cell as it was, its id, outputs and metadata included."""

    def set_outputs(self, index: int, outputs: list[dict[str, Any]]) -> None: ...


def _index(records: CellList, cell_id: str) -> Optional[int]:
    return next((i for i, record in enumerate(records) if record.id == cell_id), None)


def why_not(change: AgentChange, notebook: RevertTarget) -> Optional[str]:
    """Why the change cannot be taken back now, or None when it can."""
    records = notebook.cells()
    index = _index(records, change.cell_id)
    if change.kind == "deleted":
        return BACK_ALREADY if index is not None else None
    if index is None:
        return GONE
    record = records[index]
    if change.kind in ("edited", "inserted"):
        if record.source != change.after or (change.after_type is not None and record.type != change.after_type):
            return EDITED_SINCE
    elif change.kind == "moved":
        if index != change.to_index:
            return MOVED_SINCE
    elif change.kind == "cleared" and notebook.cell_outputs(index):
        return NEW_OUTPUTS
    return None


def _place_of(records: CellList, change: AgentChange) -> int:
    """Where a cell goes back: after its neighbour before, else before its neighbour after, else at its index."""
    before, after = change.neighbours
    left = _index(records, before) if before is not None else None
    if left is not None:
        return left + 1
    right = _index(records, after) if after is not None else None
    return right if right is not None else min(change.index, len(records))


def _apply(change: AgentChange, notebook: RevertTarget) -> tuple[str, Optional[Action]]:
    """Take the change back (already checked); the cell it leaves, and what the human did to it."""
    records = notebook.cells()
    index = _index(records, change.cell_id)
    if change.kind == "deleted":
        assert change.cell is not None
        notebook.insert_cell_json(_place_of(records, change), change.cell)
        return change.cell_id, "inserted"
    assert index is not None
    if change.kind == "inserted":
        notebook.delete_cell(index)
        return change.cell_id, None
    if change.kind == "edited":
        if is_cell_type(change.before_type) and change.before_type != records[index].type:
            notebook.set_cell_type(index, change.before_type)
        notebook.set_source(index, change.before or "")
    elif change.kind == "moved":
        rest = CellList(record for record in records if record.id != change.cell_id)
        notebook.move_cell(index, _place_of(rest, change))
    elif change.kind == "cleared":
        notebook.set_outputs(index, list((change.cell or {}).get("outputs") or []))
    return change.cell_id, "edited"


def revert(change: AgentChange, notebook: RevertTarget) -> Optional[str]:
    """Take one change back, as the human: None when done, else why not (nothing changed)."""
    return revert_all([change], notebook)[0][1]


def revert_all(changes: Sequence[AgentChange], notebook: RevertTarget) -> list[tuple[AgentChange, Optional[str]]]:
    """Take changes back newest first; each (change, why not or None)."""
    outcomes: list[tuple[AgentChange, Optional[str]]] = []
    for change in sorted(changes, key=lambda c: c.number, reverse=True):
        why = why_not(change, notebook)
        if why is None:
            cell_id, action = _apply(change, notebook)
            if action is not None:
                record_history(notebook, cell_id, "human", action)
        outcomes.append((change, why))
    return outcomes
