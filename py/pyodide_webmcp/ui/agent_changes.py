"""The journal of the agent's changes to each notebook, kept for the page's life to show and take back. Pure.

The adapter records every write an agent call makes (an edit, an insert, a delete, a move, cleared outputs)
with what is needed to take it back; a run cannot be taken back and is not kept. What is kept is bounded
(MAX_KEPT_CHANGES and MAX_KEPT_CHANGE_BYTES, the oldest dropped first); each notebook's checkpoint marks where its
list of changes starts: when the human opened it, saved it, or started one.
"""

import itertools
import json
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from ..base.text import utf8_len

MAX_KEPT_CHANGES = 500
"""The agent's changes kept to show and take back, in all notebooks together; the oldest go first."""
MAX_KEPT_CHANGE_BYTES = 4 * 1024 * 1024
"""What they may hold (sources before and after, deleted cells with their outputs), counted as UTF-8."""

ChangeKind = Literal["edited", "inserted", "deleted", "moved", "cleared"]
CheckpointReason = Literal["opened", "saved", "started"]


@dataclass(frozen=True)
class AgentChange:
    """One change of one cell by an agent call. `index` is where it happened: the cell's place after an insert,
    before a delete or a move; `neighbours` are the ids of the cells before and after it then."""

    number: int
    at: str
    tool: str
    kind: ChangeKind
    cell_id: str
    index: int
    before: Optional[str] = None  # the source before an edit
    after: Optional[str] = None  # the source after an edit or an insert
    before_type: Optional[str] = None
    after_type: Optional[str] = None
    cell: Optional[dict[str, Any]] = None  # a deleted cell's nbformat JSON; a clearing's outputs as {"outputs": [...]}
    neighbours: tuple[Optional[str], Optional[str]] = (None, None)
    to_index: Optional[int] = None  # where a moved cell went

    @property
    def size(self) -> int:
        """What keeping it costs, in bytes of UTF-8."""
        kept = [self.before or "", self.after or "", json.dumps(self.cell) if self.cell is not None else ""]
        return sum(utf8_len(text) for text in kept) + 200


@dataclass
class Checkpoint:
    at: str
    reason: CheckpointReason
    after: int  # changes numbered above this one are since the checkpoint


@dataclass
class NotebookChanges:
    path: str
    checkpoint: Checkpoint
    changes: list[AgentChange] = field(default_factory=list)
    dropped: int = 0  # changes since the checkpoint no longer kept (the bound)
    reverted: set[int] = field(default_factory=set)  # the numbers of the changes the human took back


class ChangeJournal:
    """Every notebook's agent changes, by the notebook's key (its panel: a rename keeps the journal)."""

    def __init__(self, max_changes: int = MAX_KEPT_CHANGES, max_bytes: int = MAX_KEPT_CHANGE_BYTES):
        self._max_changes = max_changes
        self._max_bytes = max_bytes
        self._numbers = itertools.count(1)
        self._notebooks: "OrderedDict[str, NotebookChanges]" = OrderedDict()
        self._bytes = 0
        self._listeners: list[Any] = []

    def on_change(self, listener: Any) -> None:
        self._listeners.append(listener)

    def _changed(self, key: str) -> None:
        for listener in list(self._listeners):
            listener(key)

    def notebook(self, key: str) -> Optional[NotebookChanges]:
        return self._notebooks.get(key)

    def opened(self, key: str, path: str, at: str) -> None:
        """A notebook the human opened: its checkpoint starts here."""
        if key not in self._notebooks:
            self._notebooks[key] = NotebookChanges(path, Checkpoint(at, "opened", self._last()))

    def checkpoint(self, key: str, path: str, at: str, reason: CheckpointReason) -> None:
        """Changes before now are no longer listed (a cell's own last change still shows on the cell)."""
        entry = self._notebooks.get(key)
        if entry is None:
            self._notebooks[key] = NotebookChanges(path, Checkpoint(at, reason, self._last()))
        else:
            entry.path, entry.checkpoint, entry.dropped = path, Checkpoint(at, reason, self._last()), 0
        self._changed(key)

    def _last(self) -> int:
        return max((c.number for entry in self._notebooks.values() for c in entry.changes), default=0)

    def new_number(self) -> int:
        return next(self._numbers)

    def record(self, key: str, path: str, change: AgentChange) -> None:
        entry = self._notebooks.get(key)
        if entry is None:
            entry = self._notebooks[key] = NotebookChanges(path, Checkpoint(change.at, "opened", change.number - 1))
        entry.path = path
        entry.changes.append(change)
        self._bytes += change.size
        self._trim()
        self._changed(key)

    def _trim(self) -> None:
        """Drop the oldest changes of all notebooks past either bound."""
        while self._count() > self._max_changes or self._bytes > self._max_bytes:
            oldest = min((e for e in self._notebooks.values() if e.changes), key=lambda e: e.changes[0].number)
            gone = oldest.changes.pop(0)
            oldest.reverted.discard(gone.number)
            self._bytes -= gone.size
            if gone.number > oldest.checkpoint.after:
                oldest.dropped += 1

    def _count(self) -> int:
        return sum(len(entry.changes) for entry in self._notebooks.values())

    def since_checkpoint(self, key: str) -> list[AgentChange]:
        entry = self._notebooks.get(key)
        if entry is None:
            return []
        return [c for c in entry.changes if c.number > entry.checkpoint.after]

    def last_change(self, key: str, cell_id: str) -> Optional[AgentChange]:
        """The agent's latest change to the cell that is kept and not taken back."""
        entry = self._notebooks.get(key)
        if entry is None:
            return None
        return next((c for c in reversed(entry.changes) if c.cell_id == cell_id and c.number not in entry.reverted), None)

    def reverted(self, key: str, change: AgentChange) -> None:
        entry = self._notebooks.get(key)
        if entry is not None:
            entry.reverted.add(change.number)
            self._changed(key)

    def forget(self, key: str) -> None:
        entry = self._notebooks.pop(key, None)
        if entry is not None:
            self._bytes -= sum(change.size for change in entry.changes)

    @property
    def kept_bytes(self) -> int:
        return self._bytes
