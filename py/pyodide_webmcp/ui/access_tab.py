"""The Agent panel's Access tab: every notebook's agent access, and access for all of its cells at once."""

import asyncio
from typing import Any, Optional

from ..base.access_levels import ACCESS_LABELS, ACCESS_LEVELS, Access, is_access
from .controls import button, styled_select
from .page import HumanLab, Page

LEVELS = [(level, ACCESS_LABELS[level]) for level in ACCESS_LEVELS]


def _chosen(select: Any) -> Optional[Access]:
    value = str(select.value)
    return value if is_access(value) else None


class AccessTab:
    def __init__(self, page: Page, lab: HumanLab, body: Any):
        self._page = page
        self._lab = lab
        self._listen = page.listeners()
        self._rows: dict[str, tuple[Any, Any]] = {}
        body.classList.add("jp-webmcp-access")
        body.appendChild(page.element("p", "What a connected agent may do with each notebook and its cells. Hidden "
                                           "notebooks and cells do not exist for the agent.", **{"class": "jp-webmcp-intro"}))
        body.appendChild(button(page, "Refresh", "jp-webmcp-refresh", self._listen, self.refresh))
        self._list = page.element("div", **{"class": "jp-webmcp-rows", "role": "list"})
        body.appendChild(self._list)

    def refresh(self) -> None:
        asyncio.ensure_future(self._render())

    def _row(self, path: str) -> tuple[Any, Any]:
        page, listen = self._page, self._listen
        row = page.element("div", **{"class": "jp-webmcp-row", "data-path": path, "role": "listitem"})
        row.appendChild(page.element("div", path, **{"class": "jp-webmcp-path"}))
        field, notebook_select = styled_select(page, "Notebook", "jp-webmcp-notebook-field", LEVELS)
        notebook_select.classList.add("jp-webmcp-notebook-access")
        notebook_select.setAttribute("aria-label", f"Agent access to {path}")
        notebook_select.addEventListener("change", listen(lambda event: asyncio.ensure_future(
            self._lab.set_notebook_access(path, access=_chosen(event.target)))))
        cells_field, cells_select = styled_select(page, "All cells", "jp-webmcp-cells-field", LEVELS)
        cells_select.classList.add("jp-webmcp-cells-access")
        cells_select.setAttribute("aria-label", f"Access to give every cell of {path}")
        apply = button(page, "Apply", "jp-webmcp-apply", listen, lambda: asyncio.ensure_future(
            self._lab.set_notebook_access(path, cells=_chosen(cells_select))), title=f"Give every cell of {path} this access")
        for node in (field, cells_field, apply):
            row.appendChild(node)
        return row, notebook_select

    async def _render(self) -> None:
        """Rows are kept and updated in place, so a choice the human is making survives a refresh."""
        ordered = []
        for path in await self._lab.notebook_paths():
            if path not in self._rows:
                self._rows[path] = self._row(path)
            row, notebook_select = self._rows[path]
            if not self._page.focused(notebook_select):
                notebook_select.value = await self._lab.notebook_access(path) or "write"
            ordered.append(row)
        self._list.replaceChildren(*ordered)
