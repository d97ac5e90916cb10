"""Review threads as the agent's tools show them: messages capped, counts, and one-line summaries. Pure."""

from typing import Annotated, Optional, Sequence

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..base import limits
from ..base.fields import (
    BodyField,
    CellIdField,
    CellIndexField,
    CreatedAtField,
    OutputIndexField,
    SelectedTextField,
    ThreadIdField,
    UpdatedAtField,
)
from ..base.shapes import ReviewCounts
from ..base.text import clamp_chars, json_size
from .anchors import AnchorState, AnchorStatus
from .store import (
    AnchorKind,
    Author,
    Message,
    StoredThread,
    Thread,
    ThreadStatus,
)


def capped_messages(messages: Sequence[Message]) -> tuple[list[Message], int]:
    """The first message plus the most recent ones that fit the count and byte caps; how many were left out."""
    if not messages:
        return [], 0
    budget = limits.MAX_COMMENT_MESSAGE_BUDGET_BYTES - json_size(messages[0])
    recent: list[Message] = []
    for message in reversed(messages[1:]):
        size = json_size(message)
        if len(recent) + 1 >= limits.MAX_COMMENT_MESSAGES_RETURNED or size > budget:
            break
        recent.append(message)
        budget -= size
    kept = [messages[0], *reversed(recent)]
    return kept, len(messages) - len(kept)


def public_thread(thread: StoredThread) -> tuple[Thread, int]:
    """The thread as every tool that returns one shows it (read, create, reply, resolve, reopen), its
    messages capped, and how many were left out."""
    shown = thread.public()
    shown["messages"], omitted = capped_messages(thread.messages)
    return shown, omitted


def thread_counts(threads: Sequence[StoredThread]) -> ReviewCounts:
    return {"openThreads": sum(t.status == "open" for t in threads), "totalThreads": len(threads)}


class SummaryAnchor(TypedDict):
    kind: Annotated[AnchorKind, Field(description="What kind of thing this is.")]
    cellId: CellIdField
    cellIndex: CellIndexField
    state: Annotated[AnchorState, Field(description=(
        "exact (still where it was), reanchored (found elsewhere), orphaned (not found) or cell-missing."))]
    selectedText: NotRequired[SelectedTextField]
    outputIndex: NotRequired[OutputIndexField]
    outputChanged: NotRequired[Annotated[bool, Field(description=(
        "Whether the anchored output was replaced or removed since."))]]


class LastMessage(TypedDict):
    author: Annotated[Author, Field(description="Who wrote it: kind human or agent, and a name.")]
    createdAt: CreatedAtField
    body: BodyField


class ThreadSummary(TypedDict):
    threadId: ThreadIdField
    status: Annotated[ThreadStatus, Field(description="open or resolved.")]
    createdAt: CreatedAtField
    updatedAt: UpdatedAtField
    messageCount: Annotated[int, Field(description="How many messages the thread has.")]
    anchor: Annotated[SummaryAnchor, Field(description="What the thread is attached to.")]
    lastMessage: Annotated[Optional[LastMessage], Field(description="The most recent message (body bounded), or null.")]


def thread_summary(thread: StoredThread, status: AnchorStatus) -> ThreadSummary:
    anchor: SummaryAnchor = {
        "kind": status["kind"],
        "cellId": status["cellId"],
        "cellIndex": status["cellIndex"],
        "state": status["state"],
    }
    if "text" in status:
        anchor["selectedText"] = clamp_chars(status["text"], limits.MAX_PREVIEW_CHARS)[0]
    if "outputIndex" in status:
        anchor["outputIndex"] = status["outputIndex"]
    if "outputChanged" in status:
        anchor["outputChanged"] = status["outputChanged"]
    last = thread.messages[-1] if thread.messages else None
    return {
        "threadId": thread.id,
        "status": thread.status,
        "createdAt": thread.created_at,
        "updatedAt": thread.updated_at,
        "messageCount": len(thread.messages),
        "anchor": anchor,
        "lastMessage": None
        if last is None
        else {
            "author": last["author"],
            "createdAt": last["createdAt"],
            "body": clamp_chars(last["body"], limits.MAX_PREVIEW_CHARS)[0],
        },
    }
