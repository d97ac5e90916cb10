"""Review threads: the same comments the human writes in the Comments tab, stored in the notebook."""

from dataclasses import replace
from typing import Literal, Optional

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from .. import limits
from ..access import guard_cell
from ..errors import ErrorCode, ToolError
from ..notebooks import (
    READ_ERRORS,
    WRITE_ERRORS,
    anchored_cell,
    find_cell,
    info_of,
    live_cell,
    read_notebook,
    resolve_notebook,
    review_store,
)
from ..paging import OffsetPage, fit, offset_page
from ..port import NotebookPort, NotebookReader
from ..positions import editor_range, strict_offset
from ..provenance import iso_now
from ..registry import CallContext, tool
from ..review import (
    AGENT_AUTHOR,
    AnchorStatus,
    ReviewStore,
    StoredThread,
    Thread,
    ThreadSummary,
    anchor_status,
    cell_anchor,
    counts,
    output_anchor,
    public_thread,
    range_anchor,
    thread_summary,
)
from ..schema import Arguments, SelectionArgument, require_max_bytes, text_bound
from ..shapes import CellSnapshot, NotebookInfo, ReviewCounts
from ..views import CellList, cell_snapshot

COMMENT_BOUND = f"(at most {limits.MAX_COMMENT_BODY_BYTES // limits.KIB} KiB of UTF-8)"


class ThreadResult(TypedDict):
    notebookPath: str
    thread: Thread
    omittedMessages: int


def comment_not_found(thread_id: str, path: str) -> ToolError:
    """The one error for a thread that does not exist or sits on a cell the owner hid."""
    return ToolError(
        ErrorCode.COMMENT_NOT_FOUND,
        f'No review thread with id "{thread_id}" in "{path}".',
        threadId=thread_id,
        notebookPath=path,
    )


def find_thread(store: ReviewStore, records: CellList, thread_id: str, path: str, intent: str = "read") -> StoredThread:
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
    shown, omitted = public_thread(thread)
    return {"notebookPath": notebook.path, "thread": shown, "omittedMessages": omitted}


# Reading ---------------------------------------------------------------------------------------


class ListCommentsArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook to read; the current one when omitted.")
    status: Literal["open", "resolved", "all"] = Field("open", description="Which threads to list.")
    scope: Literal["notebook", "current-cell"] = Field("notebook", description="All threads, or the active cell's.")
    limit: int = Field(limits.MAX_COMMENTS_RETURNED, ge=1, le=limits.MAX_COMMENTS_RETURNED, description="Most threads.")
    offset: int = Field(0, ge=0, description="Threads to skip first (nextOffset of the previous page).")


class ListCommentsResult(OffsetPage):
    notebookPath: str
    counts: ReviewCounts
    threads: list[ThreadSummary]
    truncated: bool
    omittedCount: int
    unreadableThreadCount: int


@tool(
    "jupyter_list_comments",
    "List review comments", read_only=True,
    errors=(*READ_ERRORS,),
)
async def list_comments(args: ListCommentsArguments, ctx: CallContext) -> ListCommentsResult:
    """List a notebook's review threads, newest first: id, status, anchor (and whether it still points at live code), last message; paged.

    Use it to see what the human (or you) raised, and to get the threadId
    that jupyter_get_comment (the whole thread), jupyter_reply_comment,
    jupyter_resolve_comment and jupyter_focus_comment take. Threads are an
    ordinary notebook feature: the human uses them in the Agent panel's
    Comments tab too. At most `limit` (50) threads and about 46 KiB per
    call, then hasMore and nextOffset; previews are cut at 400 characters.
    Threads on cells the owner hid do not exist for you; threads stored in a
    form this bridge cannot read are kept untouched and counted in
    unreadableThreadCount.
    """
    notebook = await read_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    store = review_store(notebook)
    threads = store.visible(records.hidden_ids)
    selected = [t for t in threads if args.status == "all" or t.status == args.status]
    if args.scope == "current-cell":
        active = notebook.active_index()
        if active is None or records[active].hidden:
            raise ToolError(
                ErrorCode.NO_ACTIVE_NOTEBOOK, "There is no active cell to scope the comments to.", detail="NO_ACTIVE_CELL"
            )
        selected = [t for t in selected if t.cell_id == records[active].id]
    selected.sort(key=lambda t: t.created_at, reverse=True)
    page = selected[args.offset : args.offset + args.limit]
    summaries = fit(
        [thread_summary(t, anchor_status(t.anchor, anchored_cell(notebook, records, t.anchor))) for t in page],
        args.limit,
    )
    remaining = len(selected) - args.offset - len(summaries)
    return {
        "notebookPath": notebook.path,
        "counts": counts(threads),
        "threads": summaries,
        "truncated": remaining > 0,
        "omittedCount": max(0, remaining),
        "unreadableThreadCount": store.unreadable_count(records.hidden_ids),
        **offset_page(args.offset, len(summaries), max(0, remaining)),
    }


class ThreadArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook of the thread; the current one when omitted.")
    threadId: str = Field(description="The thread's id, as jupyter_list_comments returns it.")


class CommentContext(TypedDict):
    cell: NotRequired[CellSnapshot]


class GetCommentResult(ThreadResult):
    anchorStatus: AnchorStatus
    context: CommentContext
    hiddenCellCount: int


@tool(
    "jupyter_get_comment",
    "Read a review thread", read_only=True,
    errors=(*READ_ERRORS, ErrorCode.COMMENT_NOT_FOUND),
)
async def get_comment(args: ThreadArguments, ctx: CallContext) -> GetCommentResult:
    """Read one review thread: its first and most recent messages, where its anchor points now, and that cell as it is now.

    Use it before answering or acting on a thread found with
    jupyter_list_comments (which shows only the last message). At most 20 messages and about 25 KiB (the first one and the most recent;
    omittedMessages counts the rest); the cell's outputs are included for an
    output anchor. Threads on cells the owner hid do not exist for you
    (COMMENT_NOT_FOUND, exactly as an unknown id).
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


class AnchorArgument(Arguments):
    kind: Literal["cell", "source-range", "output"] = Field(description="What the thread is attached to.")
    cellId: str = Field(description="The cell.")
    selection: Optional[SelectionArgument] = Field(None, description="source-range: the range, in characters.")
    text: Optional[str] = Field(
        None,
        description="source-range: exact text of the cell to attach to (its first match; at most 4 KiB of UTF-8).",
        json_schema_extra=text_bound(limits.MAX_SELECTED_TEXT_BYTES),
    )
    outputIndex: int = Field(0, ge=0, description="output: which output of the cell.")


class CreateCommentArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook to comment on; the current one when omitted.")
    anchor: AnchorArgument = Field(description="What the thread is attached to.")
    message: str = Field(
        description=f"The comment {COMMENT_BOUND}.", json_schema_extra=text_bound(limits.MAX_COMMENT_BODY_BYTES)
    )


class CreateCommentResult(ThreadResult):
    counts: ReviewCounts


def _new_anchor(notebook: NotebookPort, records: CellList, anchor: AnchorArgument) -> dict:
    index = find_cell(records, anchor.cellId, notebook.path, "write")
    source = records[index].source
    stale = ToolError(ErrorCode.COMMENT_ANCHOR_STALE, "The anchor does not match the cell as it is now.", cellId=anchor.cellId)
    if anchor.kind == "cell":
        return cell_anchor(anchor.cellId)
    if anchor.kind == "output":
        outputs = notebook.cell_json(index).get("outputs") or []
        if anchor.outputIndex >= len(outputs):
            raise ToolError(
                ErrorCode.COMMENT_ANCHOR_STALE,
                f'Cell "{anchor.cellId}" has no output at index {anchor.outputIndex}. Run it first.',
                cellId=anchor.cellId,
                outputIndex=anchor.outputIndex,
            )
        return output_anchor(anchor.cellId, outputs, anchor.outputIndex)
    if anchor.text is not None:
        require_max_bytes("anchor.text", anchor.text, limits.MAX_SELECTED_TEXT_BYTES)
        start = source.find(anchor.text) if anchor.text else -1
        if start < 0:
            raise ToolError(ErrorCode.COMMENT_ANCHOR_STALE, "That text does not appear in the cell source.", cellId=anchor.cellId)
        return range_anchor(anchor.cellId, source, start, start + len(anchor.text))
    if anchor.selection is None:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, "A source-range anchor needs text or selection.", field="anchor.selection"
        )
    offsets = [strict_offset(source, point.model_dump()) for point in (anchor.selection.start, anchor.selection.end)]
    if None in offsets or offsets[0] == offsets[1]:
        raise stale
    start, end = sorted(offsets)  # type: ignore[type-var]
    require_max_bytes("anchor.selection", source[start:end], limits.MAX_SELECTED_TEXT_BYTES)
    return range_anchor(anchor.cellId, source, start, end)


@tool(
    "jupyter_create_comment",
    "Create a review comment", read_only=False, destructive=False, idempotent=False,
    errors=(*WRITE_ERRORS, ErrorCode.CELL_NOT_FOUND, ErrorCode.CELL_ACCESS_DENIED, ErrorCode.COMMENT_ANCHOR_STALE, ErrorCode.REVIEW_DATA_UNREADABLE),
)
async def create_comment(args: CreateCommentArguments, ctx: CallContext) -> CreateCommentResult:
    """Start a review thread on a whole cell, an exact source range (by text or selection) or one output; returns the thread and the new counts.

    Use it to leave an observation without editing the notebook: the human
    sees it in the Comments tab of the Agent panel, like their own. The
    message is at most 8 KiB, anchor text 4 KiB; an anchor that does not
    match the cell as it is now is COMMENT_ANCHOR_STALE. Every other stored
    thread is kept exactly as it was.
    """
    _require_message("message", args.message)
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    records = notebook.cells()
    store = review_store(notebook)
    entry, thread = store.create(_new_anchor(notebook, records, args.anchor), args.message, AGENT_AUTHOR, iso_now())
    notebook.set_review_entry(entry)
    return {
        **_thread_result(notebook, thread),
        "counts": counts(ReviewStore(entry).visible(records.hidden_ids)),
    }


class ReplyArguments(ThreadArguments):
    message: str = Field(
        description=f"Your message, shown to the human as plain text {COMMENT_BOUND}.",
        json_schema_extra=text_bound(limits.MAX_COMMENT_BODY_BYTES),
    )


async def _change_thread(ctx: CallContext, args: ThreadArguments, change) -> ThreadResult:
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
    """Add a message (at most 8 KiB) to a review thread; returns the thread with its first and most recent messages.

    Use it to answer the human or report what you changed; to close the
    thread at the same time, use jupyter_resolve_comment with a
    resolutionMessage instead. The human reads it beside their own in the
    Comments tab, as plain text (markdown is not rendered). Threads on
    read-only cells can be read but not answered (CELL_ACCESS_DENIED).
    """
    _require_message("message", args.message)
    return await _change_thread(ctx, args, lambda store, thread, now: store.reply(thread, args.message, AGENT_AUTHOR, now))


class ResolveArguments(ThreadArguments):
    resolutionMessage: Optional[str] = Field(
        None,
        description=f"What was done about the thread (for example the cell you changed), added as its last message {COMMENT_BOUND}.",
        json_schema_extra=text_bound(limits.MAX_COMMENT_BODY_BYTES),
    )


@tool(
    "jupyter_resolve_comment",
    "Resolve a review thread", read_only=False, destructive=False, idempotent=True,
    errors=(*WRITE_ERRORS, ErrorCode.COMMENT_NOT_FOUND, ErrorCode.CELL_ACCESS_DENIED, ErrorCode.REVIEW_DATA_UNREADABLE),
)
async def resolve_comment(args: ResolveArguments, ctx: CallContext) -> ThreadResult:
    """Mark a review thread resolved, optionally adding a closing message; returns the thread, whose history stays and which the human can reopen.

    Use it once the point the thread raised is dealt with, saying how in
    resolutionMessage; to keep the discussion going, use
    jupyter_reply_comment. Resolved threads drop out of
    jupyter_list_comments' default (status "open"). Resolving a resolved
    thread is not an error. Threads on read-only cells cannot be resolved
    (CELL_ACCESS_DENIED).
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
    """Reopen a resolved review thread, keeping its history; returns the thread.

    Use it when a resolved point needs more work; it takes no message, so
    give your reason with jupyter_reply_comment. Find resolved threads with
    jupyter_list_comments (status "resolved"). The thread shows as open
    again in the human's Comments tab; reopening an open thread is not an
    error. Threads on read-only cells cannot be reopened (CELL_ACCESS_DENIED).
    """
    return await _change_thread(ctx, args, lambda store, thread, now: store.set_status(thread, "open", now))


class FocusCommentResult(TypedDict):
    notebookPath: str
    threadId: str
    anchorStatus: AnchorStatus
    notebook: NotebookInfo


@tool(
    "jupyter_focus_comment",
    "Focus a review thread", read_only=False, destructive=False, idempotent=True,
    errors=(*READ_ERRORS, ErrorCode.COMMENT_NOT_FOUND, ErrorCode.COMMENT_ANCHOR_STALE),
)
async def focus_comment(args: ThreadArguments, ctx: CallContext) -> FocusCommentResult:
    """Show the human what a review thread is about: scroll to its cell and select its text or output; returns where its anchor points now.

    Use it while you talk to the human about a thread, so they see what you
    mean; to show a cell without a thread, use jupyter_focus_cell. Only the
    view changes. A thread whose cell is gone is COMMENT_ANCHOR_STALE,
    before anything moves.
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
