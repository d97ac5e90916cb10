"""The human's commands: access from the cell and file browser menus, Propose mode from the palette, comments from
the cell menus. The reference extension's command ids run the same commands, so a site's shortcuts and settings
written for it keep working."""

import asyncio
from typing import Any

from ..base.access_levels import ACCESS_LABELS, Access
from ..notebook.access import next_access
from .comments_tab import active_cell_anchor, output_anchor_at, selection_anchor
from .page import HumanLab, Page
from .panel import AgentPanel

OURS = "jupyterlite-pyodide-webmcp"
REFERENCE = "jupyterlite-webmcp"
CYCLE_CELL = f"{OURS}:cycle-cell-access"
CYCLE_NOTEBOOK = f"{OURS}:cycle-notebook-access"
TOGGLE_PROPOSE = f"{OURS}:toggle-propose-mode"
SET_PROPOSE = f"{OURS}:set-propose-mode"
COMMENT_SELECTION = f"{OURS}:comment-selection"
COMMENT_CELL = f"{OURS}:comment-cell"
COMMENT_OUTPUT = f"{OURS}:comment-output"
SHOW_PANEL = f"{OURS}:show-agent-panel"
REFERENCE_IDS = {
    CYCLE_CELL: f"{REFERENCE}:cycle-cell-access",
    CYCLE_NOTEBOOK: f"{REFERENCE}:cycle-notebook-access",
    TOGGLE_PROPOSE: f"{REFERENCE}:toggle-propose-mode",
    SET_PROPOSE: f"{REFERENCE}:set-propose-mode",
    COMMENT_SELECTION: f"{REFERENCE}:add-comment",
    COMMENT_CELL: f"{REFERENCE}:add-cell-comment",
    COMMENT_OUTPUT: f"{REFERENCE}:add-output-comment",
    SHOW_PANEL: f"{REFERENCE}:open-review",
}
"""Our commands under the reference extension's ids (its set-propose-mode takes {mode: direct | propose})."""
CATEGORY = "Agent (WebMCP)"


class HumanCommands:
    def __init__(self, page: Page, lab: HumanLab, panel: AgentPanel, file_browser: Any, redraw: Any):
        self._page = page
        self._lab = lab
        self._panel = panel
        self._file_browser = file_browser
        self._redraw = redraw  # a notebook's marks
        self._listen = page.listeners()
        self._is_output = self._listen(lambda node: bool(node.classList.contains("jp-OutputArea-child")))

    def _current_cell_access(self) -> Access:
        notebook = self._lab.current_notebook()
        index = notebook.active_index() if notebook is not None else None
        return notebook.cells()[index].access if notebook is not None and index is not None else "write"

    def _cycle_cells(self) -> None:
        notebook = self._lab.current_notebook()
        if notebook is None or notebook.active_index() is None:
            return
        access = next_access(self._current_cell_access())
        for index in notebook.selected_indexes():
            notebook.set_cell_access(index, access)
        self._redraw(notebook)
        self._panel.refresh()

    async def _cycle_notebooks(self) -> None:
        selected = self._file_browser.selectedItems() if self._file_browser is not None else []
        for path in [str(item.path) for item in selected if str(item.type) == "notebook"]:
            current = await self._lab.notebook_access(path) or "write"
            await self._lab.set_notebook_access(path, access=next_access(current))
        self._panel.refresh()

    def _comment(self, anchor: Any) -> None:
        if anchor is None:
            return
        self._panel.reveal("comments")
        if self._panel.comments is not None:
            self._panel.comments.start_comment(anchor)

    def _comment_on_output(self) -> None:
        test = self._is_output
        self._comment(output_anchor_at(self._page, self._lab, self._page.app.contextMenuHitTest(test)))

    def _set_mode(self, args: Any) -> None:
        mode = getattr(args, "mode", None) if args is not None else None
        if mode in ("direct", "propose"):
            self._panel.set_propose_mode(mode == "propose")

    def install(self) -> None:
        listen = self._listen

        def cell_label(*_: Any) -> str:
            current = self._current_cell_access()
            return f"Agent access: {ACCESS_LABELS[current]} (change to {ACCESS_LABELS[next_access(current)]})"

        definitions: dict[str, dict[str, Any]] = {
            CYCLE_CELL: {"label": listen(cell_label),
                         "caption": "Cycle what a connected agent may do with the selected cells: write, read only, hidden.",
                         "execute": listen(lambda *_: self._cycle_cells()),
                         "isEnabled": listen(lambda *_: self._lab.current_notebook() is not None)},
            CYCLE_NOTEBOOK: {"label": "Cycle agent access (write, read only, hidden)",
                             "caption": "Cycle what a connected agent may do with this notebook.",
                             "execute": listen(lambda *_: asyncio.ensure_future(self._cycle_notebooks()))},
            TOGGLE_PROPOSE: {"label": "Propose mode: review agent edits before they apply",
                             "caption": "Agent edits wait under their cell, as a diff, for you to accept or deny.",
                             "isToggled": listen(lambda *_: bool(self._lab.proposals.enabled)),
                             "execute": listen(lambda *_: self._panel.set_propose_mode(not self._lab.proposals.enabled))},
            SET_PROPOSE: {"label": "Set the agent mode (direct or propose)",
                          "execute": listen(lambda args=None, *_: self._set_mode(args))},
            COMMENT_SELECTION: {"label": "Comment on selection",
                                "execute": listen(lambda *_: self._comment(selection_anchor(self._lab)))},
            COMMENT_CELL: {"label": "Comment on cell", "execute": listen(lambda *_: self._comment(active_cell_anchor(self._lab)))},
            COMMENT_OUTPUT: {"label": "Comment on this output", "execute": listen(lambda *_: self._comment_on_output())},
            SHOW_PANEL: {"label": "Show the Agent panel", "execute": listen(lambda *_: self._panel.reveal("activity"))},
        }
        commands = self._page.app.commands
        for command, options in definitions.items():
            commands.addCommand(command, self._page.options(**options))
            commands.addCommand(REFERENCE_IDS[command], self._page.options(**options))
        palette = self._page.palette
        if palette is not None:
            for command in (TOGGLE_PROPOSE, SHOW_PANEL):
                palette.addItem(self._page.options(command=command, category=CATEGORY))
        menu = self._page.app.contextMenu
        for command, selector, rank in ((CYCLE_CELL, ".jp-Notebook .jp-Cell", 20),
                                        (CYCLE_NOTEBOOK, '.jp-DirListing-item[data-file-type="notebook"]', 20),
                                        (COMMENT_SELECTION, ".jp-Notebook .jp-Cell .jp-Editor", 21),
                                        (COMMENT_CELL, ".jp-Notebook .jp-Cell", 22),
                                        (COMMENT_OUTPUT, ".jp-Notebook .jp-OutputArea-child", 23)):
            menu.addItem(self._page.options(command=command, selector=selector, rank=rank))

    def propose_changed(self) -> None:
        """Menus and the palette redraw the toggle."""
        for command in (TOGGLE_PROPOSE, REFERENCE_IDS[TOGGLE_PROPOSE]):
            if self._page.app.commands.hasCommand(command):
                self._page.app.commands.notifyCommandChanged(command)
