"""Small edits that resend no source: replace one piece of a cell's source, move a cell, clear outputs.

Each goes through the guarded, reviewable write (kit.reviewed_write) and is recorded in the cell's provenance.
"""

from typing import Annotated

from pydantic import Field
from typing_extensions import NotRequired

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.fields import STATUS_MEANING
from ..base.shapes import (
    CellRef,
    NotebookField,
    Outcome,
    Placement,
    ProposalOutcome,
)
from ..calls.current import CallContext
from ..calls.schema import Arguments
from ..calls.tool import tool
from ..notebook.arguments import CellId, CellSource, ExpectedSourceHash, NotebookPath
from ..notebook.guarded_write import Plan, check_source, reviewed_write
from ..notebook.propose import diff_lines
from ..notebook.provenance import record_history
from ..notebook.resolve import CHANGE_ERRORS, WRITE_ERRORS, find_cell, info_of
from ..notebook.source_edits import STALE_SOURCE, check_written_source
from ..notebook.views import cell_ref
from ..port import NotebookPort


class EditResult(ProposalOutcome):
    notebook: NotRequired[NotebookField]
    cell: NotRequired[CellRef]
    status: NotRequired[Annotated[Outcome, Field(description=STATUS_MEANING)]]


def changed(notebook: NotebookPort, cell_id: str) -> EditResult:
    records = notebook.cells()
    return {"notebook": info_of(notebook, records), "cell": cell_ref(records, cell_id)}


class ReplaceArguments(Arguments):
    notebookPath: NotebookPath = None
    cellId: CellId
    expectedSourceHash: ExpectedSourceHash
    old: CellSource = Field(description="Exact text to replace; it must occur once in the source.")
    new: CellSource = Field("", description="Its replacement; default empty (old is deleted).")


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
    return source.replace(old, new, 1)


@tool("jupyter_replace_in_cell", "Replace text in a cell", read_only=False, destructive=True, idempotent=True,
      reviewed=True, errors=CHANGE_ERRORS)
async def replace_in_cell(args: ReplaceArguments, ctx: CallContext) -> EditResult:
    """Replace one exact, unique piece of a cell's source, if the cell still matches your sourceHash; returns its new sourceHash.

    For a small edit, or a cell read in part; to rewrite a cell: jupyter_update_cell. Outputs stay
    (jupyter_clear_outputs clears them).
    """

    def plan(notebook: NotebookPort) -> Plan[EditResult]:
        records = notebook.cells()
        index = find_cell(records, args.cellId, notebook.path, "write")
        record = records[index]
        check_source(record, args.expectedSourceHash, STALE_SOURCE)
        source = replaced(record.source, args.old, args.new)
        check_written_source("new", source, record.type)

        def apply() -> EditResult:
            notebook.set_source(index, source)
            record_history(notebook, args.cellId, "agent", "edited", ctx.tool)
            return changed(notebook, args.cellId)

        return Plan(args.cellId, "The agent proposes this change:", lambda: diff_lines(record.source, source), apply)

    return await reviewed_write(ctx, args.notebookPath, "update", plan)


class MoveCellArguments(Arguments):
    notebookPath: NotebookPath = None
    cellId: CellId
    referenceCellId: str = Field(description="Move it next to this cell.")
    position: Placement = "below"
    expectedSourceHash: str | None = Field(None, description="If given, move only if the cell still matches it.")


@tool("jupyter_move_cell", "Move a cell", read_only=False, destructive=False, idempotent=True, reviewed=True,
      errors=CHANGE_ERRORS)
async def move_cell(args: MoveCellArguments, ctx: CallContext) -> EditResult:
    """Move a cell above or below another cell, keeping its id, source and outputs; returns its new index.

    To change a cell's text, use jupyter_update_cell.
    """

    def plan(notebook: NotebookPort) -> Plan[EditResult]:
        records = notebook.cells()
        index = find_cell(records, args.cellId, notebook.path, "write")
        if args.expectedSourceHash is not None:
            check_source(records[index], args.expectedSourceHash, STALE_SOURCE)
        reference = find_cell(records, args.referenceCellId, notebook.path)
        target = reference if args.position == "above" else reference + 1

        def apply() -> EditResult:
            notebook.move_cell(index, target - 1 if target > index else target)
            record_history(notebook, args.cellId, "agent", "edited", ctx.tool)
            return changed(notebook, args.cellId)

        lines = records[index].source.split("\n")[:5]
        title = f"The agent proposes moving this cell {args.position} cell {reference + 1}:"
        return Plan(args.cellId, title, lambda: [("same", line) for line in lines], apply)

    return await reviewed_write(ctx, args.notebookPath, "update", plan)


class ClearOutputsArguments(Arguments):
    notebookPath: NotebookPath = None
    cellIds: list[str] | None = Field(
        None,
        description="Default: every code cell you may change.",
        min_length=1,
        max_length=limits.MAX_CELL_IDS_PER_CALL,
    )


class ClearOutputsResult(ProposalOutcome):
    notebook: NotRequired[NotebookField]
    clearedCellIds: NotRequired[Annotated[list[str], Field(description="The code cells whose outputs were cleared.")]]
    status: NotRequired[Annotated[Outcome, Field(description=STATUS_MEANING)]]


@tool("jupyter_clear_outputs", "Clear outputs", read_only=False, destructive=True, idempotent=True, reviewed=True,
      errors=(*WRITE_ERRORS, ErrorCode.CELL_NOT_FOUND, ErrorCode.CELL_ACCESS_DENIED, ErrorCode.PROPOSAL_ALREADY_PENDING))
async def clear_outputs(args: ClearOutputsArguments, ctx: CallContext) -> ClearOutputsResult:
    """Clear the outputs and execution counts of code cells; returns the ids of the cells cleared.

    For stale or bulky outputs; a run brings them back. Sources stay (to edit one: jupyter_replace_in_cell).
    """

    def plan(notebook: NotebookPort) -> Plan[ClearOutputsResult]:
        records = notebook.cells()
        if args.cellIds is None:
            indexes = [i for i, record in enumerate(records) if record.type == "code" and record.access == "write"]
        else:
            indexes = [find_cell(records, cell_id, notebook.path, "write") for cell_id in args.cellIds]
            indexes = [index for index in indexes if records[index].type == "code"]

        def clear() -> None:
            for index in indexes:
                notebook.clear_outputs(index)

        def apply() -> ClearOutputsResult:
            notebook.transact(clear)
            return {"notebook": info_of(notebook), "clearedCellIds": [records[index].id for index in indexes]}

        anchor = records[indexes[0]].id if indexes else None
        cells = "this cell" if len(indexes) == 1 else f"{len(indexes)} cells, starting here"
        title = f"The agent proposes clearing the outputs of {cells}:"
        return Plan(anchor, title, lambda: [("same", f"cell {index + 1}") for index in indexes], apply)

    return await reviewed_write(ctx, args.notebookPath, "update", plan)
