"""Changing cells beside a human: inserting, replacing sources, deleting; every write guarded by the
sourceHash the agent read and reviewed by the human in Propose mode (the kit's guarded write)."""

from typing import Annotated, Any

from pydantic import Field, model_validator
from typing_extensions import NotRequired

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.fields import STATUS_MEANING
from ..base.shapes import (
    CELL_TYPES,
    CellType,
    DiffKind,
    NotebookField,
    Outcome,
    Placement,
    ProposalOutcome,
    is_cell_type,
)
from ..calls.current import CallContext
from ..calls.schema import Arguments
from ..calls.tool import tool
from ..notebook.arguments import (
    CellId,
    CellSource,
    ExpectedSourceHash,
    NotebookPath,
    OverwriteUnread,
)
from ..notebook.guarded_write import Plan, check_source, reviewed_write
from ..notebook.provenance import record_history
from ..notebook.resolve import (
    CHANGE_ERRORS,
    WRITE_ERRORS,
    active_cell,
    find_cell,
    info_of,
)
from ..notebook.source_edits import (
    CellResult,
    CellsResult,
    SourceEdit,
    check_written_source,
    write_sources,
    written,
    written_refs,
)
from ..port import NOTEBOOK_END, NotebookPort


def checked_type(cell_type: str) -> CellType:
    if not is_cell_type(cell_type):
        raise ToolError(
            ErrorCode.INVALID_CELL_TYPE,
            f'Cell type "{cell_type}" is not one of {", ".join(CELL_TYPES)}.',
            cellType=cell_type,
        )
    return cell_type


# Inserting -------------------------------------------------------------------------------------


class NewCell(Arguments):
    cellType: str = Field("code", json_schema_extra={"enum": list(CELL_TYPES)})
    source: CellSource = ""


class InsertCellArguments(Arguments):
    notebookPath: NotebookPath = None
    referenceCellId: str | None = Field(None, description="Default: the active cell, else the end.")
    position: Placement = "below"
    cellType: str = Field("code", json_schema_extra={"enum": list(CELL_TYPES)})
    source: CellSource = ""
    cells: list[NewCell] | None = Field(
        None,
        description="Several new cells, in order (not with cellType, source).",
        min_length=1,
        max_length=limits.MAX_CELL_IDS_PER_CALL,
    )
    activate: bool = Field(True, description="Make it active (markdown rendered).")


def _new_cells(args: InsertCellArguments) -> list[tuple[CellType, str]]:
    if args.cells is None:
        return [(checked_type(args.cellType), args.source)]
    if "cellType" in args.model_fields_set or "source" in args.model_fields_set:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "Give cells, or cellType and source: not both.", field="cells")
    return [(checked_type(cell.cellType), cell.source) for cell in args.cells]


@tool(
    "jupyter_insert_cell",
    "Insert cells", read_only=False, destructive=False, idempotent=False, reviewed=True,
    errors=(*WRITE_ERRORS, ErrorCode.CELL_NOT_FOUND, ErrorCode.INVALID_CELL_TYPE, ErrorCode.PROPOSAL_ALREADY_PENDING),
)
async def insert_cell(args: InsertCellArguments, ctx: CallContext) -> CellResult | CellsResult:
    """Insert a cell, or several (cells), above or below a reference cell; returns each new cell's id and sourceHash.

    Not run: use jupyter_run_cells.
    """
    new = _new_cells(args)
    for number, (cell_type, source) in enumerate(new):
        check_written_source("source" if args.cells is None else f"cells.{number}.source", source, cell_type)

    reference_id = args.referenceCellId  # fixed at the first check: the active cell may move while the human decides

    def plan(notebook: NotebookPort) -> Plan[CellResult | CellsResult]:
        nonlocal reference_id
        records = notebook.cells()
        if reference_id is None:
            active = active_cell(notebook, records)
            reference_id = NOTEBOOK_END if active is None else records[active].id
        if reference_id == NOTEBOOK_END or not records:  # an empty notebook takes the cells whatever the reference
            index, anchor, where = len(records), NOTEBOOK_END, "at the end of the notebook"
        elif args.referenceCellId is None and not any(r.id == reference_id and not r.hidden for r in records):
            raise ToolError(ErrorCode.CELL_NOT_FOUND, "The active cell this insert was placed by is gone; nothing was inserted.")
        else:
            reference = find_cell(records, reference_id, notebook.path)
            index = reference if args.position == "above" else reference + 1
            anchor, where = records[reference].id, f"{args.position} this one"

        def apply() -> CellResult | CellsResult:
            ids = notebook.insert_cells(index, new)
            for cell_id in ids:
                record_history(notebook, cell_id, "agent", "inserted", ctx.tool)
            if args.activate:
                notebook.activate_cell(index, render_markdown=bool(new[0][1]))
            return written(notebook, ids[0]) if args.cells is None else written_refs(notebook, ids)

        what = f"a new {new[0][0]} cell" if len(new) == 1 else f"{len(new)} new cells"
        return Plan(
            anchor,
            f"The agent proposes {what} {where}:",
            lambda: [("added", line) for _, source in new for line in source.split("\n")],
            apply,
        )

    return await reviewed_write(ctx, args.notebookPath, "insert", plan)


# Replacing sources -----------------------------------------------------------------------------


class SourceChange(Arguments):
    source: CellSource = Field(description="The complete new source.")
    expectedSourceHash: ExpectedSourceHash
    cellType: CellType | None = Field(None, description="Also change the cell's type.")
    overwriteUnread: OverwriteUnread = False


class CellTarget(Arguments):
    notebookPath: NotebookPath = None
    cellId: CellId


class UpdateCellArguments(SourceChange, CellTarget):
    pass


def source_edit(cell_id: str, edit: SourceChange, field: str = "") -> SourceEdit:
    return SourceEdit(cell_id, edit.source, edit.expectedSourceHash, edit.cellType, edit.overwriteUnread, field)


@tool(
    "jupyter_update_cell",
    "Update a cell", read_only=False, destructive=True, idempotent=True, reviewed=True,
    errors=(*CHANGE_ERRORS, ErrorCode.PARTIAL_READ),
)
async def update_cell(args: UpdateCellArguments, ctx: CallContext) -> CellResult:
    """Replace a cell's whole source, if it still matches the sourceHash you read; returns the cell with its new sourceHash.

    For a few lines, jupyter_replace_in_cell sends less; for several cells, jupyter_update_cells.
    """
    return await write_sources(ctx, args.notebookPath, [source_edit(args.cellId, args)], lambda notebook, ids: written(notebook, ids[0]))


class UpdateCellsArguments(Arguments):
    notebookPath: NotebookPath = None
    cells: dict[str, SourceChange] = Field(
        description="The edits, by cell id.",
        min_length=1,
        max_length=limits.MAX_CELL_IDS_PER_CALL,
    )
    also_taken = "`cells` as a list of `{cellId, source, expectedSourceHash, cellType?, overwriteUnread?}`."

    @model_validator(mode="before")
    @classmethod
    def _listed_edits(cls, raw: Any) -> Any:
        """`cells` as the earlier list of {cellId, ...} edits, still taken: keyed by their cellId."""
        edits = raw.get("cells") if isinstance(raw, dict) else None
        if not isinstance(edits, list):
            return raw
        keyed: dict[Any, Any] = {}
        for number, edit in enumerate(edits):
            if not isinstance(edit, dict) or not isinstance(edit.get("cellId"), str):
                raise ToolError(ErrorCode.INVALID_ARGUMENT, f'Missing required argument "cells.{number}.cellId".',
                                field=f"cells.{number}.cellId")
            if edit["cellId"] in keyed:
                raise ToolError(ErrorCode.INVALID_ARGUMENT, f'Cell "{edit["cellId"]}" is given twice.',
                                field=f"cells.{number}.cellId")
            keyed[edit["cellId"]] = {key: value for key, value in edit.items() if key != "cellId"}
        return {**raw, "cells": keyed}


@tool(
    "jupyter_update_cells",
    "Update several cells", read_only=False, destructive=True, idempotent=True, reviewed=True,
    errors=(*CHANGE_ERRORS, ErrorCode.PARTIAL_READ),
)
async def update_cells(args: UpdateCellsArguments, ctx: CallContext) -> CellsResult:
    """Replace the whole sources of several cells in one step, each guarded by its own sourceHash; returns each cell's new sourceHash.

    All or nothing: one stale hash or refused cell, and nothing is written. It deletes no cell
    (jupyter_delete_cell does).
    """
    edits = [source_edit(cell_id, edit, f"cells.{cell_id}.") for cell_id, edit in args.cells.items()]
    return await write_sources(ctx, args.notebookPath, edits, written_refs)


# Deleting --------------------------------------------------------------------------------------


class DeleteCellArguments(Arguments):
    notebookPath: NotebookPath = None
    cellId: CellId
    expectedSourceHash: ExpectedSourceHash


class DeleteCellResult(ProposalOutcome):
    notebook: NotRequired[NotebookField]
    deletedCellId: NotRequired[Annotated[str, Field(description="The id of the cell that was deleted.")]]
    activeCellId: NotRequired[Annotated[str | None, Field(description=(
        "The active cell's id (null when none)."))]]
    status: NotRequired[Annotated[Outcome, Field(description=STATUS_MEANING)]]


@tool(
    "jupyter_delete_cell",
    "Delete a cell", read_only=False, destructive=True, idempotent=True, consequential=True, reviewed=True,
    errors=CHANGE_ERRORS,
)
async def delete_cell(args: DeleteCellArguments, ctx: CallContext) -> DeleteCellResult:
    """Delete a cell, if it still matches the sourceHash you read; returns the deleted id and the active cell.

    Ask the human first: only they can undo it. To change cells instead: jupyter_update_cells; to remark on
    one: jupyter_create_comment.
    """

    def plan(notebook: NotebookPort) -> Plan[DeleteCellResult]:
        records = notebook.cells()
        index = find_cell(records, args.cellId, notebook.path, "write")
        check_source(records[index], args.expectedSourceHash, "Cell changed since it was read; it was not deleted.")

        def apply() -> DeleteCellResult:
            notebook.delete_cell(index)
            remaining = notebook.cells()
            active = active_cell(notebook, remaining)
            return {
                "notebook": info_of(notebook, remaining),
                "deletedCellId": args.cellId,
                "activeCellId": None if active is None else remaining[active].id,
            }

        def preview() -> list[tuple[DiffKind, str]]:
            return [("removed", line) for line in records[index].source.split("\n")]

        return Plan(args.cellId, "The agent proposes deleting this cell:", preview, apply)

    return await reviewed_write(ctx, args.notebookPath, "delete", plan)
