"""The human's controls: access commands and menus, the Propose-mode switch, and the Agent panel's shell.

They work with no agent connected; the tabs live in `access_tab`, `comments_tab` and `log_tab`.
"""

import asyncio
from typing import Any

from ..base.shapes import OPT_IN_REVIEWS, OptInReview
from ..notebook.access import ACCESS_LABELS, Access, next_access
from ..owner.site_settings import Settings
from .access_tab import AccessTab
from .comments_tab import CommentsTab
from .dom import Listeners, element
from .ffi import js_value, to_js_object
from .lab import Lab
from .log_tab import LogTab

CYCLE_CELL = "jupyterlite-pyodide-webmcp:cycle-cell-access"
CYCLE_NOTEBOOK = "jupyterlite-pyodide-webmcp:cycle-notebook-access"
TOGGLE_PROPOSE = "jupyterlite-pyodide-webmcp:toggle-propose-mode"
PANEL_ID = "jp-webmcp-agent-panel"


class AgentPanel:
    def __init__(self, lab: Lab, host: Any):
        self._lab = lab
        self._app = host.app
        self._host = host
        self._file_browser = js_value(host.fileBrowser)
        self._listen = Listeners()
        self.access = AccessTab(lab)
        self.comments = CommentsTab(lab, host.app, lambda: self.reveal("comments"))
        self.log = LogTab(lab.snippet_log, self._count_snippets)
        self._bodies = {"access": self.access.body, "comments": self.comments.body, "log": self.log.body}
        self._widget = host.classes.Widget.new()
        self._widget.id = PANEL_ID
        self._widget.title.label = "Agent"
        self._widget.title.caption = "What a connected agent may see and change, and review comments"
        self._widget.addClass("jp-webmcp-panel")
        self._tabs = element("div", **{"class": "jp-webmcp-tabs", "role": "tablist"})
        for name, label in (("access", "Access"), ("comments", "Comments"), ("log", "Log")):
            button = element("button", label, **{"class": "jp-webmcp-tab", "role": "tab", "data-tab": name})
            button.addEventListener("click", self._listen(lambda *_, name=name: self.show_tab(name)))
            self._tabs.appendChild(button)
        for node in (*self._propose_controls(), self._tabs, *self._bodies.values()):
            self._widget.node.appendChild(node)
        self._app.shell.add(self._widget, "right", to_js_object({"rank": 900}))
        self.show_tab("access")
        self._apply_settings(lab.settings.current)
        lab.settings.on_change(self._apply_settings)

    # Propose mode: the human's switch, kept in the settings (tools can read it, never change it)

    def _propose_controls(self) -> tuple[Any, Any]:
        mode = element("label", **{"class": "jp-webmcp-mode"})
        self._propose_box = element("input", type="checkbox", **{"class": "jp-webmcp-propose-toggle"})
        self._propose_box.addEventListener(
            "change", self._listen(lambda event: self.set_propose_mode(bool(event.target.checked)))
        )
        mode.appendChild(self._propose_box)
        mode.appendChild(element("span", " Propose mode: review agent edits before they apply"))
        also = element("div", "Also review: ", **{"class": "jp-webmcp-also-review"})
        self._review_boxes = {}
        for action in OPT_IN_REVIEWS:
            choice = element("label")
            box = self._review_boxes[action] = element("input", type="checkbox", **{"class": f"jp-webmcp-review-{action}"})
            box.addEventListener(
                "change",
                self._listen(lambda event, action=action: self._choose_review(action, bool(event.target.checked))),
            )
            choice.appendChild(box)
            choice.appendChild(element("span", f" {action}s "))
            also.appendChild(choice)
        return mode, also

    def set_propose_mode(self, enabled: bool) -> None:
        """The human's switch: applies at once, and is kept in the settings for the next visit."""
        self._lab.proposals.enabled = enabled
        self._propose_box.checked = enabled
        self._notify_propose_toggle()
        self._lab.settings.save("proposeMode", enabled)

    def _notify_propose_toggle(self) -> None:
        """Menus and the palette redraw the toggle (once the command exists)."""
        if self._app.commands.hasCommand(TOGGLE_PROPOSE):
            self._app.commands.notifyCommandChanged(TOGGLE_PROPOSE)

    def _choose_review(self, action: OptInReview, chosen: bool) -> None:
        reviewed = self._lab.proposals.reviewed_actions
        reviewed.add(action) if chosen else reviewed.discard(action)
        self._lab.settings.save("proposeActions", sorted(reviewed))

    def _apply_settings(self, settings: Settings) -> None:
        """Propose mode as the settings say (a value the site fixed cannot be switched here)."""
        proposals = self._lab.proposals
        proposals.enabled = settings.propose_mode
        proposals.reviewed_actions = set(settings.propose_actions)
        self._propose_box.checked = settings.propose_mode
        self._propose_box.disabled = self._lab.settings.fixed("proposeMode")
        for action, box in self._review_boxes.items():
            box.checked = action in settings.propose_actions
            box.disabled = self._lab.settings.fixed("proposeActions")
        self._notify_propose_toggle()

    # Tabs

    def show_tab(self, name: str) -> None:
        for tab, body in self._bodies.items():
            body.hidden = tab != name
        for button in self._tabs.children:
            button.classList.toggle("jp-mod-active", str(button.dataset.tab) == name)
        self.refresh()

    def _count_snippets(self, count: int) -> None:
        for button in self._tabs.children:
            if str(button.dataset.tab) == "log":
                button.textContent = f"Log ({count})" if count else "Log"

    def reveal(self, tab: str) -> None:
        self._app.shell.activateById(PANEL_ID)
        self.show_tab(tab)

    def refresh(self) -> None:
        self.access.refresh()
        self.comments.render()

    def refresh_on(self, signal: Any) -> None:
        signal.connect(self._listen(lambda *_: self.refresh()))

    # Access commands

    def _current_cell_access(self) -> Access:
        notebook = self._lab.current_notebook()
        index = notebook.active_index() if notebook is not None else None
        return notebook.cells()[index].access if notebook is not None and index is not None else "write"

    def _cycle_cells(self, *_: Any) -> None:
        notebook = self._lab.current_notebook()
        if notebook is None or notebook.active_index() is None:
            return
        access = next_access(self._current_cell_access())
        for index in notebook.selected_indexes():
            notebook.set_cell_access(index, access)
        self.refresh()

    async def _cycle_notebooks(self) -> None:
        selected = self._file_browser.selectedItems() if self._file_browser is not None else []
        for path in [str(item.path) for item in selected if str(item.type) == "notebook"]:
            current = await self._lab.notebook_access(path) or "write"
            await self._lab.set_notebook_access(path, access=next_access(current))
        self.access.refresh()

    def install_commands(self) -> None:
        commands = self._app.commands

        def cell_label(*_: Any) -> str:
            current = self._current_cell_access()
            return f"Agent access: {ACCESS_LABELS[current]} (change to {ACCESS_LABELS[next_access(current)]})"

        definitions = {
            CYCLE_CELL: {
                "label": self._listen(cell_label),
                "caption": "Cycle what a connected agent may do with the selected cells: write, read only, hidden.",
                "execute": self._listen(self._cycle_cells),
                "isEnabled": self._listen(lambda *_: self._lab.current_notebook() is not None),
            },
            CYCLE_NOTEBOOK: {
                "label": "Cycle agent access (write, read only, hidden)",
                "caption": "Cycle what a connected agent may do with this notebook.",
                "execute": self._listen(lambda *_: asyncio.ensure_future(self._cycle_notebooks())),
            },
            TOGGLE_PROPOSE: {
                "label": "Propose mode: review agent edits before they apply",
                "caption": "Agent edits are shown as a diff under the cell, to accept or deny.",
                "isToggled": self._listen(lambda *_: self._lab.proposals.enabled),
                "execute": self._listen(lambda *_: self.set_propose_mode(not self._lab.proposals.enabled)),
            },
        }
        for command, options in definitions.items():
            commands.addCommand(command, to_js_object(options))
        palette = js_value(self._host.palette)
        if palette is not None:
            palette.addItem(to_js_object({"command": TOGGLE_PROPOSE, "category": "Agent (WebMCP)"}))
        menu = self._app.contextMenu
        menu.addItem(to_js_object({"command": CYCLE_CELL, "selector": ".jp-Notebook .jp-Cell", "rank": 20}))
        notebook_items = '.jp-DirListing-item[data-file-type="notebook"]'
        menu.addItem(to_js_object({"command": CYCLE_NOTEBOOK, "selector": notebook_items, "rank": 20}))


def install_controls(lab: Lab, host: Any) -> AgentPanel:
    panel = AgentPanel(lab, host)
    panel.install_commands()
    panel.comments.install_commands(host.tracker)
    panel.refresh_on(host.docManager.services.contents.fileChanged)
    return panel
