"""A notebook read from its file: reads of a notebook that is not open need no tab and start no kernel.

Only notebooks whose cells all carry ids (nbformat 4.5 and later) can be read
this way: JupyterLab gives id-less cells new random ids when it opens them, so
those notebooks are opened instead. Outputs read as the live model would hold
them, so output fingerprints agree whether a notebook is open or not.
"""

from typing import Any, Optional

from ..base.access_levels import Access, AccessDefaults
from ..base.mime import joined
from ..base.text import json_object
from ..port import CellList, CellRecord, EditorState
from ..review.store import REVIEW_KEY
from .access import cell_access, notebook_access


def _live_output(output: Any) -> Any:
    """An output as JupyterLab's shared model returns it: a stream's list of lines is joined with commas."""
    if isinstance(output, dict) and output.get("output_type") == "stream" and isinstance(output.get("text"), list):
        return {**output, "text": ",".join(str(part) for part in output["text"])}
    return output


def _live_cell(cell: dict[str, Any]) -> dict[str, Any]:
    live = dict(cell)
    if isinstance(cell.get("outputs"), list):
        live["outputs"] = [_live_output(output) for output in cell["outputs"]]
    return live


class FileNotebook:
    """The read side of a notebook (see port.NotebookReader), from the JSON of its file."""

    def __init__(self, path: str, content: dict[str, Any], defaults: AccessDefaults):
        self.path = path
        self.dirty = False
        self._defaults = defaults
        self._metadata = json_object(content.get("metadata"))
        self._cells = [_live_cell(cell) for cell in content["cells"]]
        self._records = CellList(
            CellRecord(
                str(cell["id"]),
                str(cell.get("cell_type", "code")),
                joined(cell.get("source", "")),
                cell_access(cell.get("metadata"), defaults.cell),
            )
            for cell in self._cells
        )

    @classmethod
    def read(cls, path: str, content: Any, defaults: AccessDefaults) -> Optional["FileNotebook"]:
        """The notebook, or None when its file cannot be read this way (no ids, or not a notebook)."""
        cells = content.get("cells") if isinstance(content, dict) else None
        if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
            return None
        ids = [cell.get("id") for cell in cells]
        if not all(isinstance(cell_id, str) and cell_id for cell_id in ids) or len(set(ids)) != len(ids):
            return None
        return cls(path, content, defaults)

    def access(self) -> Access:
        return notebook_access(self._metadata, self._defaults.notebook)

    def cells(self) -> CellList:
        return self._records

    def cell_json(self, index: int) -> dict[str, Any]:
        return self._cells[index]

    def cell_outputs(self, index: int) -> list[dict[str, Any]]:
        return self._cells[index].get("outputs") or []

    def cells_json(self, indexes: list[int]) -> list[dict[str, Any]]:
        return [self._cells[index] for index in indexes]

    def active_index(self) -> Optional[int]:
        return None

    def selected_indexes(self) -> list[int]:
        return []

    def editor_state(self) -> Optional[EditorState]:
        return None

    def review_entry(self) -> Any:
        return self._metadata.get(REVIEW_KEY)
