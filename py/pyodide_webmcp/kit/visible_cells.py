"""Notebooks as a tool of the kit sees them: the cells the owner lets the agent see, and the guarded write."""

from dataclasses import dataclass
from typing import Any, Optional

from ..base import limits
from ..calls.schema import require_max_bytes
from ..calls.tool import CallContext
from ..notebook.access import Access
from ..notebook.resolve import read_notebook
from ..notebook.source_edits import SourceEdit, write_sources, written


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
    notebook = await read_notebook(ctx.lab, notebook_path)
    return [Cell(record.id, record.type, record.source, record.source_hash, record.access)
            for record in notebook.cells() if not record.hidden]


async def replace_cell_source(ctx: CallContext, notebook_path: Optional[str], cell_id: str, source: str,
                              expected_source_hash: str) -> dict[str, Any]:
    """Replace a cell's source through the one guarded source write (`source_edits`), as jupyter_update_cell
    does: refused unless the cell still has `expected_source_hash` and the agent may write it; in Propose mode
    the human decides first. Returns what jupyter_update_cell returns (the cell with its new sourceHash, or
    the human's denial)."""
    require_max_bytes("source", source, limits.MAX_CELL_SOURCE_WRITE_BYTES)
    edit = SourceEdit(cell_id, source, expected_source_hash)
    return dict(await write_sources(ctx, notebook_path, [edit], lambda notebook, ids: written(notebook, ids[0])))
