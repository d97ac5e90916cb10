"""Reading cells from the live notebook model."""

from typing import Optional

from pydantic import Field
from typing_extensions import TypedDict

from .. import limits
from ..errors import ErrorCode, ToolError
from ..models import CellSnapshot, NotebookInfo
from ..notebooks import cell_index, resolve_notebook
from ..registry import CallContext, tool
from ..schema import Arguments
from ..snapshots import cell_snapshot, notebook_info


class GetCellsArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook to read; the current one when omitted.")
    cellIds: Optional[list[str]] = Field(None, description="Exact cells to read, in this order; wins over the range.")
    startIndex: int = Field(0, ge=0, description="First index of the range (inclusive).")
    endIndex: Optional[int] = Field(
        None, ge=0, description=f"End of the range (exclusive); startIndex + {limits.DEFAULT_CELLS_RETURNED} when omitted."
    )
    includeSource: bool = Field(True, description="Include each cell's source.")
    includeOutputs: bool = Field(False, description="Include bounded outputs of code cells.")


class GetCellsResult(TypedDict):
    notebook: NotebookInfo
    cells: list[CellSnapshot]
    truncated: bool
    omittedCount: int
    hiddenCellCount: int


@tool("jupyter_get_cells", "Read notebook cells", read_only=True)
async def get_cells(args: GetCellsArguments, ctx: CallContext) -> GetCellsResult:
    """Read cells from the live notebook, unsaved edits included, each with its stable id and sourceHash.

    Pass the sourceHash back to edit or delete that cell. Select exact cells
    by id or an index range (20 cells by default, at most 100); outputs are
    bounded and only included when asked for.
    """
    notebook = await resolve_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    if args.cellIds is not None:
        wanted = [cell_index(records, cell_id, notebook.path) for cell_id in args.cellIds]
    else:
        end = args.startIndex + limits.DEFAULT_CELLS_RETURNED if args.endIndex is None else args.endIndex
        if end < args.startIndex:
            raise ToolError(
                ErrorCode.INVALID_ARGUMENT, "endIndex must not be before startIndex.", field="endIndex"
            )
        wanted = list(range(min(args.startIndex, len(records)), min(end, len(records))))
    kept = wanted[: limits.MAX_CELLS_RETURNED]
    cells = [
        cell_snapshot(
            notebook.cell_json(index), index, include_source=args.includeSource, include_outputs=args.includeOutputs
        )
        for index in kept
    ]
    return {
        "notebook": notebook_info(notebook.path, notebook.dirty, records),
        "cells": cells,
        "truncated": len(wanted) > len(kept),
        "omittedCount": len(wanted) - len(kept),
        "hiddenCellCount": 0,
    }
