"""Reading cells, and the access the owner gave the agent to each."""

from dataclasses import dataclass
from typing import Annotated, Any, Optional, Union

from pydantic import Field
from typing_extensions import TypedDict

from ..base import limits
from ..base.access_levels import VisibleAccess
from ..base.errors import ErrorCode, ToolError
from ..base.fields import (
    CellIdField,
    HiddenCellCountField,
    OmittedCountField,
    PositionIndexField,
    TruncatedField,
)
from ..base.mime import joined
from ..base.shapes import CellSnapshot, NotebookField
from ..base.text import json_object
from ..calls.current import CallContext
from ..calls.envelope import WithImages
from ..calls.paging import RangePage, fit_listing, range_page
from ..calls.schema import Arguments
from ..calls.tool import tool
from ..notebook.arguments import NotebookPath
from ..notebook.provenance import HistoryEntry, history_of
from ..notebook.resolve import READ_ERRORS, find_cell, info_of, read_notebook
from ..notebook.views import cell_snapshot
from ..port import CellList


class GetCellsResult(RangePage):
    notebook: NotebookField
    cells: Annotated[list[CellSnapshot], Field(description="The cells, in notebook order.")]
    truncated: TruncatedField
    omittedCount: OmittedCountField
    hiddenCellCount: HiddenCellCountField


class CellSelection(Arguments):
    notebookPath: NotebookPath = None
    cellIds: Optional[list[str]] = Field(
        None, description="These cells, in this order (instead of a range).",
        json_schema_extra={"maxItems": limits.MAX_CELL_IDS_PER_CALL},
    )
    startIndex: int = Field(0, ge=0, description="nextStartIndex of the previous page.")
    endIndex: Optional[int] = Field(None, ge=0, description=f"End (exclusive); default startIndex + {limits.DEFAULT_CELLS_RETURNED}.")


IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml")


@dataclass(frozen=True)
class Selection:
    indexes: list[int]  # the selected cells the agent may see, in order
    hidden: int  # cells a range withheld because the owner hid them
    range_end: Optional[int]  # the end of the range asked for, or None for explicit ids


def select_cells(records: CellList, args: CellSelection, path: str) -> Selection:
    if args.cellIds is not None:
        return Selection([find_cell(records, cell_id, path) for cell_id in args.cellIds], 0, None)
    end = args.startIndex + limits.DEFAULT_CELLS_RETURNED if args.endIndex is None else args.endIndex
    if end < args.startIndex:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "endIndex must not be before startIndex.", field="endIndex")
    in_range = range(min(args.startIndex, len(records)), min(end, len(records)))
    visible = [index for index in in_range if not records[index].hidden]
    return Selection(visible, len(in_range) - len(visible), min(end, len(records)))


class CellListing(RangePage):
    truncated: bool
    omittedCount: int
    hiddenCellCount: int


def listing(selection: Selection, kept: int, total: int) -> CellListing:
    """truncated / omittedCount (the reference extension's) and hasMore / nextStartIndex (where to continue)."""
    omitted = len(selection.indexes) - kept
    return {
        "truncated": omitted > 0,
        "omittedCount": omitted,
        "hiddenCellCount": selection.hidden,
        **range_page(selection.indexes, kept, selection.range_end, total),
    }


class GetCellsArguments(CellSelection):
    includeSource: bool = True
    includeOutputs: bool = False
    includeImages: bool = Field(
        False,
        description=f"Also return up to {limits.MAX_IMAGES_PER_CALL} output images as image content (implies "
        "includeOutputs).",
    )
    sourceOffset: int = Field(0, ge=0, description="Each source from this character on (to read on: a nextSourceOffset).")


@tool(
    "jupyter_get_cells",
    "Read notebook cells", read_only=True,
    errors=(*READ_ERRORS, ErrorCode.CELL_NOT_FOUND),
)
async def get_cells(
    args: GetCellsArguments, ctx: CallContext
) -> Union[GetCellsResult, WithImages[GetCellsResult]]:
    """Read cells (unsaved edits included): id, type, source, sourceHash (pass it back to edit), and outputs if asked; paged (hasMore, nextStartIndex).

    A source over 25 KiB is cut (sourceTruncated). Cells the human hid from you are only counted. To read the
    whole notebook: jupyter_export_notebook; to find text: jupyter_search_notebook.
    """
    notebook = await read_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    selection = select_cells(records, args, notebook.path)
    candidates = selection.indexes[: limits.MAX_CELLS_RETURNED]
    raw = notebook.cells_json(candidates)
    outputs = args.includeOutputs or args.includeImages
    snapshots = [
        cell_snapshot(cell, index, include_source=args.includeSource, include_outputs=outputs,
                      source_offset=args.sourceOffset)
        for index, cell in zip(candidates, raw)
    ]
    cells = fit_listing(snapshots, limits.MAX_CELLS_RETURNED)
    result: GetCellsResult = {
        "notebook": info_of(notebook, records),
        "cells": cells,
        **listing(selection, len(cells), len(records)),
    }
    if not args.includeImages:
        return result
    return WithImages(result, await _images(ctx, cells, raw))


async def _images(ctx: CallContext, cells: list[CellSnapshot], raw: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The first output images that render within the budget; their media entries say where each went."""
    images: list[dict[str, str]] = []
    for snapshot, cell in zip(cells, raw):
        for shown, output in zip(snapshot.get("outputs", []), cell.get("outputs") or []):
            data = json_object(output.get("data"))
            for media in shown.get("media", []):
                if len(images) == limits.MAX_IMAGES_PER_CALL or media["mimeType"] not in IMAGE_TYPES:
                    continue
                image = await ctx.lab.render_image(media["mimeType"], joined(data.get(media["mimeType"], "")))
                if image is not None:
                    images.append(image)
                    media["included"] = True
                    media["contentIndex"] = len(images)  # content[0] is the JSON text
    return images


class CellAccessSummary(TypedDict):
    cellId: CellIdField
    index: PositionIndexField
    access: Annotated[VisibleAccess, Field(description=(
        "What the owner lets the agent do: write (read, edit, run) or read."))]
    history: Annotated[list[HistoryEntry], Field(description=(
        "The cell's provenance trail, oldest first (at most 20 entries)."))]


class GetCellAccessResult(RangePage):
    notebook: NotebookField
    cells: Annotated[list[CellAccessSummary], Field(description="The cells, in notebook order.")]
    truncated: TruncatedField
    omittedCount: OmittedCountField
    hiddenCellCount: HiddenCellCountField


@tool(
    "jupyter_get_cell_access",
    "Read cell access and history", read_only=True,
    errors=(*READ_ERRORS, ErrorCode.CELL_NOT_FOUND),
)
async def get_cell_access(args: CellSelection, ctx: CallContext) -> GetCellAccessResult:
    """List per cell its access (write: edit and run it; read: only read it) and history (who, human or agent, inserted, edited or ran it, when); paged (hasMore, nextStartIndex).

    Cells the human hid are not listed. Only the human sets access: use it to explain why you leave a cell
    alone.
    """
    notebook = await read_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    selection = select_cells(records, args, notebook.path)
    candidates = selection.indexes[: limits.MAX_CELLS_RETURNED]
    summaries: list[CellAccessSummary] = []
    for index, cell in zip(candidates, notebook.cells_json(candidates)):
        access = records[index].access
        if access != "none":  # always so: a selection holds no hidden cell
            summaries.append(
                {"cellId": records[index].id, "index": index, "access": access, "history": history_of(cell.get("metadata"))}
            )
    cells = fit_listing(summaries, limits.MAX_CELLS_RETURNED)
    return {"notebook": info_of(notebook, records), "cells": cells, **listing(selection, len(cells), len(records))}
