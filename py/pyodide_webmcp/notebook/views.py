"""Pure builders of the notebook, cell and focus shapes agents receive (from the port's cell records)."""

from typing import Any, Optional, Sequence

from ..base import limits
from ..base.hashing import read_hash
from ..base.mime import joined
from ..base.paths import base_name
from ..base.positions import editor_position, offset_of
from ..base.shapes import (
    CellRef,
    CellSnapshot,
    FocusContext,
    NotebookInfo,
    Position,
    TextSelection,
)
from ..base.text import clamp_utf8, to_json
from ..port import CellRecord, EditorState, cell_list
from .access import METADATA_KEY
from .outputs import serialize_outputs
from .provenance import add_last_edit


def notebook_info(path: str, dirty: bool, cells: Sequence[CellRecord]) -> NotebookInfo:
    return {
        "path": path,
        "name": base_name(path),
        "dirty": dirty,
        "revision": cell_list(cells).revision,
        "cellCount": len(cells),
    }


def cell_snapshot(
    cell: dict[str, Any],
    index: int,
    *,
    include_source: bool = True,
    include_outputs: bool = False,
    source_offset: int = 0,
) -> CellSnapshot:
    """One nbformat cell as the agent sees it, every field bounded.

    A source over the read bound is shown in part, from `source_offset` (in characters): the snapshot
    says where the rest starts, and its sourceHash is marked partial (see `hashing.read_hash`).
    """
    source = joined(cell.get("source", ""))
    cell_type = str(cell.get("cell_type", "code"))
    snapshot: CellSnapshot = {
        "id": str(cell.get("id", "")),
        "index": index,
        "type": cell_type,
        "sourceHash": read_hash(source, whole=True),
    }
    if include_source:
        start = min(source_offset, len(source))
        shown, cut = clamp_utf8(source[start:], limits.MAX_CELL_SOURCE_BYTES, mark="")  # pages join exactly
        snapshot["source"] = shown
        if start:
            snapshot["sourceOffset"] = start
        if cut:
            snapshot["sourceTruncated"] = True
            snapshot["nextSourceOffset"] = start + len(shown)
        if start or cut:
            snapshot["sourceHash"] = read_hash(source, whole=False)
    if cell_type == "code":
        if cell.get("execution_count") is not None:
            snapshot["executionCount"] = cell["execution_count"]
        if include_outputs:
            outputs, cut = serialize_outputs(list(cell.get("outputs") or []))
            snapshot["outputs"] = outputs
            if cut:
                snapshot["outputsTruncated"] = True
    metadata = cell.get("metadata") or {}
    add_last_edit(snapshot, metadata)
    shown_metadata = {key: value for key, value in metadata.items() if key != METADATA_KEY}
    if shown_metadata and len(to_json(shown_metadata)) <= limits.MAX_CELL_METADATA_CHARS:
        snapshot["metadata"] = shown_metadata
    return snapshot


def cell_ref(records: Sequence[CellRecord], cell_id: str) -> CellRef:
    """Where a cell the agent has just written is now, and its hash (the agent sent the whole source)."""
    index, record = next((i, r) for i, r in enumerate(records) if r.id == cell_id)
    return {"id": record.id, "index": index, "type": record.type, "sourceHash": record.source_hash}


def text_selection(source: str, start: Position, end: Position) -> Optional[TextSelection]:
    """The selected text between two positions, bounded; None when empty."""
    begin, finish = sorted((offset_of(source, start), offset_of(source, end)))
    if begin == finish:
        return None
    text, cut = clamp_utf8(source[begin:finish], limits.MAX_SELECTED_TEXT_BYTES)
    selection: TextSelection = {"start": start, "end": end, "text": text}
    if cut:
        selection["truncated"] = True
    return selection


def focus_context(
    cells: Sequence[CellRecord],
    active_index: Optional[int],
    selected_indexes: Sequence[int],
    editor: Optional[EditorState],
) -> FocusContext:
    """The focus as the agent may see it: a hidden active or selected cell reads exactly as one that is not
    active or selected (so the two hidden-cell fields stay false and 0, kept for the reference's shape)."""
    active = cells[active_index] if active_index is not None and 0 <= active_index < len(cells) else None
    if active is not None and active.hidden:
        active = None
    selected = [cells[i] for i in selected_indexes if 0 <= i < len(cells) and not cells[i].hidden]
    cursor = selection = None
    if active is not None and editor is not None:
        cursor = editor_position(active.source, *editor.cursor)
        selection = text_selection(
            active.source,
            editor_position(active.source, *editor.selection_start),
            editor_position(active.source, *editor.selection_end),
        )
    return {
        "activeCellId": active.id if active else None,
        "activeCellIndex": active_index if active else None,
        "activeCellType": active.type if active else None,
        "selectedCellIds": [cell.id for cell in selected],
        "hiddenSelectedCellCount": 0,
        "hiddenActiveCell": False,
        "cursor": cursor,
        "textSelection": selection,
    }
