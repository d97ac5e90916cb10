"""Reading cells, and the access the owner gave the agent to each."""

from typing import Literal, Optional

from pydantic import Field
from typing_extensions import TypedDict

from .. import limits
from ..errors import ErrorCode, ToolError
from ..shapes import CellSnapshot, NotebookInfo
from ..notebooks import find_cell, info_of, resolve_notebook
from ..provenance import HistoryEntry, history_of
from ..registry import CallContext, tool
from ..schema import Arguments
from ..views import CellRecord, cell_snapshot


class GetCellsResult(TypedDict):
    notebook: NotebookInfo
    cells: list[CellSnapshot]
    truncated: bool
    omittedCount: int
    hiddenCellCount: int


class CellSelection(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook to read; the current one when omitted.")
    cellIds: Optional[list[str]] = Field(None, description="Exact cells to read, in this order; wins over the range.")
    startIndex: int = Field(0, ge=0, description="First index of the range (inclusive).")
    endIndex: Optional[int] = Field(
        None, ge=0, description=f"End of the range (exclusive); startIndex + {limits.DEFAULT_CELLS_RETURNED} when omitted."
    )


def select_cells(records: list[CellRecord], args: CellSelection, path: str) -> tuple[list[int], int]:
    """Indexes of the selected cells the agent may see, and how many a range withheld."""
    if args.cellIds is not None:
        return [find_cell(records, cell_id, path) for cell_id in args.cellIds], 0
    end = args.startIndex + limits.DEFAULT_CELLS_RETURNED if args.endIndex is None else args.endIndex
    if end < args.startIndex:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "endIndex must not be before startIndex.", field="endIndex")
    in_range = range(min(args.startIndex, len(records)), min(end, len(records)))
    visible = [index for index in in_range if not records[index].hidden]
    return visible, len(in_range) - len(visible)


class GetCellsArguments(CellSelection):
    includeSource: bool = Field(True, description="Include each cell's source.")
    includeOutputs: bool = Field(False, description="Include bounded outputs of code cells.")


@tool("jupyter_get_cells", "Read notebook cells", read_only=True)
async def get_cells(args: GetCellsArguments, ctx: CallContext) -> GetCellsResult:
    """Read cells from the live notebook, unsaved edits included, each with its stable id and sourceHash.

    Pass the sourceHash back to edit or delete that cell. Select exact cells
    by id or an index range (20 cells by default, at most 100); outputs are
    bounded and only included when asked for.
    """
    notebook = await resolve_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    wanted, hidden = select_cells(records, args, notebook.path)
    kept = wanted[: limits.MAX_CELLS_RETURNED]
    cells = [
        cell_snapshot(cell, index, include_source=args.includeSource, include_outputs=args.includeOutputs)
        for index, cell in zip(kept, notebook.cells_json(kept))
    ]
    return {
        "notebook": info_of(notebook, records),
        "cells": cells,
        "truncated": len(wanted) > len(kept),
        "omittedCount": len(wanted) - len(kept),
        "hiddenCellCount": hidden,
    }


class CellAccessSummary(TypedDict):
    cellId: str
    index: int
    access: Literal["write", "read"]
    history: list[HistoryEntry]


class GetCellAccessResult(TypedDict):
    notebook: NotebookInfo
    cells: list[CellAccessSummary]
    truncated: bool
    omittedCount: int
    hiddenCellCount: int


@tool("jupyter_get_cell_access", "Read cell agent access", read_only=True)
async def get_cell_access(args: CellSelection, ctx: CallContext) -> GetCellAccessResult:
    """Report what the notebook's owner lets you do with each cell (write or read) and who last changed or ran it.

    Cells the owner hid are not listed, only counted in hiddenCellCount.
    Only the human sets access, from the cell's context menu or the Agent
    panel; use this to explain why you leave a cell alone.
    """
    notebook = await resolve_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    wanted, hidden = select_cells(records, args, notebook.path)
    kept = wanted[: limits.MAX_CELLS_RETURNED]
    return {
        "notebook": info_of(notebook, records),
        "cells": [
            {
                "cellId": records[index].id,
                "index": index,
                "access": records[index].access,
                "history": history_of(cell.get("metadata")),
            }
            for index, cell in zip(kept, notebook.cells_json(kept))
        ],
        "truncated": len(wanted) > len(kept),
        "omittedCount": len(wanted) - len(kept),
        "hiddenCellCount": hidden,
    }
