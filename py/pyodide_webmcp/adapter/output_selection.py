"""Records the text the human selects inside one rendered output, and nothing else on the page."""

from typing import Any, Callable, Optional

from js import clearTimeout, document, setTimeout, window
from pyodide.ffi import create_proxy

from ..base import limits
from ..base.clock import iso_now
from ..base.shapes import SelectedOutput
from ..base.text import clamp_utf8
from ..review.anchors import output_fingerprint
from .ffi import js_value
from .notebook import NotebookHandle

OUTPUT = ".jp-OutputArea-output"
CellLocator = Callable[[Any], Optional[tuple[NotebookHandle, int]]]
"""The open notebook and cell index whose widget owns a DOM node (PageLab.locate_cell_node)."""
SETTLE_MS = 150


def _element(node: Any) -> Any:
    node = js_value(node)
    if node is None:
        return None
    return node if node.nodeType == 1 else js_value(node.parentElement)


class OutputSelectionTracker:
    def __init__(self, locate_cell_node: CellLocator):
        self._locate_cell_node = locate_cell_node
        self.record: Optional[SelectedOutput] = None
        self._timer: Any = None  # the pending setTimeout's id
        self._listener = create_proxy(self._changed)
        self._capture_proxy = create_proxy(self._capture)
        document.addEventListener("selectionchange", self._listener)

    def _changed(self, _event: Any) -> None:
        if self._timer is not None:
            clearTimeout(self._timer)
        self._timer = setTimeout(self._capture_proxy, SETTLE_MS)

    def _capture(self) -> None:
        self._timer = None
        self.record = self._read_selection()

    def _read_selection(self) -> Optional[SelectedOutput]:
        selection = js_value(window.getSelection())
        if selection is None or selection.isCollapsed or selection.rangeCount == 0:
            return None
        start, end = _element(selection.anchorNode), _element(selection.focusNode)
        output = js_value(start.closest(OUTPUT)) if start is not None else None
        if output is None or end is None or js_value(end.closest(OUTPUT)) != output:
            return None  # crossed outputs, cells or notebook chrome
        child = js_value(output.closest(".jp-OutputArea-child"))
        cell_node = js_value(child.closest(".jp-Cell")) if child is not None else None
        located = self._locate_cell_node(cell_node) if cell_node is not None else None
        if located is None:
            return None
        notebook, cell_index = located
        output_index = list(child.parentElement.children).index(child)
        outputs = notebook.cell_json(cell_index).get("outputs") or []
        if output_index >= len(outputs):
            return None
        selected = selection.getRangeAt(0)
        before = document.createRange()
        before.selectNodeContents(output)
        before.setEnd(selected.startContainer, selected.startOffset)
        text = str(selection.toString())
        offset = len(str(before.toString()))
        return {
            "notebookPath": notebook.path,
            "cellId": notebook.cells()[cell_index].id,
            "outputIndex": output_index,
            "text": clamp_utf8(text, limits.MAX_SELECTED_TEXT_BYTES)[0],
            "range": {"start": offset, "end": offset + len(text)},
            "outputFingerprint": output_fingerprint(outputs[output_index]),
            "capturedAt": iso_now(),
        }
