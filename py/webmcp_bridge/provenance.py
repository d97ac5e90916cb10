"""Provenance: a bounded, coalescing trail of who last changed or ran each cell."""

from datetime import datetime, timezone
from typing import Any, Iterable, Literal, Optional

from . import limits
from .access import METADATA_KEY

Actor = Literal["human", "agent"]
Action = Literal["inserted", "edited", "ran", "deleted"]


def history_of(metadata: Any) -> list[dict[str, Any]]:
    """The bounded, well-formed history entries stored in a cell's metadata."""
    entry = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
    raw = entry.get("history") if isinstance(entry, dict) else None
    if not isinstance(raw, list):
        return []
    clean = []
    for item in raw:
        if (
            isinstance(item, dict)
            and isinstance(item.get("at"), str)
            and item.get("actor") in ("human", "agent")
            and item.get("action") in ("inserted", "edited", "ran", "deleted")
        ):
            kept = {"at": item["at"][:40], "actor": item["actor"], "action": item["action"]}
            if isinstance(item.get("tool"), str):
                kept["tool"] = item["tool"][:64]
            clean.append(kept)
    return clean[-limits.MAX_CELL_HISTORY_ENTRIES :]


def _parse(stamp: str) -> Optional[datetime]:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None


def iso_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def add_history(
    history: list[dict[str, Any]], actor: Actor, action: Action, at: str, tool: Optional[str] = None
) -> list[dict[str, Any]]:
    """Append an entry; the same actor and action within the coalesce window refresh the last one."""
    entry: dict[str, Any] = {"at": at, "actor": actor, "action": action}
    if tool:
        entry["tool"] = tool
    if history:
        last = history[-1]
        previous, current = _parse(last["at"]), _parse(at)
        if (
            last["actor"] == actor
            and last["action"] == action
            and previous is not None
            and current is not None
            and (current - previous).total_seconds() * 1000 <= limits.HISTORY_COALESCE_WINDOW_MS
        ):
            return [*history[:-1], entry]
    return [*history, entry][-limits.MAX_CELL_HISTORY_ENTRIES :]


def last_edit(metadata: Any) -> dict[str, str]:
    """lastEditedBy / lastEditedAt from the most recent entry, or nothing."""
    history = history_of(metadata)
    if not history:
        return {}
    return {"lastEditedBy": history[-1]["actor"], "lastEditedAt": history[-1]["at"]}


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
