"""Changing cells beside a human: every write is guarded by the sourceHash the agent read."""

from typing import Literal, Optional

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from .. import limits
from ..errors import ErrorCode, ToolError
from ..notebooks import WRITE_ERRORS, find_cell, info_of, resolve_notebook
from ..port import NotebookPort
from ..proposals import ask_human, denied, diff_lines
from ..registry import CallContext, tool
from ..remote import require_same_origin
from ..schema import Arguments, require_max_bytes, text_bound
from ..shapes import CellSnapshot, NotebookInfo, ProposalOutcome
from ..text import clamp_chars
from ..views import CellRecord, cell_snapshot

CELL_TYPES = ("code", "markdown", "raw")


def check_hash(record: CellRecord, expected: str, message: str) -> None:
    """STALE_CELL unless the cell still holds exactly the source the agent read."""
    if record.source_hash != expected:
        raise ToolError(
            ErrorCode.STALE_CELL,
            message,
            cellId=record.id,
            expectedSourceHash=expected,
            currentSourceHash=record.source_hash,
            currentSourcePreview=clamp_chars(record.source, limits.MAX_PREVIEW_CHARS)[0],
        )


class CellResult(TypedDict):
    notebook: NotebookInfo
    cell: CellSnapshot


class ReviewedResult(ProposalOutcome):
    """What a write returns when the human may review it (Propose mode): applied, or denied."""

    notebook: NotRequired[NotebookInfo]
    cell: NotRequired[CellSnapshot]
    status: NotRequired[Literal["accepted", "denied"]]


def reread(notebook: NotebookPort, cell_id: str, include_source: bool) -> CellResult:
    """The written cell, found again by id (the human may have moved, deleted or hidden it).

    A write leaves out the source the agent has just sent unless asked (`includeSource`): it
    returns what the agent lacks, the id, index and new sourceHash.
    """
    records = notebook.cells()
    index = find_cell(records, cell_id, notebook.path)
    snapshot = cell_snapshot(notebook.cell_json(index), index, include_source=include_source)
    return {"notebook": info_of(notebook, records), "cell": snapshot}


INCLUDE_SOURCE = "Also return the cell's source (you have just sent it, so by default it is left out)."


class InsertCellArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook to change; the current one when omitted.")
    referenceCellId: Optional[str] = Field(None, description="Insert next to this cell; the active cell when omitted.")
    position: Literal["above", "below"] = Field("below", description="Side of the reference cell.")
    cellType: str = Field("code", json_schema_extra={"enum": list(CELL_TYPES)}, description="Type of the new cell.")
    source: str = Field(
        "",
        description=f"Source of the new cell (at most {limits.MAX_CELL_SOURCE_WRITE_BYTES // limits.KIB} KiB of UTF-8).",
        json_schema_extra=text_bound(limits.MAX_CELL_SOURCE_WRITE_BYTES),
    )
    activate: bool = Field(True, description="Make the new cell active (and render it, if markdown).")
    includeSource: bool = Field(False, description=INCLUDE_SOURCE)


@tool(
    "jupyter_insert_cell",
    "Insert a cell", read_only=False, destructive=False, idempotent=False,
    errors=(*WRITE_ERRORS, ErrorCode.CELL_NOT_FOUND, ErrorCode.INVALID_CELL_TYPE, ErrorCode.PROPOSAL_ALREADY_PENDING),
)
async def insert_cell(args: InsertCellArguments, ctx: CallContext) -> ReviewedResult:
    """Insert a new code, markdown or raw cell above or below a reference cell (the active one by default); returns the new cell's id, index and sourceHash.

    The human sees it at once. It is not run: call jupyter_run_cells for
    that. In an empty notebook the cell is simply added. The source (at most
    256 KiB) is not echoed back unless includeSource. Markdown that would
    load an image or other resource from another origin is refused
    (INVALID_ARGUMENT): link to it instead. In Propose mode
    (get_context.proposeMode), if the human also reviews inserts, the call
    waits for their decision (pending past the call budget): "accepted", or
    PROPOSAL_DENIED with their reason.
    """
    if args.cellType not in CELL_TYPES:
        raise ToolError(
            ErrorCode.INVALID_CELL_TYPE,
            f'Cell type "{args.cellType}" is not one of {", ".join(CELL_TYPES)}.',
            cellType=args.cellType,
        )
    require_max_bytes("source", args.source, limits.MAX_CELL_SOURCE_WRITE_BYTES)
    require_same_origin("source", args.source, args.cellType)
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    records = notebook.cells()
    if not records:
        index = 0
    else:
        if args.referenceCellId is not None:
            reference = find_cell(records, args.referenceCellId, notebook.path)
        else:
            reference = notebook.active_index()
            reference = len(records) - 1 if reference is None else reference
        index = reference if args.position == "above" else reference + 1
    accepted: dict = {}
    if records and ctx.lab.proposals.reviews("insert"):
        anchor = records[index - 1 if args.position == "below" else index].id
        title = f"The agent proposes a new {args.cellType} cell {args.position} this one:"
        outcome, reason, proposal_id = await ask_human(
            ctx, notebook, anchor, title, [("added", line) for line in args.source.split("\n")]
        )
        if outcome == "denied":
            return denied(proposal_id, anchor, reason)
        accepted = {"status": "accepted", "proposalId": proposal_id}
        records = notebook.cells()
        index = find_cell(records, anchor, notebook.path) + (1 if args.position == "below" else 0)
    cell_id = notebook.insert_cell(index, args.cellType, args.source)
    notebook.record_history(cell_id, "agent", "inserted", ctx.tool)
    if args.activate:
        notebook.activate_cell(index, render_markdown=bool(args.source))
    return {**reread(notebook, cell_id, args.includeSource), **accepted}


class UpdateCellArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook of the cell; the current one when omitted.")
    cellId: str = Field(description="Cell to change.")
    source: str = Field(
        description=f"The complete new source (at most {limits.MAX_CELL_SOURCE_WRITE_BYTES // limits.KIB} KiB of UTF-8).",
        json_schema_extra=text_bound(limits.MAX_CELL_SOURCE_WRITE_BYTES),
    )
    expectedSourceHash: str = Field(description="sourceHash from your last read of this cell.")
    includeSource: bool = Field(False, description=INCLUDE_SOURCE)


def _checked_index(notebook: NotebookPort, args: UpdateCellArguments) -> int:
    records = notebook.cells()
    index = find_cell(records, args.cellId, notebook.path, "write")
    check_hash(records[index], args.expectedSourceHash, "Cell changed since it was read.")
    return index


@tool(
    "jupyter_update_cell",
    "Update a cell", read_only=False, destructive=True, idempotent=True,
    errors=(*WRITE_ERRORS, ErrorCode.CELL_NOT_FOUND, ErrorCode.CELL_ACCESS_DENIED, ErrorCode.STALE_CELL, ErrorCode.PROPOSAL_ALREADY_PENDING),
)
async def update_cell(args: UpdateCellArguments, ctx: CallContext) -> ReviewedResult:
    """Replace a cell's whole source, only if it still matches the
    sourceHash you read; returns the cell's new sourceHash (and, in Propose
    mode, the human's decision).

    If the human changed the cell since, nothing is written and STALE_CELL
    returns the current hash and a preview: read again, then retry. To
    change a few lines of a long cell, jupyter_replace_in_cell sends less.
    Does not run or save. The source (at most 256 KiB) is not echoed back
    unless includeSource; markdown that would load a resource from another
    origin is refused, as in jupyter_insert_cell. In Propose mode
    (get_context.proposeMode) the call waits for the human's decision (pending past the call budget):
    "accepted", or PROPOSAL_DENIED with their reason (also when the cell is
    deleted or the notebook closed first).
    """
    require_max_bytes("source", args.source, limits.MAX_CELL_SOURCE_WRITE_BYTES)
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    index = _checked_index(notebook, args)
    require_same_origin("source", args.source, notebook.cells()[index].type)
    if not ctx.lab.proposals.reviews("update"):
        notebook.set_source(index, args.source)
        notebook.record_history(args.cellId, "agent", "edited", ctx.tool)
        return reread(notebook, args.cellId, args.includeSource)
    before = notebook.cells()[index].source
    outcome, reason, proposal_id = await ask_human(
        ctx, notebook, args.cellId, "The agent proposes this change:", diff_lines(before, args.source)
    )
    if outcome == "denied":
        return denied(proposal_id, args.cellId, reason)
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    index = _checked_index(notebook, args)  # a human edit made while it waited still wins
    notebook.set_source(index, args.source)
    notebook.record_history(args.cellId, "agent", "edited", ctx.tool)
    return {**reread(notebook, args.cellId, args.includeSource), "status": "accepted", "proposalId": proposal_id}


class DeleteCellArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook of the cell; the current one when omitted.")
    cellId: str = Field(description="Cell to delete.")
    expectedSourceHash: str = Field(description="sourceHash from your last read of this cell.")


class DeleteCellResult(ProposalOutcome):
    notebook: NotRequired[NotebookInfo]
    deletedCellId: NotRequired[str]
    activeCellId: NotRequired[Optional[str]]
    status: NotRequired[Literal["accepted", "denied"]]


@tool(
    "jupyter_delete_cell",
    "Delete a cell", read_only=False, destructive=True, idempotent=True, consequential=True,
    errors=(*WRITE_ERRORS, ErrorCode.CELL_NOT_FOUND, ErrorCode.CELL_ACCESS_DENIED, ErrorCode.STALE_CELL, ErrorCode.PROPOSAL_ALREADY_PENDING),
)
async def delete_cell(args: DeleteCellArguments, ctx: CallContext) -> DeleteCellResult:
    """Delete a cell, only if it still matches the sourceHash you read; returns the deleted id and the cell now active.

    A cell the human edited since is kept (STALE_CELL, with its current hash
    and a preview). Confirm with the human that the cell should go: only
    they can get it back (JupyterLab's Undo Cell Operation, while the page
    is open), and the saved file keeps it until the next save. In Propose mode
    (get_context.proposeMode), if the human also reviews deletes, the call
    waits for their decision (pending past the call budget): "accepted", or
    PROPOSAL_DENIED with their reason.
    """
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    records = notebook.cells()
    index = find_cell(records, args.cellId, notebook.path, "write")
    stale_message = "Cell changed since it was read; it was not deleted."
    check_hash(records[index], args.expectedSourceHash, stale_message)
    accepted: dict = {}
    if ctx.lab.proposals.reviews("delete"):
        preview = [("removed", line) for line in records[index].source.split("\n")]
        outcome, reason, proposal_id = await ask_human(
            ctx, notebook, args.cellId, "The agent proposes deleting this cell:", preview
        )
        if outcome == "denied":
            return denied(proposal_id, args.cellId, reason)
        accepted = {"status": "accepted", "proposalId": proposal_id}
        records = notebook.cells()
        index = find_cell(records, args.cellId, notebook.path, "write")
        check_hash(records[index], args.expectedSourceHash, stale_message)
    notebook.delete_cell(index)
    remaining = notebook.cells()
    active = notebook.active_index()
    visible_active = active is not None and active < len(remaining) and not remaining[active].hidden
    return {
        "notebook": info_of(notebook, remaining),
        "deletedCellId": args.cellId,
        "activeCellId": remaining[active].id if visible_active else None,
        **accepted,
    }
