"""Resolving notebooks and cells for a tool, with the owner's access applied on one path."""

from typing import Any, Optional, Sequence

from ..base.errors import ErrorCode, ToolError
from ..base.paths import is_notebook_path, normalize_path
from ..base.shapes import FocusContext, NotebookInfo, ReviewCounts
from ..port import CellRecord, LabPort, NotebookPort, NotebookReader, cell_list
from ..review.anchors import LiveCell
from ..review.store import ReviewStore, StoredAnchor
from ..review.summaries import thread_counts
from .access import (
    Intent,
    cell_not_found,
    guard_cell,
    guard_notebook,
    not_a_notebook,
    notebook_access,
    notebook_not_found,
)
from .file_notebook import FileNotebook
from .views import focus_context, notebook_info

READ_ERRORS = (
    ErrorCode.NO_ACTIVE_NOTEBOOK,
    ErrorCode.NOTEBOOK_NOT_FOUND,
    ErrorCode.INVALID_PATH,
    ErrorCode.NOTEBOOK_NOT_IN_THIS_PAGE,
)
"""What resolving a notebook can answer (the last only in the Notebook app's pages)."""
WRITE_ERRORS = (*READ_ERRORS, ErrorCode.NOTEBOOK_ACCESS_DENIED)
"""... and resolving it to change it."""
CHANGE_ERRORS = (*WRITE_ERRORS, ErrorCode.CELL_NOT_FOUND, ErrorCode.CELL_ACCESS_DENIED, ErrorCode.STALE_CELL,
                 ErrorCode.PROPOSAL_ALREADY_PENDING)
"""... and changing a cell of it through the guarded write."""


def no_active_notebook() -> ToolError:
    return ToolError(ErrorCode.NO_ACTIVE_NOTEBOOK, "There is no notebook open. Open one first, or pass notebookPath.")


async def _notebook_file(lab: LabPort, path: str) -> dict[str, Any]:
    """The JSON of a notebook's file the agent may know of; hidden reads exactly as missing."""
    entry = await lab.get_entry(path, content=True) if is_notebook_path(path) else None
    content = entry.get("content") if entry is not None and entry.get("type") == "notebook" else None
    if not isinstance(content, dict):
        if await lab.get_entry(path) is not None:
            raise not_a_notebook(path)
        raise notebook_not_found(path)
    if notebook_access(content.get("metadata"), lab.access_defaults.notebook) == "none":
        raise notebook_not_found(path)
    return content


def _current(lab: LabPort) -> NotebookPort:
    notebook = lab.current_notebook()
    if notebook is None or notebook.access() == "none":
        raise no_active_notebook()
    return notebook


async def resolve_notebook(
    lab: LabPort, path: Optional[str], intent: Intent = "view", *, activate: bool = False
) -> NotebookPort:
    """The open notebook at `path` (opened if needed) or the current one.

    A notebook the owner hid reads exactly as a missing one (or as no current
    notebook); a read-only one refuses write intent.
    """
    if path is None:
        notebook = _current(lab)
    else:
        normalized = normalize_path(path)
        found = lab.find_notebook(normalized)
        if found is None:
            await _notebook_file(lab, normalized)
            notebook = await lab.open_notebook(normalized, activate=activate)
        else:
            notebook = found
            if activate:
                notebook.activate()
        if notebook.access() == "none":
            raise notebook_not_found(normalized)
    guard_notebook(notebook.access(), intent, notebook.path)
    return notebook


async def read_notebook(lab: LabPort, path: Optional[str]) -> NotebookReader:
    """A notebook to read: the open one, or its file when it is not open (no tab, no kernel started)."""
    if path is None:
        return _current(lab)
    normalized = normalize_path(path)
    found = lab.find_notebook(normalized)
    if found is not None:
        if found.access() == "none":
            raise notebook_not_found(normalized)
        return found
    content = await _notebook_file(lab, normalized)
    from_file = FileNotebook.read(normalized, content, lab.access_defaults)
    return from_file if from_file is not None else await resolve_notebook(lab, normalized, "read")


def find_cell(records: Sequence[CellRecord], cell_id: str, path: str, intent: Intent = "read") -> int:
    """The index of a cell the agent may use with this intent; hidden reads as missing."""
    for index, record in enumerate(records):
        if record.id == cell_id:
            guard_cell(record.access, intent, cell_id, path)
            return index
    raise cell_not_found(cell_id, path)


def live_cell(
    notebook: NotebookReader, records: Sequence[CellRecord], cell_id: str, with_outputs: bool = True
) -> Optional[LiveCell]:
    """The cell's index, source and outputs as they are now, for anchoring; None when it is gone.

    Reading a cell's outputs may convert all of them (100 MB for a long print): only output anchors need them.
    """
    for index, record in enumerate(records):
        if record.id == cell_id:
            outputs = notebook.cell_outputs(index) if with_outputs and record.type == "code" else []
            return LiveCell(index, record.source, outputs)
    return None


def anchored_cell(notebook: NotebookReader, records: Sequence[CellRecord], anchor: StoredAnchor) -> Optional[LiveCell]:
    """The anchor's cell as it is now, with its outputs only when the anchor is on one."""
    return live_cell(notebook, records, anchor.cell_id, with_outputs=anchor.kind == "output")


def review_store(notebook: NotebookReader) -> ReviewStore:
    return ReviewStore(notebook.review_entry())


def review_counts(notebook: NotebookReader, records: Optional[Sequence[CellRecord]] = None) -> ReviewCounts:
    """Counts of the threads the agent may know of: those on hidden cells do not exist for it."""
    hidden = cell_list(notebook.cells() if records is None else records).hidden_ids
    return thread_counts(review_store(notebook).visible(hidden))


def info_of(notebook: NotebookReader, records: Optional[Sequence[CellRecord]] = None) -> NotebookInfo:
    return notebook_info(notebook.path, notebook.dirty, notebook.cells() if records is None else records)


def active_cell(notebook: NotebookReader, records: Sequence[CellRecord]) -> Optional[int]:
    """The index of the human's active cell, the default of the tools that take one; a cell the owner hid
    reads exactly as no active cell."""
    index = notebook.active_index()
    if index is None or not 0 <= index < len(records) or records[index].hidden:
        return None
    return index


def focus_of(notebook: NotebookReader, records: Optional[Sequence[CellRecord]] = None) -> FocusContext:
    cells = notebook.cells() if records is None else records
    active = active_cell(notebook, cells)
    return focus_context(
        cells,
        active,
        notebook.selected_indexes(),
        notebook.editor_state() if active is not None else None,
    )
