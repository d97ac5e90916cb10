"""Small, guarded edits to one cell: replace one piece of its source; move it, change its type, clear its outputs.

Each is checked against the sourceHash the agent read, recorded in the cell's
provenance, and reviewed by the human in Propose mode like an update.
"""

from typing import Callable, Literal, Optional

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
from ..shapes import CellType, DiffKind, NotebookInfo, ProposalOutcome
from .editing import check_hash

EDIT_ERRORS = (
    *WRITE_ERRORS,
    ErrorCode.CELL_NOT_FOUND,
    ErrorCode.CELL_ACCESS_DENIED,
    ErrorCode.STALE_CELL,
    ErrorCode.PROPOSAL_ALREADY_PENDING,
)


class CellRef(TypedDict):
    """A changed cell as the agent needs it next: where it is and the hash to change it again."""

    id: str
    index: int
    type: str
    sourceHash: str


class EditResult(ProposalOutcome):
    notebook: NotRequired[NotebookInfo]
    cell: NotRequired[CellRef]
    status: NotRequired[Literal["accepted", "denied"]]


class GuardedArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook of the cell; the current one when omitted.")
    cellId: str = Field(description="The cell to change.")
    expectedSourceHash: str = Field(description="sourceHash from your last read of this cell.")


def _checked(notebook: NotebookPort, args: GuardedArguments) -> int:
    records = notebook.cells()
    index = find_cell(records, args.cellId, notebook.path, "write")
    check_hash(records[index], args.expectedSourceHash, "Cell changed since it was read; nothing was changed.")
    return index


def _changed(notebook: NotebookPort, cell_id: str) -> dict:
    records = notebook.cells()
    index = find_cell(records, cell_id, notebook.path)
    record = records[index]
    return {
        "notebook": info_of(notebook, records),
        "cell": {"id": record.id, "index": index, "type": record.type, "sourceHash": record.source_hash},
    }


async def _guarded_edit(
    ctx: CallContext,
    args: GuardedArguments,
    title: str,
    preview: Callable[[NotebookPort, int], list[tuple[DiffKind, str]]],
    apply: Callable[[NotebookPort, int], None],
) -> EditResult:
    """Check, let the human review it if they do (Propose mode), check again, apply, record."""
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    index = _checked(notebook, args)
    accepted: dict = {}
    if ctx.lab.proposals.reviews("update"):
        outcome, reason, proposal_id = await ask_human(ctx, notebook, args.cellId, title, preview(notebook, index))
        if outcome == "denied":
            return denied(proposal_id, args.cellId, reason)  # type: ignore[return-value]
        notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
        index = _checked(notebook, args)  # a human edit made while it waited still wins
        accepted = {"status": "accepted", "proposalId": proposal_id}
    apply(notebook, index)
    notebook.record_history(args.cellId, "agent", "edited", ctx.tool)
    return {**_changed(notebook, args.cellId), **accepted}  # type: ignore[typeddict-item]


class ReplaceArguments(GuardedArguments):
    old: str = Field(
        description="Exact text to replace; it must occur exactly once in the cell's source.",
        json_schema_extra=text_bound(limits.MAX_CELL_SOURCE_WRITE_BYTES),
    )
    new: str = Field(
        description="Text to put in its place (may be empty).",
        json_schema_extra=text_bound(limits.MAX_CELL_SOURCE_WRITE_BYTES),
    )


def replaced(source: str, old: str, new: str) -> str:
    """The source with its one occurrence of `old` replaced; INVALID_ARGUMENT with the count otherwise."""
    if not old:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "old must not be empty.", field="old")
    occurrences = source.count(old)
    if occurrences != 1:
        detail = "TEXT_NOT_FOUND" if occurrences == 0 else "TEXT_NOT_UNIQUE"
        where = "does not occur" if occurrences == 0 else f"occurs {occurrences} times"
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"old {where} in the cell's source; it must occur exactly once (include more context to make it unique).",
            field="old",
            detail=detail,
            occurrences=occurrences,
        )
    result = source.replace(old, new, 1)
    require_max_bytes("new", result, limits.MAX_CELL_SOURCE_WRITE_BYTES)
    return result


@tool(
    "jupyter_replace_in_cell",
    "Replace text in a cell",
    read_only=False,
    destructive=True,
    idempotent=True,
    errors=EDIT_ERRORS,
)
async def replace_in_cell(args: ReplaceArguments, ctx: CallContext) -> EditResult:
    """Replace one exact, unique piece of a cell's source, only if the cell still matches the sourceHash you read; returns the cell's new sourceHash.

    Use it to change a line or two of a long cell without sending the whole
    source (jupyter_update_cell replaces all of it). `old` must occur exactly
    once: none or several occurrences are INVALID_ARGUMENT with the count (add
    context to make it unique). Changed cells must stay under 256 KiB. Does
    not run or save. In Propose mode the human reviews it like an update.
    """
    require_max_bytes("old", args.old, limits.MAX_CELL_SOURCE_WRITE_BYTES)
    require_max_bytes("new", args.new, limits.MAX_CELL_SOURCE_WRITE_BYTES)

    def new_source(notebook: NotebookPort, index: int) -> str:
        record = notebook.cells()[index]
        result = replaced(record.source, args.old, args.new)
        require_same_origin("new", result, record.type)
        return result

    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    new_source(notebook, _checked(notebook, args))  # refuse a missing or ambiguous match before anything else
    return await _guarded_edit(
        ctx,
        args,
        "The agent proposes this change:",
        lambda notebook, index: diff_lines(notebook.cells()[index].source, new_source(notebook, index)),
        lambda notebook, index: notebook.set_source(index, new_source(notebook, index)),
    )


class MoveArgument(Arguments):
    referenceCellId: str = Field(description="Move next to this cell.")
    position: Literal["above", "below"] = Field("below", description="Side of the reference cell.")


class ChangeCellArguments(GuardedArguments):
    moveTo: Optional[MoveArgument] = Field(None, description="Move the cell above or below another cell.")
    cellType: Optional[CellType] = Field(None, description="Change the cell's type (its source and id are kept).")
    clearOutputs: bool = Field(False, description="Clear a code cell's outputs and execution count.")


@tool(
    "jupyter_change_cell",
    "Move a cell, change its type or clear its outputs",
    read_only=False,
    destructive=True,
    idempotent=True,
    errors=EDIT_ERRORS,
)
async def change_cell(args: ChangeCellArguments, ctx: CallContext) -> EditResult:
    """Move a cell next to another, change its type (code, markdown, raw) or clear its outputs, only if it still matches the sourceHash you read; returns where it is now.

    Use it to reorder cells, turn code into markdown (or back), or drop
    stale outputs, without resending the source; to change the text use
    jupyter_update_cell or jupyter_replace_in_cell. Give at least one of
    moveTo, cellType, clearOutputs; they apply together. The cell keeps its
    id and source. Cleared outputs come back only by running the cell again.
    In Propose mode the human reviews it like an update. The reference cell
    of a move must be one you can see.
    """
    if args.moveTo is None and args.cellType is None and not args.clearOutputs:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, "Give moveTo, cellType or clearOutputs: nothing to change.", field="moveTo"
        )
    described = []
    if args.cellType is not None:
        described.append(f"make it a {args.cellType} cell")
    if args.clearOutputs:
        described.append("clear its outputs")
    if args.moveTo is not None:
        described.append(f"move it {args.moveTo.position} cell {args.moveTo.referenceCellId}")

    def apply(notebook: NotebookPort, index: int) -> None:
        if args.cellType is not None and notebook.cells()[index].type != args.cellType:
            notebook.set_cell_type(index, args.cellType)
        if args.clearOutputs and notebook.cells()[index].type == "code":
            notebook.clear_outputs(index)
        if args.moveTo is not None:
            records = notebook.cells()
            reference = find_cell(records, args.moveTo.referenceCellId, notebook.path)
            target = reference if args.moveTo.position == "above" else reference + 1
            notebook.move_cell(index, target - 1 if target > index else target)

    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    if args.moveTo is not None:  # refuse an unknown reference before anything else
        find_cell(notebook.cells(), args.moveTo.referenceCellId, notebook.path)
    if args.cellType is not None:  # the source shown as markdown from now on
        require_same_origin("cellType", notebook.cells()[_checked(notebook, args)].source, args.cellType)
    return await _guarded_edit(
        ctx,
        args,
        f"The agent proposes to {' and '.join(described)}:",
        lambda notebook, index: [("same", line) for line in notebook.cells()[index].source.split("\n")[:5]],
        apply,
    )
