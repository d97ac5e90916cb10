"""The Agent panel's Access tab: every notebook's agent access, and access for all of its cells at once."""

import asyncio
from typing import Any, Optional

from js import document

from ..notebook.access import ACCESS_LABELS, ACCESS_LEVELS, Access, is_access
from .dom import Listeners, element, tab_body
from .lab import Lab


def _chosen(select: Any) -> Optional[Access]:
    """The access level a select of levels shows."""
    value = str(select.value)
    return value if is_access(value) else None


class AccessTab:
    def __init__(self, lab: Lab):
        self._lab = lab
        self._listen = Listeners()
        self._row_nodes: dict[str, tuple[Any, Any]] = {}
        self.body, self._rows = tab_body(
            "jp-webmcp-access",
            "Set what a connected agent may do with each notebook and its cells. "
            "Hidden notebooks and cells do not exist for the agent.",
            ("Refresh", "jp-webmcp-refresh", self._listen(lambda *_: self.refresh())),
            "jp-webmcp-rows",
        )

    def refresh(self) -> None:
        asyncio.ensure_future(self._render_rows())

    def _select(self, label: str) -> Any:
        select = element("select", **{"aria-label": label})
        for level in ACCESS_LEVELS:
            select.appendChild(element("option", ACCESS_LABELS[level], value=level))
        return select

    def _new_row(self, path: str) -> tuple[Any, Any]:
        row = element("div", **{"class": "jp-webmcp-row", "data-path": path})
        row.appendChild(element("span", path, **{"class": "jp-webmcp-path"}))
        notebook_select = self._select(f"Agent access to {path}")
        notebook_select.classList.add("jp-webmcp-notebook-access")
        notebook_select.addEventListener(
            "change",
            self._listen(
                lambda event: asyncio.ensure_future(self._lab.set_notebook_access(path, access=_chosen(event.target)))
            ),
        )
        cells_select = self._select(f"Access to apply to every cell of {path}")
        cells_select.classList.add("jp-webmcp-cells-access")
        apply = element("button", "Apply to all cells", **{"class": "jp-webmcp-apply jp-mod-styled"})
        apply.addEventListener(
            "click",
            self._listen(
                lambda *_: asyncio.ensure_future(self._lab.set_notebook_access(path, cells=_chosen(cells_select)))
            ),
        )
        for node in (notebook_select, cells_select, apply):
            row.appendChild(node)
        return row, notebook_select

    async def _render_rows(self) -> None:
        """Rows are kept and updated in place, so a choice the human is making survives a refresh."""
        ordered = []
        for path in await self._lab.notebook_paths():
            if path not in self._row_nodes:
                self._row_nodes[path] = self._new_row(path)
            row, notebook_select = self._row_nodes[path]
            if document.activeElement != notebook_select:
                notebook_select.value = await self._lab.notebook_access(path) or "write"
            ordered.append(row)
        self._rows.replaceChildren(*ordered)
