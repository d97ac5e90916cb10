"""Reading cells, and the access the owner gave the agent to each."""

from dataclasses import dataclass
from typing import Literal, Optional

from pydantic import Field
from typing_extensions import TypedDict

from .. import limits
from ..envelope import WithImages
from ..errors import ErrorCode, ToolError
from ..notebooks import READ_ERRORS, find_cell, info_of, read_notebook
from ..outputs import joined
from ..paging import RangePage, fit, range_page
from ..provenance import HistoryEntry, history_of
from ..registry import CallContext, tool
from ..schema import Arguments
from ..shapes import CellSnapshot, NotebookInfo
from ..views import CellList, cell_snapshot


class GetCellsResult(RangePage):
    notebook: NotebookInfo
    cells: list[CellSnapshot]
    truncated: bool
    omittedCount: int
    hiddenCellCount: int


class CellSelection(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook to read; the current one when omitted.")
    cellIds: Optional[list[str]] = Field(
        None,
        description="Exact cells to read, in this order; wins over the range.",
        json_schema_extra={"maxItems": limits.MAX_CELL_IDS_PER_CALL},
    )
    startIndex: int = Field(0, ge=0, description="First index of the range (inclusive).")
    endIndex: Optional[int] = Field(
        None, ge=0, description=f"End of the range (exclusive); startIndex + {limits.DEFAULT_CELLS_RETURNED} when omitted."
    )


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


def listing(selection: Selection, kept: int, total: int) -> dict:
    """truncated / omittedCount (the seed's) and hasMore / nextStartIndex (where to continue)."""
    omitted = len(selection.indexes) - kept
    return {
        "truncated": omitted > 0,
        "omittedCount": omitted,
        "hiddenCellCount": selection.hidden,
        **range_page(selection.indexes, kept, selection.range_end, total),
    }


class GetCellsArguments(CellSelection):
    includeSource: bool = Field(True, description="Include each cell's source.")
    includeOutputs: bool = Field(False, description="Include bounded outputs of code cells.")
    includeImages: bool = Field(
        False,
        description=f"Also return up to {limits.MAX_IMAGES_PER_CALL} output images (PNG, JPEG, GIF, WebP, SVG) as "
        f"image content, downscaled to {limits.MAX_IMAGE_SIDE_PX} px and {limits.MAX_IMAGE_BYTES // limits.KIB} KB; "
        "implies includeOutputs.",
    )


@tool(
    "jupyter_get_cells",
    "Read notebook cells", read_only=True,
    errors=(*READ_ERRORS, ErrorCode.CELL_NOT_FOUND),
)
async def get_cells(args: GetCellsArguments, ctx: CallContext) -> GetCellsResult:
    """Read a notebook's cells (unsaved edits included): id, type, source, sourceHash and, if asked, outputs; paged with hasMore and nextStartIndex.

    Use it to read cells before changing or running them (for one document
    of the whole notebook use jupyter_export_notebook; to find text,
    jupyter_search_notebook). Pass a cell's sourceHash back to edit or
    delete it. Select exact cells by cellIds, or an index range: 20 cells
    from startIndex by default, at most 100 and about 46 KiB per call; when
    more exist, hasMore is true and nextStartIndex says where to continue.
    Sources are cut at 25 KiB; outputs (only with includeOutputs) at 10
    outputs and 10 KiB of text each. Cells the owner hid are left out and
    counted in hiddenCellCount. A notebook that is not open is read from its
    file without opening it.
    """
    notebook = await read_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    selection = select_cells(records, args, notebook.path)
    candidates = selection.indexes[: limits.MAX_CELLS_RETURNED]
    raw = notebook.cells_json(candidates)
    outputs = args.includeOutputs or args.includeImages
    snapshots = [
        cell_snapshot(cell, index, include_source=args.includeSource, include_outputs=outputs)
        for index, cell in zip(candidates, raw)
    ]
    cells = fit(snapshots, limits.MAX_CELLS_RETURNED)
    result = {"notebook": info_of(notebook, records), "cells": cells, **listing(selection, len(cells), len(records))}
    if not args.includeImages:
        return result
    return WithImages(result, await _images(ctx, cells, raw))


async def _images(ctx: CallContext, cells: list[CellSnapshot], raw: list[dict]) -> list[dict[str, str]]:
    """The first output images that render within the budget; their media entries say where each went."""
    images: list[dict[str, str]] = []
    for snapshot, cell in zip(cells, raw):
        for shown, output in zip(snapshot.get("outputs", []), cell.get("outputs") or []):
            data = output.get("data") if isinstance(output.get("data"), dict) else {}
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
    cellId: str
    index: int
    access: Literal["write", "read"]
    history: list[HistoryEntry]


class GetCellAccessResult(RangePage):
    notebook: NotebookInfo
    cells: list[CellAccessSummary]
    truncated: bool
    omittedCount: int
    hiddenCellCount: int


@tool(
    "jupyter_get_cell_access",
    "Read cell agent access", read_only=True,
    errors=(*READ_ERRORS, ErrorCode.CELL_NOT_FOUND),
)
async def get_cell_access(args: CellSelection, ctx: CallContext) -> GetCellAccessResult:
    """Report, per cell, what the notebook's owner lets you do (write or read) and who changed or ran it: {cellId, index, access, history}, paged.

    Use it to explain why you leave a cell alone: only the human sets access,
    from the cell's context menu or the Agent panel. Cells the owner hid are
    not listed, only counted in hiddenCellCount. Selection and paging as in
    jupyter_get_cells (20 cells by default, at most 100; hasMore and
    nextStartIndex); each history holds at most 20 entries.
    """
    notebook = await read_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    selection = select_cells(records, args, notebook.path)
    candidates = selection.indexes[: limits.MAX_CELLS_RETURNED]
    summaries: list[CellAccessSummary] = [
        {
            "cellId": records[index].id,
            "index": index,
            "access": records[index].access,  # type: ignore[typeddict-item]
            "history": history_of(cell.get("metadata")),
        }
        for index, cell in zip(candidates, notebook.cells_json(candidates))
    ]
    cells = fit(summaries, limits.MAX_CELLS_RETURNED)
    return {"notebook": info_of(notebook, records), "cells": cells, **listing(selection, len(cells), len(records))}
