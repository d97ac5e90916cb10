"""Review threads: the same comments the human writes in the Comments tab, stored in the notebook."""

from typing import Any, Literal, Optional

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from .. import limits
from ..access import guard_cell
from ..errors import ErrorCode, ToolError
from ..models import CellSnapshot, NotebookInfo
from ..notebooks import find_cell, info_of, live_cell, resolve_notebook, visible_threads
from ..provenance import iso_now
from ..registry import CallContext, tool
from ..review import (
    AGENT_AUTHOR,
    anchor_status,
    counts,
    editor_selection,
    new_id,
    normalize_threads,
    output_anchor,
    public_thread,
    range_anchor,
    stored_entry,
    strict_offset,
    thread_summary,
)
from ..schema import Arguments, SelectionArgument, require_max_bytes
from ..snapshots import cell_snapshot

LIST_BUDGET_BYTES = limits.MAX_TOTAL_RESULT_BYTES - 4 * limits.KIB


class Author(TypedDict):
    kind: Literal["human", "agent"]
    name: str


class Message(TypedDict):
    id: str
    author: Author
    createdAt: str
    body: str


class Thread(TypedDict):
    id: str
    status: Literal["open", "resolved"]
    createdAt: str
    updatedAt: str
    anchor: dict
    messages: list[Message]


class Counts(TypedDict):
    openThreads: int
    totalThreads: int


class AnchorStatus(TypedDict):
    kind: str
    cellId: str
    cellExists: bool
    cellIndex: Optional[int]
    state: Literal["exact", "reanchored", "orphaned", "cell-missing"]
    range: NotRequired[dict]
    text: NotRequired[str]
    outputIndex: NotRequired[int]
    outputChanged: NotRequired[bool]


class ThreadResult(TypedDict):
    notebookPath: str
    thread: Thread
    omittedMessages: int


def comment_not_found(thread_id: str, path: str) -> ToolError:
    return ToolError(ErrorCode.COMMENT_NOT_FOUND, f'No review thread "{thread_id}" in {path}.', threadId=thread_id)


def find_thread(notebook, records, thread_id: str, intent: str = "read") -> dict[str, Any]:
    thread = next((t for t in visible_threads(notebook, records) if t["id"] == thread_id), None)
    if thread is None:
        raise comment_not_found(thread_id, notebook.path)
    if intent == "write":
        record = next((r for r in records if r.id == thread["anchor"]["cellId"]), None)
        if record is not None:
            guard_cell(record.access, "write", record.id, notebook.path)
    return thread


def _thread_and_cell(notebook, thread_id: str):
    """A thread the agent may read, and its anchored cell as it is now (None when gone)."""
    records = notebook.cells()
    thread = find_thread(notebook, records, thread_id)
    return thread, live_cell(notebook, records, thread["anchor"]["cellId"])


def save_thread(notebook, thread: dict[str, Any]) -> None:
    """Write one thread back, keeping every other stored thread (hidden ones included) as it was."""
    threads = normalize_threads(notebook.review_entry())
    replaced = [thread if t["id"] == thread["id"] else t for t in threads]
    if not any(t["id"] == thread["id"] for t in threads):
        replaced.append(thread)
    notebook.set_review_entry(stored_entry(replaced))


def _message(body: str, author: dict[str, str] = AGENT_AUTHOR) -> dict[str, Any]:
    return {"id": new_id("m"), "author": dict(author), "createdAt": iso_now(), "body": body}


def _require_message(field: str, body: str) -> None:
    require_max_bytes(field, body, limits.MAX_COMMENT_BODY_BYTES)
    if not body.strip():
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{field} must not be blank.", field=field)


def _thread_result(notebook, thread: dict[str, Any]) -> ThreadResult:
    shown, omitted = public_thread(thread)
    return {"notebookPath": notebook.path, "thread": shown, "omittedMessages": omitted}


# Reading ---------------------------------------------------------------------------------------


class ListCommentsArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook to read; the current one when omitted.")
    status: Literal["open", "resolved", "all"] = Field("open", description="Which threads to list.")
    scope: Literal["notebook", "current-cell"] = Field("notebook", description="All threads, or the active cell's.")
    limit: int = Field(limits.MAX_COMMENTS_RETURNED, ge=1, le=limits.MAX_COMMENTS_RETURNED, description="Most threads.")


class ListCommentsResult(TypedDict):
    notebookPath: str
    counts: Counts
    threads: list[dict]
    truncated: bool
    omittedCount: int


@tool("jupyter_list_comments", "List review comments", read_only=True)
async def list_comments(args: ListCommentsArguments, ctx: CallContext) -> ListCommentsResult:
    """List the review threads saved in a notebook, newest first, each saying whether it still points at live code.

    Threads are an ordinary notebook feature: the human creates, answers and
    resolves them in the Agent panel's Comments tab too.
    """
    notebook = await resolve_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    threads = visible_threads(notebook, records)
    selected = [t for t in threads if args.status == "all" or t["status"] == args.status]
    if args.scope == "current-cell":
        active = notebook.active_index()
        if active is None or records[active].hidden:
            raise ToolError(ErrorCode.NO_ACTIVE_NOTEBOOK, "There is no active cell.")
        selected = [t for t in selected if t["anchor"]["cellId"] == records[active].id]
    selected.sort(key=lambda t: t["createdAt"], reverse=True)
    summaries, used = [], 0
    for thread in selected[: args.limit]:
        summary = thread_summary(thread, anchor_status(thread["anchor"], live_cell(notebook, records, thread["anchor"]["cellId"])))
        size = len(str(summary).encode("utf-8"))
        if used + size > LIST_BUDGET_BYTES:
            break
        summaries.append(summary)
        used += size
    return {
        "notebookPath": notebook.path,
        "counts": counts(threads),
        "threads": summaries,
        "truncated": len(summaries) < len(selected),
        "omittedCount": len(selected) - len(summaries),
    }


class ThreadArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook of the thread; the current one when omitted.")
    threadId: str = Field(description="The thread.")


class CommentContext(TypedDict):
    cell: NotRequired[CellSnapshot]


class GetCommentResult(ThreadResult):
    anchorStatus: AnchorStatus
    context: CommentContext
    hiddenCellCount: int


@tool("jupyter_get_comment", "Read a review thread", read_only=True)
async def get_comment(args: ThreadArguments, ctx: CallContext) -> GetCommentResult:
    """Read one review thread: its first and most recent messages, where its anchor points now, and that code or output as it is now."""
    notebook = await resolve_notebook(ctx.lab, args.notebookPath)
    thread, live = _thread_and_cell(notebook, args.threadId)
    context: CommentContext = {}
    if live is not None:
        context["cell"] = cell_snapshot(
            notebook.cell_json(live.index), live.index, include_outputs=thread["anchor"]["kind"] == "output"
        )
    return {
        **_thread_result(notebook, thread),
        "anchorStatus": anchor_status(thread["anchor"], live),
        "context": context,
        "hiddenCellCount": 0,
    }


# Writing ---------------------------------------------------------------------------------------


class AnchorArgument(Arguments):
    kind: Literal["cell", "source-range", "output"] = Field(description="What the thread is attached to.")
    cellId: str = Field(description="The cell.")
    selection: Optional[SelectionArgument] = Field(None, description="source-range: the range, in characters.")
    text: Optional[str] = Field(None, description="source-range: exact text of the cell to attach to (first match).")
    outputIndex: int = Field(0, ge=0, description="output: which output of the cell.")


class CreateCommentArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook to comment on; the current one when omitted.")
    anchor: AnchorArgument
    message: str = Field(description="The comment.")


class CreateCommentResult(ThreadResult):
    counts: Counts


def _new_anchor(notebook, records, anchor: AnchorArgument) -> dict[str, Any]:
    index = find_cell(records, anchor.cellId, notebook.path, "write")
    source = records[index].source
    stale = ToolError(ErrorCode.COMMENT_ANCHOR_STALE, "The anchor does not match the cell as it is now.", cellId=anchor.cellId)
    if anchor.kind == "cell":
        return {"kind": "cell", "cellId": anchor.cellId}
    if anchor.kind == "output":
        outputs = notebook.cell_json(index).get("outputs") or []
        if anchor.outputIndex >= len(outputs):
            raise stale
        return output_anchor(anchor.cellId, outputs, anchor.outputIndex)
    if anchor.text is not None:
        require_max_bytes("anchor.text", anchor.text, limits.MAX_SELECTED_TEXT_BYTES)
        start = source.find(anchor.text) if anchor.text else -1
        if start < 0:
            raise stale
        return range_anchor(anchor.cellId, source, start, start + len(anchor.text))
    if anchor.selection is None:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, "A source-range anchor needs text or selection.", field="anchor.selection"
        )
    offsets = [strict_offset(source, point.model_dump()) for point in (anchor.selection.start, anchor.selection.end)]
    if None in offsets or offsets[0] == offsets[1]:
        raise stale
    start, end = sorted(offsets)
    require_max_bytes("anchor.selection", source[start:end], limits.MAX_SELECTED_TEXT_BYTES)
    return range_anchor(anchor.cellId, source, start, end)


@tool("jupyter_create_comment", "Create a review comment", read_only=False)
async def create_comment(args: CreateCommentArguments, ctx: CallContext) -> CreateCommentResult:
    """Start a review thread on a whole cell, an exact source range (by selection or text) or one output, without editing the notebook.

    The human sees it in the Comments tab of the Agent panel, like their own.
    """
    _require_message("message", args.message)
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    records = notebook.cells()
    stamp = iso_now()
    thread = {
        "id": new_id("t"),
        "status": "open",
        "createdAt": stamp,
        "updatedAt": stamp,
        "anchor": _new_anchor(notebook, records, args.anchor),
        "messages": [_message(args.message)],
    }
    save_thread(notebook, thread)
    return {**_thread_result(notebook, thread), "counts": counts(visible_threads(notebook, records))}


class ReplyArguments(ThreadArguments):
    message: str = Field(description="The reply.")


async def _change_thread(ctx: CallContext, args: ThreadArguments, change) -> ThreadResult:
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    records = notebook.cells()
    thread = find_thread(notebook, records, args.threadId, "write")
    change(thread)
    thread["updatedAt"] = iso_now()
    save_thread(notebook, thread)
    return _thread_result(notebook, thread)


@tool("jupyter_reply_comment", "Reply to a review thread", read_only=False)
async def reply_comment(args: ReplyArguments, ctx: CallContext) -> ThreadResult:
    """Add a message to a review thread; the human reads it beside their own in the Comments tab."""
    _require_message("message", args.message)
    return await _change_thread(ctx, args, lambda thread: thread["messages"].append(_message(args.message)))


class ResolveArguments(ThreadArguments):
    resolutionMessage: Optional[str] = Field(None, description="A closing message to add.")


@tool("jupyter_resolve_comment", "Resolve a review thread", read_only=False)
async def resolve_comment(args: ResolveArguments, ctx: CallContext) -> ThreadResult:
    """Mark a review thread resolved, optionally with a closing message; its history stays and the human can reopen it."""
    if args.resolutionMessage is not None:
        _require_message("resolutionMessage", args.resolutionMessage)

    def resolve(thread: dict[str, Any]) -> None:
        if args.resolutionMessage is not None:
            thread["messages"].append(_message(args.resolutionMessage))
        thread["status"] = "resolved"

    return await _change_thread(ctx, args, resolve)


@tool("jupyter_reopen_comment", "Reopen a review thread", read_only=False)
async def reopen_comment(args: ThreadArguments, ctx: CallContext) -> ThreadResult:
    """Reopen a resolved review thread, keeping its history."""
    return await _change_thread(ctx, args, lambda thread: thread.update(status="open"))


class FocusCommentResult(TypedDict):
    notebookPath: str
    threadId: str
    anchorStatus: AnchorStatus
    notebook: NotebookInfo


@tool("jupyter_focus_comment", "Focus a review thread", read_only=False)
async def focus_comment(args: ThreadArguments, ctx: CallContext) -> FocusCommentResult:
    """Show the human what a review thread is about: scroll to its cell and select its text. Only the view changes."""
    notebook = await resolve_notebook(ctx.lab, args.notebookPath)
    thread, live = _thread_and_cell(notebook, args.threadId)
    status = anchor_status(thread["anchor"], live)
    if live is None:
        raise ToolError(
            ErrorCode.COMMENT_ANCHOR_STALE, "The thread's cell no longer exists.", threadId=args.threadId
        )
    await notebook.focus_cell(live.index, editor_selection(status, live.source))
    return {"notebookPath": notebook.path, "threadId": args.threadId, "anchorStatus": status, "notebook": info_of(notebook)}
