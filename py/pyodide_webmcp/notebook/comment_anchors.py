"""The anchor a new review comment asks for, checked and made against the notebook as it is now: a whole cell, text
of its source (found, or a selection), or one of its outputs."""

from typing import Any, Optional

from pydantic import Field

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.positions import strict_offset
from ..calls.schema import Arguments, SelectionArgument, require_max_bytes
from ..port import CellList, NotebookPort
from ..review.anchors import cell_anchor, output_anchor, range_anchor
from ..review.store import AnchorKind
from .resolve import find_cell


class AnchorArgument(Arguments):
    """The reference's anchor: `{kind, cellId, text | selection | outputIndex}` (its cellId is taken as the call's)."""

    kind: AnchorKind
    text: Optional[str] = None
    selection: Optional[SelectionArgument] = None
    outputIndex: Optional[int] = Field(None, ge=0)


ANCHOR_FIELDS: dict[AnchorKind, tuple[str, ...]] = {
    "cell": (),
    "source-range": ("text", "selection"),
    "output": ("outputIndex",),
}
"""The anchor fields each kind takes."""


def check_anchor_fields(anchor: AnchorArgument) -> None:
    """INVALID_ARGUMENT for a field another kind of anchor takes (it would be silently ignored)."""
    for kind, fields in ANCHOR_FIELDS.items():
        for field in fields:
            if kind != anchor.kind and getattr(anchor, field) is not None:
                raise ToolError(
                    ErrorCode.INVALID_ARGUMENT,
                    f'anchor.{field} belongs to a {kind} anchor, not a {anchor.kind} one.',
                    field=f"anchor.{field}",
                )


def asked_anchor(anchor: Optional[AnchorArgument], text: Optional[str], output_index: Optional[int]) -> Optional[AnchorArgument]:
    """What the thread is attached to: the reference's anchor, or text or outputIndex (None: the whole cell)."""
    if anchor is not None:
        if text is not None or output_index is not None:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "Give anchor, or text or outputIndex: not both.", field="anchor")
        return anchor
    if text is not None and output_index is not None:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "Give text or outputIndex, not both.", field="outputIndex")
    if text is not None:
        return AnchorArgument(kind="source-range", text=text, selection=None, outputIndex=None)
    if output_index is not None:
        return AnchorArgument(kind="output", text=None, selection=None, outputIndex=output_index)
    return None


def new_anchor(notebook: NotebookPort, records: CellList, cell_id: str, anchor: Optional[AnchorArgument],
                prefix: str = "") -> dict[str, Any]:
    """The stored anchor; `prefix` is where an error points ("anchor." for the reference's shape)."""
    if anchor is not None:
        check_anchor_fields(anchor)
    index = find_cell(records, cell_id, notebook.path, "write")
    if anchor is None or anchor.kind == "cell":
        return cell_anchor(cell_id)
    source = records[index].source
    stale = ToolError(ErrorCode.COMMENT_ANCHOR_STALE, "The anchor does not match the cell as it is now.", cellId=cell_id)
    if anchor.kind == "output":
        outputs = notebook.cell_json(index).get("outputs") or []
        output_index = anchor.outputIndex or 0
        if output_index >= len(outputs):
            raise ToolError(
                ErrorCode.COMMENT_ANCHOR_STALE,
                f'Cell "{cell_id}" has no output at index {output_index}. Run it first.',
                cellId=cell_id,
                outputIndex=output_index,
            )
        return output_anchor(cell_id, outputs, output_index)
    if anchor.text is not None:
        require_max_bytes(prefix + "text", anchor.text, limits.MAX_SELECTED_TEXT_BYTES)
        start = source.find(anchor.text) if anchor.text else -1
        if start < 0:
            raise ToolError(ErrorCode.COMMENT_ANCHOR_STALE, "That text does not appear in the cell source.", cellId=cell_id)
        return range_anchor(cell_id, source, start, start + len(anchor.text))
    if anchor.selection is None:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT, "A source-range anchor needs text or selection.", field="anchor.selection"
        )
    first, last = (
        strict_offset(source, {"line": point.line, "column": point.column})
        for point in (anchor.selection.start, anchor.selection.end)
    )
    if first is None or last is None or first == last:
        raise stale
    start, end = sorted((first, last))
    require_max_bytes(prefix + "selection", source[start:end], limits.MAX_SELECTED_TEXT_BYTES)
    return range_anchor(cell_id, source, start, end)
