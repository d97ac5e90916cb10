"""The human's controls: access commands, cell markers and the Agent panel. They need no agent."""

import asyncio
from typing import Any

from js import document
from pyodide.ffi import create_proxy

from ..access import ACCESS_LEVELS, next_access
from .lab import Lab, js_value, to_js_object

CYCLE_CELL = "jupyterlite-webmcp:cycle-cell-access"
CYCLE_NOTEBOOK = "jupyterlite-webmcp:cycle-notebook-access"
PANEL_ID = "jp-webmcp-agent-panel"
ACCESS_LABELS = {"write": "write", "read": "read only", "none": "hidden"}


def _element(tag: str, text: str = "", **attributes: str) -> Any:
    node = document.createElement(tag)
    if text:
        node.textContent = text
    for name, value in attributes.items():
        node.setAttribute(name.replace("_", "-"), value)
    return node


class Controls:
    def __init__(self, lab: Lab, host: Any):
        self._lab = lab
        self._app = host.app
        self._tracker = host.tracker
        self._file_browser = js_value(host.fileBrowser)
        self._proxies: list[Any] = []
        self._panel = None
        self._row_nodes: dict[str, tuple[Any, Any]] = {}

    def _proxy(self, function) -> Any:
        proxy = create_proxy(function)
        self._proxies.append(proxy)
        return proxy

    # Commands

    def _current_cell_access(self) -> str:
        notebook = self._lab.current_notebook()
        index = notebook.active_index() if notebook is not None else None
        return notebook.cells()[index].access if index is not None else "write"

    def _cycle_cells(self, *_: Any) -> None:
        notebook = self._lab.current_notebook()
        if notebook is None or notebook.active_index() is None:
            return
        access = next_access(self._current_cell_access())
        for index in notebook.selected_indexes():
            notebook.set_cell_access(index, access)
        self.refresh_panel()

    def _selected_notebooks(self) -> list[str]:
        if self._file_browser is None:
            return []
        return [str(item.path) for item in self._file_browser.selectedItems() if str(item.type) == "notebook"]

    async def _cycle_notebooks(self) -> None:
        for path in self._selected_notebooks():
            current = await self._lab.notebook_access(path) or "write"
            await self._lab.set_notebook_access(path, access=next_access(current))
        await self._render_rows()

    def install_commands(self) -> None:
        commands = self._app.commands
        commands.addCommand(
            CYCLE_CELL,
            to_js_object(
                {
                    "label": self._proxy(
                        lambda *_: f"Agent access: {ACCESS_LABELS[self._current_cell_access()]} "
                        f"(change to {ACCESS_LABELS[next_access(self._current_cell_access())]})"
                    ),
                    "caption": "Cycle what a connected agent may do with the selected cells: write, read only, hidden.",
                    "execute": self._proxy(self._cycle_cells),
                    "isEnabled": self._proxy(lambda *_: self._lab.current_notebook() is not None),
                }
            ),
        )
        commands.addCommand(
            CYCLE_NOTEBOOK,
            to_js_object(
                {
                    "label": "Cycle agent access (write, read only, hidden)",
                    "caption": "Cycle what a connected agent may do with this notebook.",
                    "execute": self._proxy(lambda *_: asyncio.ensure_future(self._cycle_notebooks())),
                }
            ),
        )
        menu = self._app.contextMenu
        menu.addItem(to_js_object({"command": CYCLE_CELL, "selector": ".jp-Notebook .jp-Cell", "rank": 20}))
        menu.addItem(
            to_js_object(
                {"command": CYCLE_NOTEBOOK, "selector": '.jp-DirListing-item[data-file-type="notebook"]', "rank": 20}
            )
        )

    # The Agent panel

    def install_panel(self, widget_class: Any) -> None:
        panel = widget_class.new()
        panel.id = PANEL_ID
        panel.title.label = "Agent"
        panel.title.caption = "What a connected agent may see and change"
        panel.addClass("jp-webmcp-panel")
        tabs = _element("div", **{"class": "jp-webmcp-tabs", "role": "tablist"})
        tabs.appendChild(_element("button", "Access", **{"class": "jp-webmcp-tab jp-mod-active", "role": "tab"}))
        body = _element("div", **{"class": "jp-webmcp-access"})
        body.appendChild(
            _element(
                "p",
                "Set what a connected agent may do with each notebook and its cells. "
                "Hidden notebooks and cells do not exist for the agent.",
            )
        )
        refresh = _element("button", "Refresh", **{"class": "jp-webmcp-refresh jp-mod-styled"})
        refresh.addEventListener("click", self._proxy(lambda *_: self.refresh_panel()))
        body.appendChild(refresh)
        self._rows = _element("div", **{"class": "jp-webmcp-rows"})
        body.appendChild(self._rows)
        panel.node.appendChild(tabs)
        panel.node.appendChild(body)
        self._app.shell.add(panel, "right", to_js_object({"rank": 900}))
        self._panel = panel
        self.refresh_panel()

    def refresh_panel(self) -> None:
        if self._panel is not None:
            asyncio.ensure_future(self._render_rows())

    def _select(self, label: str) -> Any:
        select = _element("select", **{"aria-label": label})
        for level in ACCESS_LEVELS:
            select.appendChild(_element("option", ACCESS_LABELS[level], value=level))
        return select

    def _new_row(self, path: str) -> tuple[Any, Any]:
        row = _element("div", **{"class": "jp-webmcp-row", "data-path": path})
        row.appendChild(_element("span", path, **{"class": "jp-webmcp-path"}))
        notebook_select = self._select(f"Agent access to {path}")
        notebook_select.classList.add("jp-webmcp-notebook-access")
        notebook_select.addEventListener(
            "change",
            self._proxy(
                lambda event: asyncio.ensure_future(self._lab.set_notebook_access(path, access=str(event.target.value)))
            ),
        )
        cells_select = self._select(f"Access to apply to every cell of {path}")
        cells_select.classList.add("jp-webmcp-cells-access")
        apply = _element("button", "Apply to all cells", **{"class": "jp-webmcp-apply jp-mod-styled"})
        apply.addEventListener(
            "click",
            self._proxy(
                lambda *_: asyncio.ensure_future(self._lab.set_notebook_access(path, cells=str(cells_select.value)))
            ),
        )
        for node in (notebook_select, cells_select, apply):
            row.appendChild(node)
        return row, notebook_select

    async def _render_rows(self) -> None:
        """Rows are kept and updated in place, so a choice the human is making survives a refresh."""
        if self._panel is None:
            return
        ordered = []
        for path in await self._lab.notebook_paths():
            if path not in self._row_nodes:
                self._row_nodes[path] = self._new_row(path)
            row, notebook_select = self._row_nodes[path]
            if document.activeElement != notebook_select:
                notebook_select.value = await self._lab.notebook_access(path) or "write"
            ordered.append(row)
        self._rows.replaceChildren(*ordered)


def install_controls(lab: Lab, host: Any) -> None:
    controls = Controls(lab, host)
    controls.install_commands()
    controls.install_panel(host.classes.Widget)
    host.docManager.services.contents.fileChanged.connect(create_proxy(lambda *_: controls.refresh_panel()))
