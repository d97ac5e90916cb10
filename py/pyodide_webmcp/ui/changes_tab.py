"""The Agent panel's Changes tab: per notebook, every change the agent made since a checkpoint (when the human
opened the notebook, saved it, or started one), each to take back on its own or all together, newest first.
What cannot be taken back says why."""

from typing import Any

from ..base.clock import iso_now
from .agent_changes import AgentChange, ChangeJournal
from .cell_marks import changed_lines
from .controls import button, set_options, styled_select
from .diff_view import diff_view
from .page import HumanLab, HumanNotebook, Page
from .reverts import revert, revert_all, why_not
from .word_diff import change_size

SINCE = {"opened": "you opened it", "saved": "you saved it", "started": "you started this checkpoint"}


def change_words(change: AgentChange, notebook: HumanNotebook) -> str:
    """"Edited cell 5 (±3)", "Deleted cell 2", "Moved cell 2 to 4", as the human counts."""
    index = next((i for i, record in enumerate(notebook.cells()) if record.id == change.cell_id), None)
    number = (index if index is not None else change.index) + 1
    if change.kind == "edited":
        if change.before == change.after and change.before_type != change.after_type:
            return f"Made cell {number} {change.after_type}"
        return f"Edited cell {number} (±{change_size(changed_lines(change))})"
    if change.kind == "inserted":
        return f"Added cell {number}"
    if change.kind == "deleted":
        return f"Deleted cell {change.index + 1}"
    if change.kind == "moved":
        return f"Moved cell {change.index + 1} to {(change.to_index or 0) + 1}"
    return f"Cleared the outputs of cell {number}"


class ChangesTab:
    def __init__(self, page: Page, lab: HumanLab, body: Any, journal: ChangeJournal, changed: Any):
        self._page = page
        self._lab = lab
        self._journal = journal
        self._changed = changed  # the notebook's marks to redraw after a revert
        self._listen = page.listeners()
        self._items = page.listeners()
        self._followed = ""  # the notebook current when last drawn: the list follows the human to another
        body.classList.add("jp-webmcp-changes")
        field, self._select = styled_select(page, "Notebook", "jp-webmcp-changes-notebook", [])
        self._select.addEventListener("change", self._listen(lambda *_: self.render()))
        self._since = page.element("p", **{"class": "jp-webmcp-since"})
        actions = page.element("div", **{"class": "jp-webmcp-changes-actions"})
        actions.appendChild(button(page, "Start a checkpoint", "jp-webmcp-checkpoint", self._listen, self._checkpoint,
                                   title="List only the agent's changes from now on"))
        self._revert_all = button(page, "Revert all", "jp-webmcp-revert-all", self._listen, self._take_all_back, "warn",
                                  title="Take back every change listed, newest first; your own edits are kept")
        actions.appendChild(self._revert_all)
        self._notice = page.element("p", **{"class": "jp-webmcp-notice", "role": "status"})
        self._list = page.element("ol", **{"class": "jp-webmcp-change-list", "aria-label": "The agent's changes, newest first"})
        for node in (field, self._since, actions, self._notice, self._list):
            body.appendChild(node)
        journal.on_change(lambda key: self.render())

    def _notebook(self) -> HumanNotebook | None:
        chosen = str(self._select.value)
        return self._lab.find_notebook(chosen) if chosen else self._lab.current_notebook()

    def render(self) -> None:
        notebooks = self._lab.open_notebooks()
        current = self._lab.current_notebook()
        set_options(self._page, self._select, [(n.path, n.path) for n in notebooks])
        if current is not None and (current.path != self._followed or not str(self._select.value)):
            self._select.value = self._followed = current.path
        notebook = self._notebook()
        stale, self._items = self._items, self._page.listeners()
        if notebook is None:
            self._since.textContent = "Open a notebook to see what the agent changed in it."
            self._list.replaceChildren()
            self._revert_all.disabled = True
            stale.release()
            return
        entry = self._journal.notebook(notebook.key)
        changes = list(reversed(self._journal.since_checkpoint(notebook.key)))
        if entry is None:
            self._since.textContent = "No changes by the agent since you opened it."
        else:
            when = self._page.clock(entry.checkpoint.at)
            count = f"{len(changes)} change{'s' if len(changes) != 1 else ''}" if changes else "No changes"
            self._since.textContent = f"{count} by the agent since {when}, when {SINCE[entry.checkpoint.reason]}."
            if entry.dropped:
                self._since.textContent += f" {entry.dropped} older ones are no longer kept and cannot be taken back here."
        reverted = entry.reverted if entry is not None else set()
        if not changes:
            self._notice.textContent = ""  # what it said was of changes no longer listed
        self._list.replaceChildren(*(self._item(notebook, change, change.number in reverted) for change in changes))
        self._revert_all.disabled = not any(change.number not in reverted and why_not(change, notebook) is None
                                            for change in changes)
        stale.release()

    def _item(self, notebook: HumanNotebook, change: AgentChange, reverted: bool) -> Any:
        page, listen = self._page, self._items
        item = page.element("li", **{"class": "jp-webmcp-change-item", "data-kind": change.kind,
                                     "data-cell-id": change.cell_id})
        item.appendChild(page.element("span", change_words(change, notebook), **{"class": "jp-webmcp-change-text"}))
        item.appendChild(page.element("time", page.clock(change.at), **{"class": "jp-webmcp-feed-time", "datetime": change.at}))
        lines = changed_lines(change)
        if lines:
            details = page.element("details", **{"class": "jp-webmcp-change-diff"})
            details.appendChild(page.element("summary", "Diff"))
            details.appendChild(diff_view(page, lines, change_words(change, notebook)))
            item.appendChild(details)
        if reverted:
            item.appendChild(page.element("span", "Taken back", **{"class": "jp-webmcp-outcome", "data-outcome": "reverted"}))
            return item
        why = why_not(change, notebook)
        if why is None:
            item.appendChild(button(page, "Revert", "jp-webmcp-revert", listen, lambda: self._take_back(notebook, change)))
        else:
            item.appendChild(page.element("span", why, **{"class": "jp-webmcp-note jp-webmcp-why-not"}))
        return item

    def _take_back(self, notebook: HumanNotebook, change: AgentChange) -> None:
        why = revert(change, notebook)
        if why is None:
            self._journal.reverted(notebook.key, change)
        self._notice.textContent = why or ""
        self._changed(notebook)

    def _take_all_back(self) -> None:
        notebook = self._notebook()
        if notebook is None:
            return
        entry = self._journal.notebook(notebook.key)
        done = entry.reverted if entry is not None else set()
        pending = [c for c in self._journal.since_checkpoint(notebook.key) if c.number not in done]
        outcomes = revert_all(pending, notebook)
        for change, why in outcomes:
            if why is None:
                self._journal.reverted(notebook.key, change)
        kept = sum(why is not None for _, why in outcomes)
        said = "1 change was" if kept == 1 else f"{kept} changes were"
        self._notice.textContent = f"{said} left as they are: see why under each." if kept else ""
        self._changed(notebook)
        self.render()

    def _checkpoint(self) -> None:
        notebook = self._notebook()
        if notebook is not None:
            self._journal.checkpoint(notebook.key, notebook.path, iso_now(), "started")
