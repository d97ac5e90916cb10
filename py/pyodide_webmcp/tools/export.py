"""Handing the notebook to another tool as portable markdown."""

from typing import Literal

from pydantic import Field
from typing_extensions import TypedDict

from ..export import export_markdown
from ..notebooks import READ_ERRORS, read_notebook
from ..params import NotebookPath
from ..registry import CallContext, tool
from ..schema import Arguments


class ExportArguments(Arguments):
    notebookPath: NotebookPath = None
    format: Literal["markdown"] = "markdown"
    includeOutputs: bool = Field(True, description="false: sources only, so more cells fit in the 40 KiB.")


class ExportResult(TypedDict):
    notebookPath: str
    document: str
    truncated: bool
    cellCount: int
    hiddenCellCount: int


@tool(
    "jupyter_export_notebook",
    "Export the notebook", read_only=True,
    errors=(*READ_ERRORS,),
)
async def export_notebook(args: ExportArguments, ctx: CallContext) -> ExportResult:
    """The whole notebook as one markdown document (code and text outputs fenced, images as placeholders), at most 40 KiB.

    Read a notebook in one call; to change cells you need jupyter_get_cells.
    """
    notebook = await read_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    cells = [(record, {} if record.hidden else notebook.cell_json(index)) for index, record in enumerate(records)]
    document, truncated, count, hidden = export_markdown(cells, args.includeOutputs)
    return {
        "notebookPath": notebook.path,
        "document": document,
        "truncated": truncated,
        "cellCount": count,
        "hiddenCellCount": hidden,
    }
