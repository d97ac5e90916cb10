"""Notebook resolution and the summaries built from an open notebook."""

from typing import Any, Optional, Sequence

from .errors import ErrorCode, ToolError
from .models import FocusContext, NotebookInfo
from .paths import is_notebook_path, normalize_path
from .snapshots import CellRecord, focus_context, notebook_info


def notebook_not_found(path: str) -> ToolError:
    return ToolError(ErrorCode.NOTEBOOK_NOT_FOUND, f'No notebook at "{path}".', path=path)


async def resolve_notebook(lab: Any, path: Optional[str]) -> Any:
    """The open notebook at `path` (opened in the background if needed), else the current one."""
    if path is None:
        notebook = lab.current_notebook()
        if notebook is None:
            raise ToolError(ErrorCode.NO_ACTIVE_NOTEBOOK, "No notebook is open; pass notebookPath.")
        return notebook
    normalized = normalize_path(path)
    notebook = lab.find_notebook(normalized)
    if notebook is not None:
        return notebook
    if not is_notebook_path(normalized):
        raise notebook_not_found(path)
    entry = await lab.get_entry(normalized)
    if entry is None or entry.get("type") != "notebook":
        raise notebook_not_found(path)
    return await lab.open_notebook(normalized, activate=False)


def cell_not_found(cell_id: str, path: str) -> ToolError:
    return ToolError(ErrorCode.CELL_NOT_FOUND, f'No cell "{cell_id}" in {path}.', cellId=cell_id)


def cell_index(records: Sequence[CellRecord], cell_id: str, path: str) -> int:
    for index, record in enumerate(records):
        if record.id == cell_id:
            return index
    raise cell_not_found(cell_id, path)


def info_of(notebook: Any) -> NotebookInfo:
    return notebook_info(notebook.path, notebook.dirty, notebook.cells())


def focus_of(notebook: Any) -> FocusContext:
    return focus_context(
        notebook.cells(), notebook.active_index(), notebook.selected_indexes(), notebook.editor_state()
    )
