"""Notebooks as a site's tool sees them: the cells the owner lets the agent see, and the guarded write."""

from dataclasses import dataclass
from typing import Optional

from ..base.access_levels import Access
from ..notebook.resolve import read_notebook
from ..notebook.source_edits import CellResult, SourceEdit, write_sources, written
from .call_context import CallContext, served

SourceWritten = CellResult
"""What `replace_cell_source` returns, and a tool may return as it is: the cell as it is now, with its new
sourceHash (`status: "accepted"` and the proposal's id when the human accepted it in Propose mode), or the
human's denial (`status: "denied"`, `code: "PROPOSAL_DENIED"`, a normal result)."""


@dataclass(frozen=True)
class Cell:
    """A cell the agent may see. `source_hash` is what a write of it must name."""

    id: str
    type: str
    source: str
    source_hash: str
    access: Access  # "write" or "read": a hidden cell is never a Cell


async def read_cells(ctx: CallContext, notebook_path: Optional[str] = None) -> list[Cell]:
    """The notebook's cells the agent may see, in order (default: the current notebook). A hidden
    notebook raises NOTEBOOK_NOT_FOUND, exactly as a missing one."""
    notebook = await read_notebook(served(ctx).lab, notebook_path)
    return [Cell(record.id, record.type, record.source, record.source_hash, record.access)
            for record in notebook.cells() if not record.hidden]


async def replace_cell_source(ctx: CallContext, notebook_path: Optional[str], cell_id: str, source: str,
                              expected_source_hash: str) -> SourceWritten:
    """Replace a cell's source through the one guarded source write, as jupyter_update_cell does: refused
    unless the source is within the write bound, the cell still has `expected_source_hash` and the agent may
    write it (CELL_NOT_FOUND, CELL_ACCESS_DENIED, STALE_CELL, NOTEBOOK_ACCESS_DENIED); in Propose mode the
    human decides first, whether or not the tool was declared `reviewed`."""
    edit = SourceEdit(cell_id, source, expected_source_hash)
    result: SourceWritten = await write_sources(served(ctx), notebook_path, [edit],
                                                lambda notebook, ids: written(notebook, ids[0]))
    return result
