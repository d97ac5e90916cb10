"""Provenance: a bounded, coalescing trail of who last changed or ran each cell."""

from typing import Annotated, Any, Iterable, Optional, get_args

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..base import limits
from ..base.clock import iso_now, parse_iso
from ..base.fields import ToolField
from ..base.shapes import Action, Actor
from ..port import NotebookPort
from .access import METADATA_KEY

ACTORS, ACTIONS = get_args(Actor), get_args(Action)


class HistoryEntry(TypedDict):
    at: Annotated[str, Field(description="When (ISO 8601).")]
    actor: Annotated[Actor, Field(description="Who: human or agent.")]
    action: Annotated[Action, Field(description=(
        "What: inserted, edited, ran or deleted (for kernel actions: the action performed)."))]
    tool: NotRequired[ToolField]


def _clean(item: Any) -> Optional[HistoryEntry]:
    if not (
        isinstance(item, dict)
        and isinstance(item.get("at"), str)
        and item.get("actor") in ACTORS
        and item.get("action") in ACTIONS
    ):
        return None
    kept: HistoryEntry = {"at": item["at"][:40], "actor": item["actor"], "action": item["action"]}
    if isinstance(item.get("tool"), str):
        kept["tool"] = item["tool"][:64]
    return kept


def _stored_history(metadata: Any) -> Any:
    entry = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
    return entry.get("history") if isinstance(entry, dict) else None


def history_of(metadata: Any) -> list[HistoryEntry]:
    """The bounded, well-formed history entries stored in a cell's metadata."""
    raw = _stored_history(metadata)
    clean = [entry for entry in map(_clean, raw if isinstance(raw, list) else []) if entry is not None]
    return clean[-limits.MAX_CELL_HISTORY_ENTRIES :]


def add_history(history: Any, actor: Actor, action: Action, at: str, tool: Optional[str] = None) -> list[Any]:
    """The stored history with one entry added; the same actor and action within the coalesce window
    refresh the last entry. Other stored entries are kept as they are, the oldest going past the bound."""
    entry: dict[str, Any] = {"at": at, "actor": actor, "action": action}
    if tool:
        entry["tool"] = tool
    kept = list(history) if isinstance(history, list) else []
    last = _clean(kept[-1]) if kept else None
    if last is not None and last["actor"] == actor and last["action"] == action:
        previous, current = parse_iso(last["at"]), parse_iso(at)
        if previous is not None and current is not None:
            if abs((current - previous).total_seconds()) * 1000 <= limits.HISTORY_COALESCE_WINDOW_MS:
                kept.pop()
    return [*kept, entry][-limits.MAX_CELL_HISTORY_ENTRIES :]


def record_history(notebook: NotebookPort, cell_id: str, actor: Actor, action: Action, tool: Optional[str] = None) -> None:
    """Add to the cell's provenance trail. A cell that is gone is left alone, and so is a damaged entry (it hides the
    cell; rewriting it would reveal the cell)."""
    entry = notebook.cell_entry(cell_id)
    if entry is None or not isinstance(entry, dict):
        return
    notebook.set_cell_entry(cell_id, {**entry, "history": add_history(entry.get("history"), actor, action, iso_now(), tool)})


class LastEdit(TypedDict, total=False):
    lastEditedBy: Actor
    lastEditedAt: str


def last_edit(metadata: Any) -> LastEdit:
    """lastEditedBy / lastEditedAt from the most recent entry, or nothing."""
    history = history_of(metadata)
    if not history:
        return {}
    return {"lastEditedBy": history[-1]["actor"], "lastEditedAt": history[-1]["at"]}


def add_last_edit(cell: LastEdit, metadata: Any) -> None:
    """Give a cell's shape (any with the last edit's fields) lastEditedBy / lastEditedAt, when it has a history."""
    cell.update(last_edit(metadata))


def human_changes(baseline: dict[str, str], cells: Iterable[tuple[str, str]]) -> list[tuple[str, Action]]:
    """(id, inserted|edited) for each (id, sourceHash) that differs from the last attributed state."""
    changes: list[tuple[str, Action]] = []
    for cell_id, digest in cells:
        known = baseline.get(cell_id)
        if known is None:
            changes.append((cell_id, "inserted"))
        elif known != digest:
            changes.append((cell_id, "edited"))
    return changes
