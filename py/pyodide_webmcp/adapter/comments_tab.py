"""The Agent panel's Comments tab and the comment commands: the human's side of review threads.

Every change goes through the same operations as the agent's tools
(`review.ReviewStore`); the human is never restricted by agent access.
"""

import asyncio
from typing import Any, Callable, Optional

from pyodide.ffi import create_proxy

from ..base.clock import iso_now
from ..base.errors import ToolError
from ..base.positions import editor_position, editor_range, offset_of
from ..notebook.resolve import anchored_cell, review_store
from ..review.anchors import (
    DETACHED_STATES,
    anchor_status,
    cell_anchor,
    output_anchor,
    range_anchor,
)
from ..review.store import (
    HUMAN_AUTHOR,
    THREAD_STATUSES,
    ChangedThread,
    ReviewStore,
    StoredThread,
)
from .dom import Listeners, element
from .ffi import to_js_object
from .notebook import NotebookHandle
from .page_lab import PageLab

COMMENT_SELECTION = "jupyterlite-pyodide-webmcp:comment-selection"
COMMENT_CELL = "jupyterlite-pyodide-webmcp:comment-cell"
COMMENT_OUTPUT = "jupyterlite-pyodide-webmcp:comment-output"
THREAD_FILTERS = {"open": "Open", "resolved": "Resolved", "all": "All", "current-cell": "Current cell"}


class CommentsTab:
    def __init__(self, lab: PageLab, app: Any, reveal: Callable[[], None]):
        self._lab = lab
        self._app = app
        self._reveal = reveal  # brings the panel forward on this tab
        self._listen = Listeners()
        self._card_listeners = Listeners()  # released whenever the cards are drawn again
        self._pending_anchor: Optional[dict[str, Any]] = None
        self.body = element("div", **{"class": "jp-webmcp-comments"})
        self._filter = element("select", **{"class": "jp-webmcp-thread-filter", "aria-label": "Show threads"})
        for value, label in THREAD_FILTERS.items():
            self._filter.appendChild(element("option", label, value=value))
        self._filter.addEventListener("change", self._listen(lambda *_: self.render()))
        self._composer = element("div", **{"class": "jp-webmcp-composer"})
        self._composer.hidden = True
        self._composer_label = element("div", **{"class": "jp-webmcp-composer-label"})
        self._composer_text = element("textarea", **{"class": "jp-webmcp-composer-text", "aria-label": "New comment"})
        add = element("button", "Add comment", **{"class": "jp-webmcp-composer-add jp-mod-styled"})
        add.addEventListener("click", self._listen(lambda *_: self._add_thread()))
        for node in (self._composer_label, self._composer_text, add):
            self._composer.appendChild(node)
        self._notice = element("p", **{"class": "jp-webmcp-notice", "role": "status"})
        self._threads = element("div", **{"class": "jp-webmcp-threads"})
        for node in (self._filter, self._composer, self._notice, self._threads):
            self.body.appendChild(node)

    # Drawing

    def render(self) -> None:
        notebook = self._lab.current_notebook()
        if notebook is None:
            return
        wanted = str(self._filter.value)
        records = notebook.cells()
        active = notebook.active_index()
        active_id = records[active].id if active is not None and active < len(records) else None
        store = review_store(notebook)
        stale, self._card_listeners = self._card_listeners, Listeners()
        cards = []
        for thread in sorted(store.threads, key=lambda t: t.created_at, reverse=True):
            if wanted in THREAD_STATUSES and thread.status != wanted:
                continue
            if wanted == "current-cell" and thread.cell_id != active_id:
                continue
            cards.append(self._card(notebook, thread))
        unreadable = store.unreadable_count() + (1 if store.damaged else 0)
        if unreadable:
            text = f"{unreadable} stored review item(s) are in a form this version cannot show; they are kept as they are."
            cards.append(element("p", text, **{"class": "jp-webmcp-unreadable"}))
        self._threads.replaceChildren(*cards)
        stale.release()  # the old cards are gone, and so are their listeners

    def _card(self, notebook: NotebookHandle, thread: StoredThread) -> Any:
        status = anchor_status(thread.anchor, anchored_cell(notebook, notebook.cells(), thread.anchor))
        card = element("div", **{"class": "jp-webmcp-thread", "data-thread-id": thread.id, "data-status": thread.status})
        where = "cell gone" if status["cellIndex"] is None else f"cell {status['cellIndex'] + 1}"
        detail = f"{thread.anchor.kind} · {where} · {status['state']}"
        if status.get("outputChanged"):
            detail += " · output changed"
        card.appendChild(element("div", detail, **{"class": "jp-webmcp-thread-anchor", "data-state": status["state"]}))
        for message in thread.messages:
            author = message["author"]
            name = "You" if author["kind"] == "human" else author["name"] or "Browser agent"
            item = element("div", **{"class": "jp-webmcp-message", "data-author": author["kind"]})
            item.appendChild(element("span", f"{name} · {message['createdAt'][:16]}", **{"class": "jp-webmcp-message-meta"}))
            item.appendChild(element("div", message["body"], **{"class": "jp-webmcp-message-body"}))  # text, never HTML
            card.appendChild(item)
        reply = element("textarea", **{"class": "jp-webmcp-reply-text", "aria-label": "Reply"})
        reopen = thread.status == "resolved"

        def send_reply(store: ReviewStore, target: StoredThread, now: str) -> Optional[ChangedThread]:
            body = str(reply.value)
            return store.reply(target, body, HUMAN_AUTHOR, now) if body.strip() else None

        buttons = [
            ("Reply", "jp-webmcp-reply", lambda: self._change(thread.id, send_reply)),
            (
                "Reopen" if reopen else "Resolve",
                "jp-webmcp-toggle-status",
                lambda: self._change(thread.id, lambda s, t, now: s.set_status(t, "open" if reopen else "resolved", now)),
            ),
            ("Show", "jp-webmcp-show", lambda: asyncio.ensure_future(self._show(thread.id))),
        ]
        if status["state"] in DETACHED_STATES:
            buttons.append(("Re-anchor to selection", "jp-webmcp-reanchor", lambda: self._reanchor(thread.id)))
        actions = element("div", **{"class": "jp-webmcp-thread-actions"})
        for label, css, action in buttons:
            button = element("button", label, **{"class": f"{css} jp-mod-styled"})
            button.addEventListener("click", self._card_listeners(lambda *_, action=action: action()))
            actions.appendChild(button)
        card.appendChild(reply)
        card.appendChild(actions)
        return card

    # The human's changes

    def _save(self, notebook: NotebookHandle, change: Callable[[ReviewStore, str], Optional[ChangedThread]]) -> None:
        try:
            outcome = change(review_store(notebook), iso_now())
        except ToolError as error:  # a damaged store is left alone; say why
            self._notice.textContent = error.message
            return
        self._notice.textContent = ""
        if outcome is not None:
            notebook.set_review_entry(outcome[0])
        self.render()

    def _change(
        self, thread_id: str, change: Callable[[ReviewStore, StoredThread, str], Optional[ChangedThread]]
    ) -> None:
        notebook = self._lab.current_notebook()
        if notebook is None:
            return

        def on_thread(store: ReviewStore, now: str) -> Optional[ChangedThread]:
            thread = next((t for t in store.threads if t.id == thread_id), None)
            return change(store, thread, now) if thread is not None else None

        self._save(notebook, on_thread)

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
        anchor = self._selection_anchor(self._lab.current_notebook())
        if anchor is None or anchor["kind"] != "source-range":
            return
        self._change(thread_id, lambda store, thread, now: store.reanchor(thread, anchor, now))

    async def _show(self, thread_id: str) -> None:
        notebook = self._lab.current_notebook()
        if notebook is None:
            return
        thread = next((t for t in review_store(notebook).threads if t.id == thread_id), None)
        live = anchored_cell(notebook, notebook.cells(), thread.anchor) if thread is not None else None
        if thread is None or live is None:
            return
        status = anchor_status(thread.anchor, live)
        selection = editor_range(live.source, status["range"]["start"], status["range"]["end"]) if "range" in status else None
        await notebook.focus_cell(live.index, selection)
        if thread.anchor.kind == "output":
            notebook.highlight_output(live.index, thread.anchor.output_index)

    # Starting a comment from the notebook

    def _selection_anchor(self, notebook: Optional[NotebookHandle]) -> Optional[dict[str, Any]]:
        index = notebook.active_index() if notebook is not None else None
        if notebook is None or index is None:
            return None
        record = notebook.cells()[index]
        editor = notebook.editor_state()
        if editor is not None and editor.selection_start != editor.selection_end:
            points = [editor_position(record.source, *point) for point in (editor.selection_start, editor.selection_end)]
            start, end = sorted(offset_of(record.source, point) for point in points)
            return range_anchor(record.id, record.source, start, end)
        return cell_anchor(record.id)

    def _cell_anchor(self) -> Optional[dict[str, Any]]:
        notebook = self._lab.current_notebook()
        index = notebook.active_index() if notebook is not None else None
        return cell_anchor(notebook.cells()[index].id) if notebook is not None and index is not None else None

    def _start_comment(self, anchor: Optional[dict[str, Any]]) -> None:
        if anchor is None:
            return
        self._pending_anchor = anchor
        self._composer.hidden = False
        self._composer_label.textContent = f"New comment on {anchor['kind']} of the active cell"
        self._reveal()
        self._composer_text.focus()

    def _output_at(self, node: Any) -> Optional[tuple[int, int]]:
        """(cell index, output index) of the output element that was right-clicked."""
        notebook = self._lab.current_notebook()
        child = node.closest(".jp-OutputArea-child") if node is not None else None
        cell_node = child.closest(".jp-Cell") if child is not None else None
        if notebook is None or child is None or cell_node is None:
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

    def install_commands(self, tracker: Any) -> None:
        commands = self._app.commands
        definitions = (
            (COMMENT_SELECTION, "Comment on selection", lambda: self._start_comment(self._selection_anchor(self._lab.current_notebook()))),
            (COMMENT_CELL, "Comment on cell", lambda: self._start_comment(self._cell_anchor())),
            (COMMENT_OUTPUT, "Comment on this output", self._comment_on_output),
        )
        for command, label, action in definitions:
            commands.addCommand(command, to_js_object({"label": label, "execute": self._listen(lambda *_, action=action: action())}))
        menu = self._app.contextMenu
        menu.addItem(to_js_object({"command": COMMENT_SELECTION, "selector": ".jp-Notebook .jp-Cell .jp-Editor", "rank": 21}))
        menu.addItem(to_js_object({"command": COMMENT_CELL, "selector": ".jp-Notebook .jp-Cell", "rank": 22}))
        menu.addItem(to_js_object({"command": COMMENT_OUTPUT, "selector": ".jp-Notebook .jp-OutputArea-child", "rank": 23}))
        tracker.currentChanged.connect(self._listen(lambda *_: self.render()))
