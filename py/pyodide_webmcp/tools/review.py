"""Review threads: the same comments the human writes in the Comments tab, stored in the notebook."""

from dataclasses import replace
from typing import Any, Callable, Literal, Optional

from pydantic import Field, model_validator
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import Annotated, NotRequired, TypedDict

from ..base import limits
from ..base.clock import iso_now
from ..base.errors import ErrorCode, ToolError
from ..base.fields import (
    HiddenCellCountField,
    NotebookPathField,
    OmittedCountField,
    ThreadIdField,
    TruncatedField,
)
from ..base.positions import editor_range
from ..base.shapes import CellSnapshot, NotebookField, ReviewCounts
from ..calls.current import CallContext
from ..calls.paging import OffsetPage, fit_listing, offset_page
from ..calls.schema import Arguments, require_max_bytes, text_bound
from ..calls.tool import tool
from ..notebook.access import Intent, guard_cell
from ..notebook.arguments import CellId, NotebookPath, Offset, SourceText, ThreadId
from ..notebook.comment_anchors import AnchorArgument, asked_anchor, new_anchor
from ..notebook.resolve import (
    READ_ERRORS,
    WRITE_ERRORS,
    active_cell,
    anchored_cell,
    info_of,
    live_cell,
    read_notebook,
    resolve_notebook,
    review_store,
)
from ..notebook.views import cell_snapshot
from ..port import CellList, NotebookReader
from ..review.anchors import (
    AnchorStatus,
    anchor_status,
)
from ..review.store import (
    AGENT_AUTHOR,
    ChangedThread,
    ReviewStore,
    StoredThread,
    Thread,
    ThreadStatus,
)
from ..review.summaries import (
    ThreadSummary,
    public_thread,
    thread_counts,
    thread_summary,
)

CommentText = Annotated[
    str,
    Field(description="Plain text (markdown is not rendered).", json_schema_extra=text_bound(limits.MAX_COMMENT_BODY_BYTES)),
]


class ThreadResult(TypedDict):
    notebookPath: NotebookPathField
    thread: Annotated[Thread, Field(description="The thread, with its first and most recent messages.")]
    omittedMessages: Annotated[int, Field(description="Messages left out between the first and the most recent ones.")]


def comment_not_found(thread_id: str, path: str) -> ToolError:
    """The one error for a thread that does not exist or sits on a cell the owner hid."""
    return ToolError(
        ErrorCode.COMMENT_NOT_FOUND,
        f'No review thread with id "{thread_id}" in "{path}".',
        threadId=thread_id,
        notebookPath=path,
    )


def find_thread(store: ReviewStore, records: CellList, thread_id: str, path: str, intent: Intent = "read") -> StoredThread:
    thread = store.find(thread_id, records.hidden_ids)
    if thread is None:
        raise comment_not_found(thread_id, path)
    if intent == "write":
        record = next((r for r in records if r.id == thread.cell_id), None)
        if record is not None:
            guard_cell(record.access, "write", record.id, path)
    return thread


def _require_message(field: str, body: str) -> None:
    require_max_bytes(field, body, limits.MAX_COMMENT_BODY_BYTES)
    if not body.strip():
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"{field} must not be blank.", field=field)


def _thread_result(notebook: NotebookReader, thread: StoredThread) -> ThreadResult:
    """What every tool that returns a whole thread returns of it: its messages under one cap."""
    shown, omitted = public_thread(thread)
    return {"notebookPath": notebook.path, "thread": shown, "omittedMessages": omitted}


# Reading ---------------------------------------------------------------------------------------


class ListCommentsArguments(Arguments):
    notebookPath: NotebookPath = None
    status: Literal[ThreadStatus, "all"] = "open"
    scope: Literal["notebook", "current-cell"] = Field("notebook", description="current-cell: the active cell's only.")
    limit: int = Field(limits.MAX_COMMENTS_RETURNED, ge=1, le=limits.MAX_COMMENTS_RETURNED)
    offset: Offset = 0


class ListCommentsResult(OffsetPage):
    notebookPath: NotebookPathField
    counts: Annotated[ReviewCounts, Field(description=(
        "How many review threads are open and in all (agent-visible only)."))]
    threads: Annotated[list[ThreadSummary], Field(description="Thread summaries, newest first.")]
    truncated: TruncatedField
    omittedCount: OmittedCountField
    unreadableThreadCount: Annotated[int, Field(description=(
        "Stored threads this bridge cannot read (kept untouched), on cells the agent can see."))]


@tool(
    "jupyter_list_comments",
    "List review comments", read_only=True,
    errors=(*READ_ERRORS,),
)
async def list_comments(args: ListCommentsArguments, ctx: CallContext) -> ListCommentsResult:
    """List a notebook's review threads, newest first: id, status, anchor and whether the commented text is still there, last message; paged (hasMore, nextOffset).

    The human writes them too. For a thread's first and latest messages: jupyter_get_comment.
    """
    notebook = await read_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    store = review_store(notebook)
    threads = store.visible(records.hidden_ids)
    selected = [t for t in threads if args.status == "all" or t.status == args.status]
    if args.scope == "current-cell":
        active = active_cell(notebook, records)
        if active is None:
            raise ToolError(
                ErrorCode.NO_ACTIVE_NOTEBOOK, "There is no active cell to scope the comments to.", detail="NO_ACTIVE_CELL"
            )
        selected = [t for t in selected if t.cell_id == records[active].id]
    selected.sort(key=lambda t: t.created_at, reverse=True)
    page = selected[args.offset : args.offset + args.limit]
    summaries = fit_listing(
        [thread_summary(t, anchor_status(t.anchor, anchored_cell(notebook, records, t.anchor))) for t in page],
        args.limit,
    )
    remaining = len(selected) - args.offset - len(summaries)
    return {
        "notebookPath": notebook.path,
        "counts": thread_counts(threads),
        "threads": summaries,
        "truncated": remaining > 0,
        "omittedCount": max(0, remaining),
        "unreadableThreadCount": store.unreadable_count(records.hidden_ids),
        **offset_page(args.offset, len(summaries), max(0, remaining)),
    }


class ThreadArguments(Arguments):
    notebookPath: NotebookPath = None
    threadId: ThreadId


class CommentContext(TypedDict):
    cell: NotRequired[Annotated[CellSnapshot, Field(description="The cell as it is now.")]]


class GetCommentResult(ThreadResult):
    anchorStatus: AnchorStatus
    context: Annotated[CommentContext, Field(description=(
        "The anchored cell as it is now (outputs included for an output anchor)."))]
    hiddenCellCount: HiddenCellCountField


@tool(
    "jupyter_get_comment",
    "Read a review thread", read_only=True,
    errors=(*READ_ERRORS, ErrorCode.COMMENT_NOT_FOUND),
)
async def get_comment(args: ThreadArguments, ctx: CallContext) -> GetCommentResult:
    """Read one review thread: its first and most recent messages, where its anchor points now, and that cell as it is now.

    Use it before answering a thread: jupyter_list_comments shows only its last message.
    """
    notebook = await read_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    thread = find_thread(review_store(notebook), records, args.threadId, notebook.path)
    live = live_cell(notebook, records, thread.cell_id, with_outputs=False)
    context: CommentContext = {}
    if live is not None:
        cell = notebook.cell_json(live.index)  # one read of the cell serves the anchor and the context
        live = replace(live, outputs=cell.get("outputs") or [])
        context["cell"] = cell_snapshot(cell, live.index, include_outputs=thread.anchor.kind == "output")
    return {
        **_thread_result(notebook, thread),
        "anchorStatus": anchor_status(thread.anchor, live),
        "context": context,
        "hiddenCellCount": 0,
    }


# Writing ---------------------------------------------------------------------------------------


class CreateCommentArguments(Arguments):
    notebookPath: NotebookPath = None
    cellId: CellId
    text: SourceText = None
    outputIndex: Optional[int] = Field(None, ge=0, description="Or this output of the cell (zero-based).")
    message: CommentText
    anchor: SkipJsonSchema[Optional[AnchorArgument]] = None
    also_taken = ("the reference extension's `anchor: {kind, cellId, text?, selection?, outputIndex?}` (kind `cell`, "
                  "`source-range` or `output`; selection as zero-based lines and columns, end exclusive) in place of "
                  "`cellId`, `text` and `outputIndex`.")

    @model_validator(mode="before")
    @classmethod
    def _cell_in_anchor(cls, raw: Any) -> Any:
        """The reference's shape, `anchor: {kind, cellId, ...}`, still taken: its cellId names the cell."""
        anchor = raw.get("anchor") if isinstance(raw, dict) else None
        if not isinstance(anchor, dict) or "cellId" not in anchor:
            return raw
        cell_id = anchor["cellId"]
        if "cellId" in raw and raw["cellId"] != cell_id:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "cellId and anchor.cellId differ; give one.", field="anchor.cellId")
        return {**raw, "cellId": cell_id, "anchor": {key: value for key, value in anchor.items() if key != "cellId"}}


class CreateCommentResult(ThreadResult):
    counts: Annotated[ReviewCounts, Field(description=(
        "How many review threads are open and in all (agent-visible only)."))]


@tool(
    "jupyter_create_comment",
    "Create a review comment", read_only=False, destructive=False, idempotent=False,
    errors=(*WRITE_ERRORS, ErrorCode.CELL_NOT_FOUND, ErrorCode.CELL_ACCESS_DENIED, ErrorCode.COMMENT_ANCHOR_STALE, ErrorCode.REVIEW_DATA_UNREADABLE),
)
async def create_comment(args: CreateCommentArguments, ctx: CallContext) -> CreateCommentResult:
    """Start a review thread on a cell, on text of its source (text) or on one of its outputs (outputIndex); returns the thread.

    It changes no cell (to remove one: jupyter_delete_cell). To answer a thread, use jupyter_reply_comment.
    """
    _require_message("message", args.message)
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    records = notebook.cells()
    store = review_store(notebook)
    asked = asked_anchor(args.anchor, args.text, args.outputIndex)
    anchor = new_anchor(notebook, records, args.cellId, asked, "anchor." if args.anchor else "")
    entry, thread = store.create(anchor, args.message, AGENT_AUTHOR, iso_now())
    notebook.set_review_entry(entry)
    return {
        **_thread_result(notebook, thread),
        "counts": thread_counts(ReviewStore(entry).visible(records.hidden_ids)),
    }


class ReplyArguments(ThreadArguments):
    message: CommentText


ThreadChange = Callable[[ReviewStore, StoredThread, str], ChangedThread]
"""A change to a thread, given the store, the thread and the time now."""


async def _change_thread(ctx: CallContext, args: ThreadArguments, change: ThreadChange) -> ThreadResult:
    """Apply a change to a thread; returns the thread as jupyter_get_comment shows it."""
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    records = notebook.cells()
    store = review_store(notebook)
    thread = find_thread(store, records, args.threadId, notebook.path, "write")
    entry, changed = change(store, thread, iso_now())
    notebook.set_review_entry(entry)
    return _thread_result(notebook, changed)


@tool(
    "jupyter_reply_comment",
    "Reply to a review thread", read_only=False, destructive=False, idempotent=False,
    errors=(*WRITE_ERRORS, ErrorCode.COMMENT_NOT_FOUND, ErrorCode.CELL_ACCESS_DENIED, ErrorCode.REVIEW_DATA_UNREADABLE),
)
async def reply_comment(args: ReplyArguments, ctx: CallContext) -> ThreadResult:
    """Add a message to a review thread; returns the thread.

    To answer and close it in one call, use jupyter_resolve_comment.
    """
    _require_message("message", args.message)
    return await _change_thread(ctx, args, lambda store, thread, now: store.reply(thread, args.message, AGENT_AUTHOR, now))


class ResolveArguments(ThreadArguments):
    resolutionMessage: Optional[CommentText] = Field(None, description="What was done; added as the last message.")


@tool(
    "jupyter_resolve_comment",
    "Resolve a review thread", read_only=False, destructive=False, idempotent=True,
    errors=(*WRITE_ERRORS, ErrorCode.COMMENT_NOT_FOUND, ErrorCode.CELL_ACCESS_DENIED, ErrorCode.REVIEW_DATA_UNREADABLE),
)
async def resolve_comment(args: ResolveArguments, ctx: CallContext) -> ThreadResult:
    """Mark a review thread resolved, optionally with a closing message; returns the thread.

    To answer without closing it: jupyter_reply_comment. To reopen it: jupyter_reopen_comment.
    """
    closing = None
    if args.resolutionMessage is not None:
        _require_message("resolutionMessage", args.resolutionMessage)
        closing = (args.resolutionMessage, AGENT_AUTHOR)
    return await _change_thread(
        ctx, args, lambda store, thread, now: store.set_status(thread, "resolved", now, closing)
    )


@tool(
    "jupyter_reopen_comment",
    "Reopen a review thread", read_only=False, destructive=False, idempotent=True,
    errors=(*WRITE_ERRORS, ErrorCode.COMMENT_NOT_FOUND, ErrorCode.CELL_ACCESS_DENIED, ErrorCode.REVIEW_DATA_UNREADABLE),
)
async def reopen_comment(args: ThreadArguments, ctx: CallContext) -> ThreadResult:
    """Reopen a resolved review thread, keeping its messages; returns the thread (an open one stays open).

    Use it when a resolved point needs more work; say why with jupyter_reply_comment.
    """
    return await _change_thread(ctx, args, lambda store, thread, now: store.set_status(thread, "open", now))


class FocusCommentResult(TypedDict):
    notebookPath: NotebookPathField
    threadId: ThreadIdField
    anchorStatus: AnchorStatus
    notebook: NotebookField


@tool(
    "jupyter_focus_comment",
    "Focus a review thread", read_only=False, destructive=False, idempotent=True,
    errors=(*READ_ERRORS, ErrorCode.COMMENT_NOT_FOUND, ErrorCode.COMMENT_ANCHOR_STALE),
)
async def focus_comment(args: ThreadArguments, ctx: CallContext) -> FocusCommentResult:
    """Show the human what a review thread is about: scroll to its cell, make it active and select its text or output; returns where its anchor points now.

    Nothing else changes. For a cell with no thread: jupyter_focus_cell.
    """
    notebook = await resolve_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    thread = find_thread(review_store(notebook), records, args.threadId, notebook.path)
    live = anchored_cell(notebook, records, thread.anchor)
    status = anchor_status(thread.anchor, live)
    if live is None:
        raise ToolError(
            ErrorCode.COMMENT_ANCHOR_STALE, "The cell this thread was attached to no longer exists.", threadId=args.threadId
        )
    selection = editor_range(live.source, status["range"]["start"], status["range"]["end"]) if "range" in status else None
    await notebook.focus_cell(live.index, selection)
    return {"notebookPath": notebook.path, "threadId": args.threadId, "anchorStatus": status, "notebook": info_of(notebook)}
