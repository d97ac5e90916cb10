"""Handing the notebook to another tool as portable markdown."""

from typing import Literal, Optional

from pydantic import Field
from typing_extensions import TypedDict

from ..export import export_markdown
from ..notebooks import resolve_notebook
from ..registry import CallContext, tool
from ..schema import Arguments


class ExportArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook to export; the current one when omitted.")
    format: Literal["markdown"] = Field("markdown", description="Output format.")
    includeOutputs: bool = Field(True, description="Include text and error outputs (images become placeholders).")


class ExportResult(TypedDict):
    notebookPath: str
    document: str
    truncated: bool
    cellCount: int
    hiddenCellCount: int


@tool("jupyter_export_notebook", "Export the notebook", read_only=True)
async def export_notebook(args: ExportArguments, ctx: CallContext) -> ExportResult:
    """Export the live notebook as one markdown document: markdown verbatim, code fenced, text and error outputs fenced, images as placeholders.

    Use it to hand the notebook to another tool. Bounded to 40 KiB and 500
    cells (`truncated` says when cut); reading it never marks the notebook
    changed.
    """
    notebook = await resolve_notebook(ctx.lab, args.notebookPath)
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
