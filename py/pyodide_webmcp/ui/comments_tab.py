"""The Agent panel's Comments tab: the human's side of review threads.

Every change goes through the same store as the agent's tools (`review.store`); the human is never restricted by
agent access. The tab is drawn again whenever a notebook's review entry changes, the agent's replies included.
"""

import asyncio
from typing import Any, Callable, Optional

from ..base.clock import iso_now
from ..base.errors import ToolError
from ..base.positions import editor_position, editor_range, offset_of
from ..notebook.resolve import anchored_cell, review_store
from ..review.anchors import (
    DETACHED_STATES,
    AnchorStatus,
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
from .controls import button, set_options, styled_select
from .page import HumanLab, HumanNotebook, Page

THREAD_FILTERS = [("open", "Open"), ("resolved", "Resolved"), ("all", "All"), ("current-cell", "Current cell")]
STATE_WORDS = {"exact": "", "reanchored": "moved with its text", "orphaned": "its text is no longer there",
               "cell-missing": "its cell was deleted"}


def anchor_words(status: AnchorStatus) -> str:
    """Where a thread sits, as the human counts: "Cell 5, on “total = 0”", "Output 1 of cell 5"."""
    index = status["cellIndex"]
    cell = "A deleted cell" if index is None else f"Cell {index + 1}"
    if status["kind"] == "source-range" and status.get("text"):
        text = " ".join(status["text"].split())
        where = f"{cell}, on “{text[:60]}{'…' if len(text) > 60 else ''}”"
    elif status["kind"] == "output":
        where = f"Output {status.get('outputIndex', 0) + 1} of {cell.lower() if index is not None else 'a deleted cell'}"
    else:
        where = cell
    notes = [STATE_WORDS[status["state"]]] + (["the output changed"] if status.get("outputChanged") and index is not None else [])
    notes = [note for note in notes if note]
    return f"{where} ({'; '.join(notes)})" if notes else where


def selection_anchor(lab: HumanLab) -> Optional[dict[str, Any]]:
    """The text selected in the active cell, else the whole active cell."""
    notebook = lab.current_notebook()
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


def active_cell_anchor(lab: HumanLab) -> Optional[dict[str, Any]]:
    notebook = lab.current_notebook()
    index = notebook.active_index() if notebook is not None else None
    return cell_anchor(notebook.cells()[index].id) if notebook is not None and index is not None else None


def output_anchor_at(page: Page, lab: HumanLab, node: Any) -> Optional[dict[str, Any]]:
    """The anchor of the output element that was right-clicked."""
    notebook = lab.current_notebook()
    node = page.found(node)
    child = page.found(node.closest(".jp-OutputArea-child")) if node is not None else None
    cell_node = page.found(child.closest(".jp-Cell")) if child is not None else None
    if notebook is None or child is None or cell_node is None:
        return None
    output_index = list(child.parentElement.children).index(child)
    for cell_index, widget in enumerate(notebook.widgets()):
        if widget.node == cell_node:
            outputs = notebook.cell_json(cell_index).get("outputs") or []
            if output_index < len(outputs):
                return output_anchor(notebook.cells()[cell_index].id, outputs, output_index)
    return None


class CommentsTab:
    def __init__(self, page: Page, lab: HumanLab, body: Any, reveal: Callable[[], None]):
        self._page = page
        self._lab = lab
        self._reveal = reveal  # brings the panel forward on this tab
        self._listen = page.listeners()
        self._card_listeners = page.listeners()  # released whenever the cards are drawn again
        self._pending_anchor: Optional[dict[str, Any]] = None
        self._cell: Optional[str] = None  # the one cell shown (a cell's comment chip), else None
        self.body = body
        body.classList.add("jp-webmcp-comments")
        field, self._filter = styled_select(page, "Show", "jp-webmcp-filter-field", THREAD_FILTERS)
        self._filter.classList.add("jp-webmcp-thread-filter")
        self._filter.addEventListener("change", self._listen(lambda *_: self._filter_changed()))
        self._composer = page.element("div", **{"class": "jp-webmcp-composer"})
        self._composer.hidden = True
        self._composer_label = page.element("label", **{"class": "jp-webmcp-composer-label", "for": "jp-webmcp-new-comment"})
        self._composer_text = page.element("textarea", **{"class": "jp-webmcp-composer-text jp-mod-styled",
                                                          "id": "jp-webmcp-new-comment", "rows": "3"})
        add = button(page, "Add comment", "jp-webmcp-composer-add", self._listen, self._add_thread, "accept")
        for node in (self._composer_label, self._composer_text, add):
            self._composer.appendChild(node)
        self._notice = page.element("p", **{"class": "jp-webmcp-notice", "role": "status"})
        self._threads = page.element("div", **{"class": "jp-webmcp-threads", "role": "list"})
        self._note = page.element("p", **{"class": "jp-webmcp-note"})  # none to show, or some unreadable
        for node in (field, self._composer, self._notice, self._threads, self._note):
            body.appendChild(node)

    def _filter_changed(self) -> None:
        self._cell = None
        set_options(self._page, self._filter, THREAD_FILTERS)
        self.render()

    def show_cell(self, cell_id: str) -> None:
        """Show only the threads of one cell (from its comment chip)."""
        self._cell = cell_id
        set_options(self._page, self._filter, [*THREAD_FILTERS, ("cell", "This cell")])
        self._filter.value = "cell"
        self.render()

    # Drawing

    def render(self) -> None:
        notebook = self._lab.current_notebook()
        if notebook is None:
            self._threads.replaceChildren()
            self._note.textContent = "Open a notebook to see its review comments."
            return
        wanted = str(self._filter.value)
        records = notebook.cells()
        active = notebook.active_index()
        active_id = records[active].id if active is not None and active < len(records) else None
        store = review_store(notebook)
        stale, self._card_listeners = self._card_listeners, self._page.listeners()
        cards = []
        for thread in sorted(store.threads, key=lambda t: t.created_at, reverse=True):
            if wanted in THREAD_STATUSES and thread.status != wanted:
                continue
            if wanted == "current-cell" and thread.cell_id != active_id:
                continue
            if wanted == "cell" and thread.cell_id != self._cell:
                continue
            cards.append(self._card(notebook, thread))
        unreadable = store.unreadable_count() + (1 if store.damaged else 0)
        notes = [] if cards else ["No comments here."]
        if unreadable:
            notes.append(f"{unreadable} stored review item(s) are in a form this version cannot show; they are kept "
                         "as they are.")
        self._note.textContent = " ".join(notes)
        self._note.hidden = not notes
        self._threads.replaceChildren(*cards)
        stale.release()  # the old cards are gone, and so are their listeners

    def _card(self, notebook: HumanNotebook, thread: StoredThread) -> Any:
        page, listen = self._page, self._card_listeners
        status = anchor_status(thread.anchor, anchored_cell(notebook, notebook.cells(), thread.anchor))
        card = page.element("article", **{"class": "jp-webmcp-thread", "data-thread-id": thread.id,
                                          "data-status": thread.status, "role": "listitem"})
        card.appendChild(page.element("div", anchor_words(status), **{"class": "jp-webmcp-thread-anchor",
                                                                     "data-state": status["state"]}))
        for message in thread.messages:
            author = message["author"]
            name = "You" if author["kind"] == "human" else author["name"] or "Browser agent"
            item = page.element("div", **{"class": "jp-webmcp-message", "data-author": author["kind"]})
            item.appendChild(page.element("span", f"{name} · {page.clock(message['createdAt'])}",
                                          **{"class": "jp-webmcp-message-meta"}))
            item.appendChild(page.element("div", message["body"], **{"class": "jp-webmcp-message-body"}))  # text, never HTML
            card.appendChild(item)
        reply = page.element("textarea", **{"class": "jp-webmcp-reply-text jp-mod-styled", "rows": "2",
                                            "aria-label": "Reply", "placeholder": "Reply"})
        reopen = thread.status == "resolved"

        def send_reply(store: ReviewStore, target: StoredThread, now: str) -> Optional[ChangedThread]:
            body = str(reply.value)
            return store.reply(target, body, HUMAN_AUTHOR, now) if body.strip() else None

        actions = page.element("div", **{"class": "jp-webmcp-thread-actions"})
        actions.appendChild(button(page, "Reply", "jp-webmcp-reply", listen, lambda: self._change(thread.id, send_reply)))
        actions.appendChild(button(page, "Reopen" if reopen else "Resolve", "jp-webmcp-toggle-status", listen,
                                   lambda: self._change(thread.id, lambda s, t, now: s.set_status(
                                       t, "open" if reopen else "resolved", now))))
        actions.appendChild(button(page, "Show", "jp-webmcp-show", listen,
                                   lambda: asyncio.ensure_future(self._show(thread.id)), title="Show it in the notebook"))
        if status["state"] in DETACHED_STATES:
            actions.appendChild(button(page, "Re-anchor to selection", "jp-webmcp-reanchor", listen,
                                       lambda: self._reanchor(thread.id)))
        card.appendChild(reply)
        card.appendChild(actions)
        return card

    # The human's changes

    def _save(self, notebook: HumanNotebook, change: Callable[[ReviewStore, str], Optional[ChangedThread]]) -> None:
        try:
            outcome = change(review_store(notebook), iso_now())
        except ToolError as error:  # a damaged store is left alone; say why
            self._notice.textContent = error.message
            return
        self._notice.textContent = ""
        if outcome is not None:
            notebook.set_review_entry(outcome[0])
        self.render()

    def _change(self, thread_id: str,
                change: Callable[[ReviewStore, StoredThread, str], Optional[ChangedThread]]) -> None:
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
        anchor = selection_anchor(self._lab)
        if anchor is None or anchor["kind"] != "source-range":
            self._notice.textContent = "Select the text in a cell first, then Re-anchor."
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

    def start_comment(self, anchor: Optional[dict[str, Any]]) -> None:
        notebook = self._lab.current_notebook()
        if anchor is None or notebook is None:
            return
        self._pending_anchor = anchor
        self._composer.hidden = False
        index = next((i for i, record in enumerate(notebook.cells()) if record.id == anchor["cellId"]), 0)
        where = {"cell": f"cell {index + 1}", "source-range": f"the selection in cell {index + 1}",
                 "output": f"output {anchor.get('outputIndex', 0) + 1} of cell {index + 1}"}[anchor["kind"]]
        self._composer_label.textContent = f"New comment on {where}"
        self._reveal()
        self._composer_text.focus()
