"""The human's controls: access commands, cell markers and the Agent panel. They need no agent."""

import asyncio
from typing import Any

from js import document
from pyodide.ffi import create_proxy

from ..access import ACCESS_LEVELS, next_access
from ..errors import ToolError
from ..notebooks import live_cell, review_store
from ..positions import editor_position, editor_range, offset_of
from ..provenance import iso_now
from ..review import HUMAN_AUTHOR, anchor_status, cell_anchor, output_anchor, range_anchor
from .lab import Lab, js_value, to_js_object

CYCLE_CELL = "jupyterlite-webmcp:cycle-cell-access"
CYCLE_NOTEBOOK = "jupyterlite-webmcp:cycle-notebook-access"
COMMENT_SELECTION = "jupyterlite-webmcp:comment-selection"
COMMENT_CELL = "jupyterlite-webmcp:comment-cell"
COMMENT_OUTPUT = "jupyterlite-webmcp:comment-output"
TOGGLE_PROPOSE = "jupyterlite-webmcp:toggle-propose-mode"
THREAD_FILTERS = {"open": "Open", "resolved": "Resolved", "all": "All", "current-cell": "Current cell"}
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
        self._host = host
        self._tracker = host.tracker
        self._file_browser = js_value(host.fileBrowser)
        self._proxies: list[Any] = []
        self._panel = None
        self._row_nodes: dict[str, tuple[Any, Any]] = {}
        self._card_proxies: list[Any] = []

    def _card_proxy(self, function) -> Any:
        """A listener for a thread card; released when the cards are drawn again."""
        proxy = create_proxy(function)
        self._card_proxies.append(proxy)
        return proxy

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
        commands.addCommand(
            TOGGLE_PROPOSE,
            to_js_object(
                {
                    "label": "Propose mode: review agent edits before they apply",
                    "caption": "Agent edits are shown as a diff under the cell, to accept or deny.",
                    "isToggled": self._proxy(lambda *_: self._lab.proposals.enabled),
                    "execute": self._proxy(lambda *_: self.set_propose_mode(not self._lab.proposals.enabled)),
                }
            ),
        )
        palette = js_value(self._host.palette)
        if palette is not None:
            palette.addItem(to_js_object({"command": TOGGLE_PROPOSE, "category": "Agent (WebMCP)"}))
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
        panel.title.caption = "What a connected agent may see and change, and review comments"
        panel.addClass("jp-webmcp-panel")
        tabs = _element("div", **{"class": "jp-webmcp-tabs", "role": "tablist"})
        access_body = self._access_body()
        comments_body = self._comments_body()
        self._tab_bodies = {"access": access_body, "comments": comments_body}
        for name, label in (("access", "Access"), ("comments", "Comments")):
            button = _element("button", label, **{"class": "jp-webmcp-tab", "role": "tab", "data-tab": name})
            button.addEventListener("click", self._proxy(lambda *_, name=name: self.show_tab(name)))
            tabs.appendChild(button)
        mode = _element("label", **{"class": "jp-webmcp-mode"})
        self._propose_box = _element("input", type="checkbox", **{"class": "jp-webmcp-propose-toggle"})
        self._propose_box.addEventListener(
            "change", self._proxy(lambda event: self.set_propose_mode(bool(event.target.checked)))
        )
        mode.appendChild(self._propose_box)
        mode.appendChild(_element("span", " Propose mode: review agent edits before they apply"))
        also = _element("div", "Also review: ", **{"class": "jp-webmcp-also-review"})
        for action, label in (("insert", "inserts"), ("delete", "deletes"), ("run", "runs")):
            choice = _element("label")
            box = _element("input", type="checkbox", **{"class": f"jp-webmcp-review-{action}"})
            box.addEventListener(
                "change",
                self._proxy(lambda event, action=action: self._choose_review(action, bool(event.target.checked))),
            )
            choice.appendChild(box)
            choice.appendChild(_element("span", f" {label} "))
            also.appendChild(choice)
        for node in (mode, also, tabs, access_body, comments_body):
            panel.node.appendChild(node)
        self._tabs = tabs
        self._app.shell.add(panel, "right", to_js_object({"rank": 900}))
        self._panel = panel
        self.show_tab("access")

    def set_propose_mode(self, enabled: bool) -> None:
        """The human's switch; no tool can read or change it."""
        self._lab.proposals.enabled = enabled
        if self._panel is not None:
            self._propose_box.checked = enabled
        self._app.commands.notifyCommandChanged(TOGGLE_PROPOSE)

    def _choose_review(self, action: str, chosen: bool) -> None:
        reviewed = self._lab.proposals.reviewed_actions
        reviewed.add(action) if chosen else reviewed.discard(action)

    def show_tab(self, name: str) -> None:
        for tab, body in self._tab_bodies.items():
            body.hidden = tab != name
        for button in self._tabs.children:
            button.classList.toggle("jp-mod-active", str(button.dataset.tab) == name)
        self.refresh_panel()

    def _access_body(self) -> Any:
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
        return body

    def refresh_panel(self) -> None:
        if self._panel is not None:
            asyncio.ensure_future(self._render_rows())
            self.render_threads()

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


    # The Comments tab

    def _comments_body(self) -> Any:
        body = _element("div", **{"class": "jp-webmcp-comments"})
        self._filter = _element("select", **{"class": "jp-webmcp-thread-filter", "aria-label": "Show threads"})
        for value, label in THREAD_FILTERS.items():
            self._filter.appendChild(_element("option", label, value=value))
        self._filter.addEventListener("change", self._proxy(lambda *_: self.render_threads()))
        self._composer = _element("div", **{"class": "jp-webmcp-composer"})
        self._composer.hidden = True
        self._composer_label = _element("div", **{"class": "jp-webmcp-composer-label"})
        self._composer_text = _element("textarea", **{"class": "jp-webmcp-composer-text", "aria-label": "New comment"})
        add = _element("button", "Add comment", **{"class": "jp-webmcp-composer-add jp-mod-styled"})
        add.addEventListener("click", self._proxy(lambda *_: self._add_thread()))
        for node in (self._composer_label, self._composer_text, add):
            self._composer.appendChild(node)
        self._threads = _element("div", **{"class": "jp-webmcp-threads"})
        self._comments_notice = _element("p", **{"class": "jp-webmcp-notice", "role": "status"})
        for node in (self._filter, self._composer, self._comments_notice, self._threads):
            body.appendChild(node)
        self._pending_anchor = None
        return body

    def render_threads(self) -> None:
        notebook = self._lab.current_notebook()
        if self._panel is None or notebook is None:
            return
        wanted = str(self._filter.value)
        records = notebook.cells()
        active = notebook.active_index()
        active_id = records[active].id if active is not None and active < len(records) else None
        store = review_store(notebook)
        threads = sorted(store.threads, key=lambda t: t.created_at, reverse=True)
        stale, self._card_proxies = self._card_proxies, []
        cards = []
        for thread in threads:
            if wanted in ("open", "resolved") and thread.status != wanted:
                continue
            if wanted == "current-cell" and thread.cell_id != active_id:
                continue
            cards.append(self._card(notebook, thread))
        unreadable = store.unreadable_count() + (1 if store.damaged else 0)
        if unreadable:
            cards.append(
                _element(
                    "p",
                    f"{unreadable} stored review item(s) are in a form this version cannot show; they are kept as they are.",
                    **{"class": "jp-webmcp-unreadable"},
                )
            )
        self._threads.replaceChildren(*cards)
        for proxy in stale:  # the old cards are gone, and so are their listeners
            proxy.destroy()

    def _card(self, notebook: Any, thread: Any) -> Any:
        status = anchor_status(thread.anchor, live_cell(notebook, notebook.cells(), thread.cell_id))
        card = _element("div", **{"class": "jp-webmcp-thread", "data-thread-id": thread.id, "data-status": thread.status})
        where = "cell gone" if status["cellIndex"] is None else f"cell {status['cellIndex'] + 1}"
        detail = f"{thread.anchor.kind} · {where} · {status['state']}"
        if status.get("outputChanged"):
            detail += " · output changed"
        card.appendChild(_element("div", detail, **{"class": "jp-webmcp-thread-anchor", "data-state": status["state"]}))
        for message in thread.messages:
            author = message["author"]
            name = "You" if author["kind"] == "human" else author["name"] or "Browser agent"
            item = _element("div", **{"class": "jp-webmcp-message", "data-author": author["kind"]})
            item.appendChild(_element("span", f"{name} · {message['createdAt'][:16]}", **{"class": "jp-webmcp-message-meta"}))
            item.appendChild(_element("div", message["body"], **{"class": "jp-webmcp-message-body"}))  # text, never HTML
            card.appendChild(item)
        reply = _element("textarea", **{"class": "jp-webmcp-reply-text", "aria-label": "Reply"})
        actions = _element("div", **{"class": "jp-webmcp-thread-actions"})
        reopen = thread.status == "resolved"
        buttons = [
            ("Reply", "jp-webmcp-reply", lambda: self._change(thread.id, lambda s, t, now: s.reply(t, str(reply.value), HUMAN_AUTHOR, now) if str(reply.value).strip() else None)),
            (
                "Reopen" if reopen else "Resolve",
                "jp-webmcp-toggle-status",
                lambda: self._change(thread.id, lambda s, t, now: s.set_status(t, "open" if reopen else "resolved", now)),
            ),
            ("Show", "jp-webmcp-show", lambda: asyncio.ensure_future(self._show(thread.id))),
        ]
        if status["state"] in ("orphaned", "cell-missing"):
            buttons.append(("Re-anchor to selection", "jp-webmcp-reanchor", lambda: self._reanchor(thread.id)))
        for label, css, action in buttons:
            button = _element("button", label, **{"class": f"{css} jp-mod-styled"})
            button.addEventListener("click", self._card_proxy(lambda *_, action=action: action()))
            actions.appendChild(button)
        card.appendChild(reply)
        card.appendChild(actions)
        return card

    def _save(self, notebook: Any, change) -> None:
        """Apply one human change through the shared review operations (the human is never restricted)."""
        try:
            outcome = change(review_store(notebook), iso_now())
        except ToolError as error:
            self._comments_notice.textContent = error.message
            return
        self._comments_notice.textContent = ""
        if outcome is not None:
            notebook.set_review_entry(outcome[0])
        self.render_threads()

    def _change(self, thread_id: str, change) -> None:
        notebook = self._lab.current_notebook()
        if notebook is None:
            return

        def on_thread(store: Any, now: str) -> Any:
            thread = next((t for t in store.threads if t.id == thread_id), None)
            return change(store, thread, now) if thread is not None else None

        self._save(notebook, on_thread)

    def _selection_anchor(self, notebook: Any) -> Any:
        index = notebook.active_index()
        if index is None:
            return None
        record = notebook.cells()[index]
        editor = notebook.editor_state()
        if editor is not None and editor.selection_start != editor.selection_end:
            points = [editor_position(record.source, *point) for point in (editor.selection_start, editor.selection_end)]
            start, end = sorted(offset_of(record.source, point) for point in points)
            return range_anchor(record.id, record.source, start, end)
        return cell_anchor(record.id)

    def _start_comment(self, anchor: Any) -> None:
        if anchor is None:
            return
        self._pending_anchor = anchor
        self._composer.hidden = False
        self._composer_label.textContent = f"New comment on {anchor['kind']} of the active cell"
        self._app.shell.activateById(PANEL_ID)
        self.show_tab("comments")
        self._composer_text.focus()

    def _add_thread(self) -> None:
        notebook = self._lab.current_notebook()
        body = str(self._composer_text.value)
        if notebook is None or self._pending_anchor is None or not body.strip():
            return
        anchor = self._pending_anchor
        self._save(notebook, lambda store, now: store.create(anchor, body, HUMAN_AUTHOR, now))
        self._pending_anchor = None
        self._composer_text.value = ""
        self._composer.hidden = True

    def _reanchor(self, thread_id: str) -> None:
        notebook = self._lab.current_notebook()
        anchor = self._selection_anchor(notebook) if notebook is not None else None
        if anchor is None or anchor["kind"] != "source-range":
            return
        self._change(thread_id, lambda store, thread, now: store.reanchor(thread, anchor, now))

    async def _show(self, thread_id: str) -> None:
        notebook = self._lab.current_notebook()
        thread = next((t for t in review_store(notebook).threads if t.id == thread_id), None)
        live = live_cell(notebook, notebook.cells(), thread.cell_id) if thread else None
        if live is None:
            return
        status = anchor_status(thread.anchor, live)
        selection = editor_range(live.source, status["range"]["start"], status["range"]["end"]) if "range" in status else None
        await notebook.focus_cell(live.index, selection)
        if thread.anchor.kind == "output":
            notebook.highlight_output(live.index, thread.anchor.output_index)

    def _output_at(self, node: Any) -> Any:
        """(cell index, output index) of the output element that was right-clicked."""
        notebook = self._lab.current_notebook()
        child = node.closest(".jp-OutputArea-child") if node is not None else None
        cell_node = child.closest(".jp-Cell") if child is not None else None
        if notebook is None or cell_node is None:
            return None
        siblings = list(child.parentElement.children)
        for index, widget in enumerate(notebook.widgets()):
            if widget.node == cell_node:
                return index, siblings.index(child)
        return None

    def _comment_on_output(self) -> None:
        notebook = self._lab.current_notebook()
        test = create_proxy(lambda node: bool(node.classList.contains("jp-OutputArea-child")))
        try:
            hit = self._output_at(self._app.contextMenuHitTest(test))
        finally:
            test.destroy()
        if notebook is None or hit is None:
            return
        cell_index, output_index = hit
        record = notebook.cells()[cell_index]
        outputs = notebook.cell_json(cell_index).get("outputs") or []
        if output_index < len(outputs):
            self._start_comment(output_anchor(record.id, outputs, output_index))

    def install_comment_commands(self) -> None:
        commands = self._app.commands
        definitions = (
            (COMMENT_SELECTION, "Comment on selection", lambda: self._start_comment(self._selection_anchor(self._lab.current_notebook()))),
            (COMMENT_CELL, "Comment on cell", lambda: self._start_comment(self._cell_anchor())),
            (COMMENT_OUTPUT, "Comment on this output", self._comment_on_output),
        )
        for command, label, action in definitions:
            commands.addCommand(
                command, to_js_object({"label": label, "execute": self._proxy(lambda *_, action=action: action())})
            )
        menu = self._app.contextMenu
        menu.addItem(to_js_object({"command": COMMENT_SELECTION, "selector": ".jp-Notebook .jp-Cell .jp-Editor", "rank": 21}))
        menu.addItem(to_js_object({"command": COMMENT_CELL, "selector": ".jp-Notebook .jp-Cell", "rank": 22}))
        menu.addItem(to_js_object({"command": COMMENT_OUTPUT, "selector": ".jp-Notebook .jp-OutputArea-child", "rank": 23}))
        self._tracker.currentChanged.connect(self._proxy(lambda *_: self.render_threads()))

    def _cell_anchor(self) -> Any:
        notebook = self._lab.current_notebook()
        index = notebook.active_index() if notebook is not None else None
        return cell_anchor(notebook.cells()[index].id) if index is not None else None


def install_controls(lab: Lab, host: Any) -> None:
    controls = Controls(lab, host)
    controls.install_commands()
    controls.install_comment_commands()
    controls.install_panel(host.classes.Widget)
    host.docManager.services.contents.fileChanged.connect(create_proxy(lambda *_: controls.refresh_panel()))
