"""Review threads as a notebook stores them, and the store that reads and changes them. Pure.

The adapter reads and writes the metadata entry; the tools and the Comments tab share everything here. The
stored format is the reference extension's (`sourceRange`, `selectedTextHash`, `outputFingerprint`); threads
this bridge wrote before (`range`, `fingerprint`) are read too. Writing never drops, rewrites or reorders what
it does not change: every other thread, field and key stays exactly as stored, readable or not.
"""

import uuid
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Optional, get_args

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.fields import (
    BodyField,
    CellIdField,
    CreatedAtField,
    IdField,
    MimeTypeField,
    OutputIndexField,
    SelectedTextField,
    UpdatedAtField,
)
from ..base.shapes import Actor, Position
from ..base.text import clamp_chars, clamp_utf8

REVIEW_KEY = "jupyterlite_webmcp_review"
REVIEW_VERSION = 1
ThreadStatus = Literal["open", "resolved"]
THREAD_STATUSES: tuple[ThreadStatus, ...] = get_args(ThreadStatus)
AnchorKind = Literal["cell", "source-range", "output"]
ANCHOR_KINDS: tuple[AnchorKind, ...] = get_args(AnchorKind)


class Author(TypedDict):
    kind: Annotated[Actor, Field(description="What kind of thing this is.")]
    name: Annotated[Optional[str], Field(description="The author's name (null for the human).")]


AGENT_AUTHOR: Author = {"kind": "agent", "name": "Browser agent"}
HUMAN_AUTHOR: Author = {"kind": "human", "name": None}


class Message(TypedDict):
    id: IdField
    author: Annotated[Author, Field(description="Who wrote it: kind human or agent, and a name.")]
    createdAt: CreatedAtField
    body: BodyField


class Range(TypedDict):
    start: Annotated[Position, Field(description=(
        "Start position (zero-based line and column in characters, unless said otherwise)."))]
    end: Annotated[Position, Field(description="End position (exclusive).")]


class Anchor(TypedDict):
    """What a thread is attached to, as stored (the reference extension's field names; sourceRange in UTF-16 code units)."""

    kind: Annotated[AnchorKind, Field(description="What kind of thing this is.")]
    cellId: CellIdField
    sourceRange: NotRequired[Annotated[Range, Field(description=(
        "The stored range, columns in UTF-16 code units as the reference extension (jupyterlite-webmcp) "
        "stores them."))]]
    selectedText: NotRequired[SelectedTextField]
    selectedTextHash: NotRequired[Annotated[str, Field(description=(
        "Hash of selectedText (the reference extension's stableHash)."))]]
    prefix: NotRequired[Annotated[str, Field(description="Up to 80 characters before the text, for re-anchoring.")]]
    suffix: NotRequired[Annotated[str, Field(description="Up to 80 characters after the text, for re-anchoring.")]]
    outputIndex: NotRequired[OutputIndexField]
    outputFingerprint: NotRequired[Annotated[str, Field(description=(
        "Hash of the output as it was; a different output has a different hash."))]]
    mimeType: NotRequired[MimeTypeField]


class Thread(TypedDict):
    id: IdField
    status: Annotated[ThreadStatus, Field(description="open or resolved.")]
    createdAt: CreatedAtField
    updatedAt: UpdatedAtField
    anchor: Anchor
    messages: Annotated[list[Message], Field(description=(
        "Messages, oldest first: the first one and the most recent that fit."))]


def new_id() -> str:
    return str(uuid.uuid4())


# Reading what is stored ------------------------------------------------------------------------


def _string(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _position(value: Any) -> Optional[Position]:
    if not isinstance(value, dict):
        return None
    line, column = value.get("line"), value.get("column")
    if isinstance(line, int) and isinstance(column, int) and not isinstance(line, bool) and not isinstance(column, bool):
        return {"line": line, "column": column}
    return None


def _range(value: Any) -> Optional[Range]:
    if not isinstance(value, dict):
        return None
    start, end = _position(value.get("start")), _position(value.get("end"))
    return {"start": start, "end": end} if start is not None and end is not None else None


@dataclass(frozen=True)
class StoredAnchor:
    """An anchor as read from either stored format."""

    kind: AnchorKind
    cell_id: str
    selected_text: Optional[str] = None
    range: Optional[Range] = None
    range_in_utf16: bool = True  # the reference extension stores UTF-16 columns; this bridge once stored characters
    text_hash: Optional[str] = None
    prefix: str = ""
    suffix: str = ""
    output_index: int = 0
    fingerprint: Optional[str] = None
    legacy_fingerprint: bool = False
    mime_type: Optional[str] = None

    @classmethod
    def read(cls, raw: Any) -> Optional["StoredAnchor"]:
        if not isinstance(raw, dict) or not isinstance(raw.get("cellId"), str) or not raw["cellId"]:
            return None
        stored_kind = raw.get("kind")
        kind: AnchorKind = stored_kind if stored_kind in ANCHOR_KINDS else "cell"
        seed_range, legacy_range = _range(raw.get("sourceRange")), _range(raw.get("range"))
        index = raw.get("outputIndex")
        seed_fingerprint, legacy_fingerprint = _string(raw.get("outputFingerprint")), _string(raw.get("fingerprint"))
        return cls(
            kind=kind,
            cell_id=raw["cellId"],
            selected_text=_string(raw.get("selectedText")),
            range=seed_range or legacy_range,
            range_in_utf16=seed_range is not None or legacy_range is None,
            text_hash=_string(raw.get("selectedTextHash")),
            prefix=_string(raw.get("prefix")) or "",
            suffix=_string(raw.get("suffix")) or "",
            output_index=index if isinstance(index, int) and not isinstance(index, bool) and index >= 0 else 0,
            fingerprint=seed_fingerprint or legacy_fingerprint,
            legacy_fingerprint=seed_fingerprint is None and legacy_fingerprint is not None,
            mime_type=_string(raw.get("mimeType")),
        )

    def public(self) -> Anchor:
        anchor: Anchor = {"kind": self.kind, "cellId": self.cell_id}
        if self.kind == "source-range":
            if self.range is not None:
                anchor["sourceRange"] = self.range
            if self.selected_text is not None:
                anchor["selectedText"] = clamp_utf8(self.selected_text, limits.MAX_SELECTED_TEXT_BYTES)[0]
            if self.text_hash is not None:
                anchor["selectedTextHash"] = self.text_hash
            anchor["prefix"] = clamp_chars(self.prefix, limits.MAX_ANCHOR_CONTEXT_CHARS, "")[0]
            anchor["suffix"] = clamp_chars(self.suffix, limits.MAX_ANCHOR_CONTEXT_CHARS, "")[0]
        elif self.kind == "output":
            anchor["outputIndex"] = self.output_index
            if self.fingerprint is not None:
                anchor["outputFingerprint"] = self.fingerprint
            if self.mime_type is not None:
                anchor["mimeType"] = self.mime_type
        return anchor


def _message(raw: Any) -> Optional[Message]:
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not raw["id"]:
        return None
    author = raw.get("author")
    if not isinstance(author, dict):
        author = {}
    name = _string(author.get("name"))
    return {
        "id": raw["id"],
        "author": {
            "kind": "agent" if author.get("kind") == "agent" else "human",
            "name": clamp_chars(name, limits.MAX_AUTHOR_NAME_CHARS)[0] if name is not None else None,
        },
        "createdAt": _string(raw.get("createdAt")) or "",
        "body": clamp_utf8(_string(raw.get("body")) or "", limits.MAX_COMMENT_BODY_BYTES)[0],
    }


@dataclass(frozen=True)
class StoredThread:
    """A readable thread: what it says, and where it sits in the stored list."""

    index: int
    raw: dict[str, Any]
    id: str
    status: ThreadStatus
    created_at: str
    updated_at: str
    anchor: StoredAnchor
    messages: tuple[Message, ...] = field(default=())

    @classmethod
    def read(cls, index: int, raw: Any) -> Optional["StoredThread"]:
        """The thread, or None when it cannot be read (the reference extension's own rules of what is readable)."""
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), str) or not raw["id"]:
            return None
        anchor = StoredAnchor.read(raw.get("anchor"))
        if anchor is None or not isinstance(raw.get("messages"), list):
            return None
        created = _string(raw.get("createdAt")) or ""
        return cls(
            index=index,
            raw=raw,
            id=raw["id"],
            status="resolved" if raw.get("status") == "resolved" else "open",
            created_at=created,
            updated_at=_string(raw.get("updatedAt")) or created,
            anchor=anchor,
            messages=tuple(m for m in (_message(item) for item in raw["messages"]) if m is not None),
        )

    @property
    def cell_id(self) -> str:
        return self.anchor.cell_id

    def public(self) -> Thread:
        return {
            "id": self.id,
            "status": self.status,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "anchor": self.anchor.public(),
            "messages": list(self.messages),
        }


ChangedThread = tuple[dict[str, Any], StoredThread]
"""What a change to a thread gives: the notebook's new stored review entry, and the thread as changed."""


def _anchor_cell(raw: Any) -> Optional[str]:
    anchor = raw.get("anchor") if isinstance(raw, dict) else None
    cell_id = anchor.get("cellId") if isinstance(anchor, dict) else None
    return cell_id if isinstance(cell_id, str) and cell_id else None


def review_data_unreadable() -> ToolError:
    return ToolError(
        ErrorCode.REVIEW_DATA_UNREADABLE,
        "The notebook's review data is not in a format this bridge can extend; nothing was changed, so "
        "nothing in it is lost. Its owner can repair or remove the jupyterlite_webmcp_review metadata.",
    )


class ReviewStore:
    """One notebook's stored review entry. Reading never raises; each change returns the new entry."""

    def __init__(self, stored: Any):
        self._stored = stored
        raw_threads = stored.get("threads") if isinstance(stored, dict) else None
        self.damaged = stored is not None and not isinstance(raw_threads, list)
        self.threads: list[StoredThread] = []
        self._unreadable: list[Optional[str]] = []
        for index, raw in enumerate(raw_threads if isinstance(raw_threads, list) else []):
            thread = StoredThread.read(index, raw)
            if thread is None:
                self._unreadable.append(_anchor_cell(raw))
            else:
                self.threads.append(thread)

    def visible(self, hidden_cells: frozenset[str] = frozenset()) -> list[StoredThread]:
        """Threads the agent may know of: those on cells the owner hid do not exist for it."""
        return [thread for thread in self.threads if thread.cell_id not in hidden_cells]

    def unreadable_count(self, hidden_cells: frozenset[str] = frozenset()) -> int:
        """Threads kept as stored but not readable, counted only where their cell is known and not hidden."""
        return sum(cell_id is not None and cell_id not in hidden_cells for cell_id in self._unreadable)

    def find(self, thread_id: str, hidden_cells: frozenset[str] = frozenset()) -> Optional[StoredThread]:
        return next((t for t in self.visible(hidden_cells) if t.id == thread_id), None)

    def _entry_with(self, raw: dict[str, Any], index: Optional[int]) -> dict[str, Any]:
        """The stored entry with one thread replaced (or appended), everything else as it was."""
        if self.damaged:
            raise review_data_unreadable()
        entry: dict[str, Any] = dict(self._stored) if isinstance(self._stored, dict) else {"version": REVIEW_VERSION}
        threads = list(entry.get("threads") or [])
        if index is None:
            threads.append(raw)
        else:
            threads[index] = raw
        entry["threads"] = threads
        return entry

    def _changed(self, thread: StoredThread, raw: dict[str, Any]) -> ChangedThread:
        entry = self._entry_with(raw, thread.index)
        return entry, _written(thread.index, raw)

    def create(self, anchor: dict[str, Any], body: str, author: Author, now: str) -> ChangedThread:
        raw: dict[str, Any] = {
            "id": new_id(),
            "status": "open",
            "createdAt": now,
            "updatedAt": now,
            "anchor": anchor,
            "messages": [_new_message(body, author, now)],
        }
        index = len(self._stored.get("threads") or []) if isinstance(self._stored, dict) else 0
        entry = self._entry_with(raw, None)
        return entry, _written(index, raw)

    def reply(self, thread: StoredThread, body: str, author: Author, now: str) -> ChangedThread:
        raw = {**thread.raw, "messages": [*thread.raw["messages"], _new_message(body, author, now)], "updatedAt": now}
        return self._changed(thread, raw)

    def set_status(
        self, thread: StoredThread, status: ThreadStatus, now: str, closing: Optional[tuple[str, Author]] = None
    ) -> ChangedThread:
        messages = thread.raw["messages"]
        if closing is not None:
            messages = [*messages, _new_message(closing[0], closing[1], now)]
        return self._changed(thread, {**thread.raw, "messages": messages, "status": status, "updatedAt": now})

    def reanchor(self, thread: StoredThread, anchor: dict[str, Any], now: str) -> ChangedThread:
        return self._changed(thread, {**thread.raw, "anchor": anchor, "updatedAt": now})


def _written(index: int, raw: dict[str, Any]) -> StoredThread:
    """A thread as a change writes it; one that would not read back (an anchor without a cell) is refused."""
    thread = StoredThread.read(index, raw)
    if thread is None:
        raise review_data_unreadable()
    return thread


def _new_message(body: str, author: Author, now: str) -> dict[str, Any]:
    return {"id": new_id(), "author": dict(author), "createdAt": now, "body": body}
