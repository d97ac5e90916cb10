"""Where a proposal's review box sits in a notebook, and what withdraws it before the human decides."""

from typing import Any, Callable

from js import setTimeout
from pyodide.ffi import create_once_callable, create_proxy

from ..base.access_levels import AccessDefaults
from ..notebook.access import cell_access
from ..port import NOTEBOOK_END
from .ffi import stored_metadata

GONE = "The cell was deleted before the human decided."


def keep_below_cell(notebook: Any, cell_id: str, node: Any) -> Callable[[], None]:
    """Show `node` in the cell between its input and its output (NOTEBOOK_END: under the last cell, or in the empty
    notebook), and keep it there when the cell moves or its widget is rebuilt.

    The same node moves, so whatever the human typed into it stays. Returns a function that stops following.
    """
    following = [True]

    def place(*_: Any) -> None:
        if not following[0]:
            return
        widgets = list(notebook.widgets)
        found = widgets[-1:] if cell_id == NOTEBOOK_END else [w for w in widgets if str(w.model.id) == cell_id]
        parent = found[0].node if found else notebook.node if cell_id == NOTEBOOK_END else None
        if parent is None or node.parentElement == parent:
            return
        output = parent.querySelector(":scope > .jp-Cell-outputWrapper") if found and cell_id != NOTEBOOK_END else None
        parent.insertBefore(node, output) if output is not None else parent.appendChild(node)

    def on_cells_changed(*_: Any) -> None:
        place()
        setTimeout(create_once_callable(place), 0)  # widgets created after this change settle

    place()
    cells = notebook.model.cells
    proxy = create_proxy(on_cells_changed)
    cells.changed.connect(proxy)

    def stop() -> None:
        following[0] = False
        cells.changed.disconnect(proxy)
        proxy.destroy()

    return stop


def watch_proposal(
    panel: Any, cell_id: str, defaults: Callable[[], AccessDefaults], deny: Callable[[str], None]
) -> Callable[[], None]:
    """Deny with a reason if the cell is deleted or hidden (which read the same), the notebook closed, or renamed
    or moved. The cell's own changes are followed (its access is metadata), across the shared cells that hold it
    (a change of type makes a new one)."""
    model = panel.content.model
    followed: list[Any] = []

    def gone_or_hidden() -> bool:
        cell = next((c for c in model.sharedModel.cells if str(c.id) == cell_id), None)
        if cell is None or cell_access(stored_metadata(cell), defaults().cell) == "none":
            return True
        if not followed or followed[0] != cell:
            unfollow()
            cell.changed.connect(on_cell_change)
            followed.append(cell)
        return False

    def unfollow() -> None:
        if followed:
            followed.pop().changed.disconnect(on_cell_change)

    def check(*_: Any) -> None:
        if cell_id != NOTEBOOK_END and gone_or_hidden():
            deny(GONE)

    on_cell_change = create_proxy(check)
    watchers = [
        (model.contentChanged, create_proxy(check)),
        (panel.disposed, create_proxy(lambda *_: deny("The notebook was closed before the human decided."))),
        (panel.context.pathChanged, create_proxy(lambda *_: deny("The notebook was renamed or moved."))),
    ]
    for signal, proxy in watchers:
        signal.connect(proxy)
    check()

    def stop() -> None:
        unfollow()
        on_cell_change.destroy()
        for signal, proxy in watchers:
            signal.disconnect(proxy)
            proxy.destroy()

    return stop
