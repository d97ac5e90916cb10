"""Handing the notebook to another tool as portable markdown."""

from typing import Literal, Optional

from pydantic import Field
from typing_extensions import TypedDict

from ..export import export_markdown
from ..notebooks import READ_ERRORS, read_notebook
from ..registry import CallContext, tool
from ..schema import Arguments


class ExportArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook to export; the current one when omitted.")
    format: Literal["markdown"] = Field("markdown", description="Output format; markdown is the only one.")
    includeOutputs: bool = Field(
        True,
        description="Include text and error outputs as fenced blocks (images become placeholders); false gives the "
        "sources alone, which fit more cells in the 40 KiB.",
    )


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
    """Export the live notebook as one markdown document (markdown verbatim, code and text outputs fenced, images as placeholders); returns the document.

    Use it to hand the notebook to another tool or summarize it in one read.
    Bounded to 40 KiB and 500 cells (truncated says when cut); cells the
    owner hid are left out and counted. Reading never marks the notebook
    changed; a notebook that is not open is read from its file.
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
