"""Resolving notebooks and cells for a tool, with the owner's access applied on one path."""

from typing import Optional, Sequence

from .access import Intent, cell_not_found, guard_cell, guard_notebook, not_a_notebook, notebook_not_found
from .errors import ErrorCode, ToolError
from .shapes import FocusContext, NotebookInfo, ReviewCounts
from .paths import is_notebook_path, normalize_path
from .port import LabPort, NotebookPort
from .review import LiveCell, ReviewStore, counts
from .views import CellRecord, cell_list, focus_context, notebook_info


def no_active_notebook() -> ToolError:
    return ToolError(ErrorCode.NO_ACTIVE_NOTEBOOK, "There is no notebook open. Open one first, or pass notebookPath.")


async def resolve_notebook(
    lab: LabPort, path: Optional[str], intent: Intent = "read", *, activate: bool = False
) -> NotebookPort:
    """The notebook at `path` (opened if needed) or the current one.

    A notebook the owner hid reads exactly as a missing one (or as no current
    notebook); a read-only one refuses write intent.
    """
    if path is None:
        notebook = lab.current_notebook()
        if notebook is None or notebook.access() == "none":
            raise no_active_notebook()
    else:
        normalized = normalize_path(path)
        notebook = lab.find_notebook(normalized)
        if notebook is None:
            access = await lab.file_notebook_access(normalized) if is_notebook_path(normalized) else None
            if access is None and await lab.get_entry(normalized) is not None:
                raise not_a_notebook(normalized)
            if access in (None, "none"):
                raise notebook_not_found(normalized)
            notebook = await lab.open_notebook(normalized, activate=activate)
        elif activate:
            notebook.activate()
        if notebook.access() == "none":
            raise notebook_not_found(normalized)
    guard_notebook(notebook.access(), intent, notebook.path)
    return notebook


def find_cell(records: Sequence[CellRecord], cell_id: str, path: str, intent: Intent = "read") -> int:
    """The index of a cell the agent may use with this intent; hidden reads as missing."""
    for index, record in enumerate(records):
        if record.id == cell_id:
            guard_cell(record.access, intent, cell_id, path)
            return index
    raise cell_not_found(cell_id, path)


def live_cell(notebook: NotebookPort, records: Sequence[CellRecord], cell_id: str) -> Optional[LiveCell]:
    """The cell's index, source and outputs as they are now, for anchoring; None when it is gone."""
    for index, record in enumerate(records):
        if record.id == cell_id:
            outputs = notebook.cell_json(index).get("outputs") or [] if record.type == "code" else []
            return LiveCell(index, record.source, outputs)
    return None


def review_store(notebook: NotebookPort) -> ReviewStore:
    return ReviewStore(notebook.review_entry())


def review_counts(notebook: NotebookPort, records: Optional[Sequence[CellRecord]] = None) -> ReviewCounts:
    """Counts of the threads the agent may know of: those on hidden cells do not exist for it."""
    hidden = cell_list(notebook.cells() if records is None else records).hidden_ids
    return counts(review_store(notebook).visible(hidden))


def info_of(notebook: NotebookPort, records: Optional[Sequence[CellRecord]] = None) -> NotebookInfo:
    return notebook_info(notebook.path, notebook.dirty, notebook.cells() if records is None else records)


def focus_of(notebook: NotebookPort, records: Optional[Sequence[CellRecord]] = None) -> FocusContext:
    return focus_context(
        notebook.cells() if records is None else records,
        notebook.active_index(),
        notebook.selected_indexes(),
        notebook.editor_state(),
    )
