"""Handing the notebook to another tool as portable markdown."""

from typing import Annotated, Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import TypedDict

from ..base.fields import (
    CellCountField,
    HiddenCellCountField,
    NotebookPathField,
    TruncatedField,
)
from ..calls.current import CallContext
from ..calls.schema import Arguments
from ..calls.tool import tool
from ..notebook.arguments import NotebookPath
from ..notebook.markdown_export import export_markdown
from ..notebook.resolve import READ_ERRORS, read_notebook


class ExportArguments(Arguments):
    notebookPath: NotebookPath = None
    format: SkipJsonSchema[Literal["markdown"]] = "markdown"
    also_taken = '`format: "markdown"` (the only format), as the reference extension has it.'
    includeOutputs: bool = Field(True, description="false: sources only (more cells fit).")


class ExportResult(TypedDict):
    notebookPath: NotebookPathField
    document: Annotated[str, Field(description="The notebook as markdown.")]
    truncated: TruncatedField
    cellCount: CellCountField
    hiddenCellCount: HiddenCellCountField


@tool(
    "jupyter_export_notebook",
    "Read the notebook as markdown", read_only=True,
    errors=(*READ_ERRORS,),
)
async def export_notebook(args: ExportArguments, ctx: CallContext) -> ExportResult:
    """Return the whole notebook as one markdown text to read or hand on (code and text outputs fenced, images as placeholders); writes no file.

    Past 40 KiB it ends at the last whole cell that fits (truncated, cellCount). To edit cells, read them with
    jupyter_get_cells.
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
