"""The text the human selected in an output: how they point at a result."""

from typing import Optional

from ..base.shapes import OutputSelection
from ..calls.current import CallContext
from ..calls.schema import NoArguments
from ..calls.tool import tool
from ..notebook.resolve import live_cell
from ..review.anchors import output_fingerprint


@tool("jupyter_get_output_selection", "Read the selected output", read_only=True)
async def get_output_selection(args: NoArguments, ctx: CallContext) -> Optional[OutputSelection]:
    """Read the text the human selected inside a rendered output (cell, output index, text, offsets), or null.

    Use it when they point at a result ("this number"); jupyter_get_context
    shows editor selections only.
    """
    record = ctx.lab.output_selection_record()
    if record is None:
        return None
    notebook = ctx.lab.find_notebook(record["notebookPath"])
    if notebook is None or notebook.access() == "none":
        return None
    records = notebook.cells()
    cell = live_cell(notebook, records, record["cellId"])
    if cell is None or records[cell.index].hidden or record["outputIndex"] >= len(cell.outputs):
        return None
    if output_fingerprint(cell.outputs[record["outputIndex"]]) != record["outputFingerprint"]:
        return None
    return {
        "cellId": record["cellId"],
        "outputIndex": record["outputIndex"],
        "text": record["text"],
        "range": record["range"],
        "outputFingerprint": record["outputFingerprint"],
        "capturedAt": record["capturedAt"],
    }
