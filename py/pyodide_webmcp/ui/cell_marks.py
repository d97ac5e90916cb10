"""The marks on each cell, in words: the owner's access, what the agent last did to it (with its diff and an
undo), its open review comments, and the agent working on it now. Drawn in a row between the cell's input and
its output; a cell whose marks did not change is not touched."""

import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..base.access_levels import Access
from ..notebook.propose import diff_lines
from ..notebook.resolve import review_store
from .activity import AGENT_NAME
from .agent_changes import MAX_KEPT_CHANGES, AgentChange, ChangeJournal
from .diff_view import diff_view
from .page import HumanNotebook, Page
from .reverts import revert, why_not
from .word_diff import change_size

ACCESS_WORDS: dict[Access, str] = {"write": "", "read": "Agent: read only", "none": "Hidden from agent"}
DRAW_SLICE_SECONDS = 0.02
"""How long one task draws marks; the rest is drawn in a task of its own (the page's turn between)."""
AGENT_DID = {"edited": "Edited by agent", "inserted": "Added by agent", "moved": "Moved by agent",
             "cleared": "Outputs cleared by agent"}


@dataclass(frozen=True)
class Marks:
    access: Access
    did: str  # "Edited by agent", "Added by agent"; "" when the human changed the cell last
    at: str  # the clock time of that change
    size: int  # lines it changed (0: not known: the change was made before this page opened)
    ran: str  # the clock time of the agent's run, when it ran the cell last
    comments: int
    here: str  # what the agent does in this cell now ("" when it is not in it)

    @property
    def signature(self) -> str:
        return "|".join(map(str, (self.access, self.did, self.at, self.size, self.ran, self.comments, self.here)))

    @property
    def empty(self) -> bool:
        return self.access == "write" and not (self.did or self.ran or self.comments or self.here)


def changed_lines(change: Optional[AgentChange]) -> list[Any]:
    """The lines of an agent's change as a diff (an insert adds every line; a delete removes every line)."""
    if change is None:
        return []
    if change.kind == "edited":
        return diff_lines(change.before or "", change.after or "")
    if change.kind == "inserted":
        return [("added", line) for line in (change.after or "").split("\n")]
    return []


class CellMarks:
    """Draws every open notebook's marks; `here` names the cells the agent works in now (notebook path -> cell id ->
    what it does), `show_comments` opens a cell's threads in the Comments tab."""

    def __init__(self, page: Page, journal: ChangeJournal, here: Callable[[str], dict[str, str]],
                 show_comments: Callable[[str, str], None]):
        self._page = page
        self._journal = journal
        self._here = here
        self._show_comments = show_comments
        self._rows: dict[tuple[str, str], Any] = {}  # (notebook, cell) -> the listeners of its drawn row
        self._marked: dict[str, set[str]] = {}  # notebook -> the cells drawn with marks
        self._scheduled: set[str] = set()
        self._unrendered: set[tuple[str, str]] = set()  # (notebook, cell): placeholders drawn once rendered
        self._sizes: dict[int, int] = {}  # a change's number -> the lines it changed (a change never changes)
        self._times: dict[str, str] = {}  # a stored time -> the human's clock

    def later(self, notebook: HumanNotebook) -> None:
        """Redraw soon, once however many changes ask for it meanwhile."""
        if notebook.key in self._scheduled:
            return
        self._scheduled.add(notebook.key)

        def draw() -> None:
            self._scheduled.discard(notebook.key)
            if not notebook.closed():
                self.draw(notebook)

        self._page.later(draw, 30)

    def forget(self, key: str) -> None:
        """A closed notebook: its rows' listeners go."""
        self._marked.pop(key, None)
        self._unrendered = {cell for cell in self._unrendered if cell[0] != key}
        for row in [row for row in self._rows if row[0] == key]:
            self._rows.pop(row).release()

    def marks_of(self, notebook: HumanNotebook) -> list[Marks]:
        records = notebook.cells()
        heads = notebook.last_changes()
        open_threads: dict[str, int] = {}
        for thread in review_store(notebook).threads:
            if thread.status == "open":
                open_threads[thread.cell_id] = open_threads.get(thread.cell_id, 0) + 1
        here = self._here(notebook.path)
        marks = []
        clock = self._clock
        for record, head in zip(records, heads):
            did, at, size, ran = "", "", 0, ""
            by_agent = head is not None and head.get("actor") == "agent"
            if by_agent and head is not None and head.get("action") == "ran":
                ran = clock(str(head.get("at", "")))
            change = self._journal.last_change(notebook.key, record.id) if by_agent else None
            if change is not None and change.kind in AGENT_DID and change.after in (None, record.source):
                did, at, size = AGENT_DID[change.kind], clock(change.at), self._size(change)
            elif by_agent and head is not None and head.get("action") in AGENT_DID:
                did, at = AGENT_DID[head["action"]], clock(str(head.get("at", "")))
            here_text = "" if record.hidden else here.get(record.id, "")
            marks.append(Marks(record.access, did, at, size, ran, open_threads.get(record.id, 0), here_text))
        return marks

    def _size(self, change: AgentChange) -> int:
        if change.number not in self._sizes:
            if len(self._sizes) > 2 * MAX_KEPT_CHANGES:
                self._sizes.clear()
            self._sizes[change.number] = change_size(changed_lines(change))
        return self._sizes[change.number]

    def _clock(self, at: str) -> str:
        if at not in self._times:
            if len(self._times) > 2 * MAX_KEPT_CHANGES:
                self._times.clear()
            self._times[at] = self._page.clock(at)
        return self._times[at]

    def draw(self, notebook: HumanNotebook) -> None:
        """Touch only the cells whose marks changed: a cell never marked costs nothing here. A long redraw goes on
        in a task of its own."""
        started = time.perf_counter()
        records = notebook.cells()
        widgets = notebook.widgets()
        marked = self._marked.setdefault(notebook.key, set())
        for index, marks in enumerate(self.marks_of(notebook)):
            if index >= widgets.length:
                break
            if marks.empty and records[index].id not in marked:
                continue
            widget = widgets[index]
            if str(widget.model.id) != records[index].id:
                continue  # the view is catching up with the model: the next draw sees it
            node = widget.node
            if self._page.found(node.querySelector(":scope > .jp-Cell-inputWrapper")) is None:
                self._when_rendered(notebook, widget, records[index].id)
                continue
            if node.getAttribute("data-webmcp-marks") == marks.signature:
                continue
            node.setAttribute("data-webmcp-marks", marks.signature)
            (marked.discard if marks.empty else marked.add)(records[index].id)
            for level in ("read", "none"):
                widget.toggleClass(f"jp-webmcp-access-{level}", marks.access == level)
            widget.toggleClass("jp-webmcp-by-agent", bool(marks.did))
            widget.toggleClass("jp-webmcp-agent-here", bool(marks.here))
            self._draw_row(notebook, widget, records[index].id, marks)
            if time.perf_counter() - started > DRAW_SLICE_SECONDS:
                self.later(notebook)  # what is left is drawn next, its marks read again then
                return

    def _when_rendered(self, notebook: HumanNotebook, widget: Any, cell_id: str) -> None:
        """A cell JupyterLab has not rendered yet (a placeholder, out of view in a long notebook): its marks are
        drawn once it is, under its input."""
        if (notebook.key, cell_id) in self._unrendered:
            return
        self._unrendered.add((notebook.key, cell_id))

        def rendered() -> None:
            self._unrendered.discard((notebook.key, cell_id))
            self.later(notebook)

        self._page.when_settled(widget.ready, rendered)

    def _draw_row(self, notebook: HumanNotebook, widget: Any, cell_id: str, marks: Marks) -> None:
        node = widget.node
        stale = self._rows.pop((notebook.key, cell_id), None)
        if stale is not None:
            stale.release()  # the old row's chips go, and their listeners with them
        listen = self._rows[(notebook.key, cell_id)] = self._page.listeners()
        found = self._page.found
        row = found(node.querySelector(":scope > .jp-webmcp-cell-marks"))
        shown = found(row.nextElementSibling) if row is not None else None
        if shown is not None and shown.classList.contains("jp-webmcp-change"):
            shown.remove()  # its buttons were the old row's
        if marks.empty:
            if row is not None:
                row.remove()
            return
        source = found(node.querySelector(":scope > .jp-Cell-inputWrapper"))
        if row is None:  # right under the input: a proposal waiting in the cell goes under the marks
            row = self._page.element("div", **{"class": "jp-webmcp-cell-marks"})
            source.after(row)
        elif found(source.nextElementSibling) != row:
            source.after(row)
        page = self._page
        chips = []
        if marks.here:
            chips.append(page.element("span", f"{AGENT_NAME}: {marks.here}", **{"class": "jp-webmcp-chip jp-webmcp-chip-here",
                                                                           "role": "status"}))
        if marks.access != "write":
            chips.append(page.element("span", ACCESS_WORDS[marks.access],
                                      **{"class": "jp-webmcp-chip jp-webmcp-chip-access", "data-access": marks.access}))
        if marks.did:
            text = " · ".join(part for part in (marks.did, marks.at, f"±{marks.size}" if marks.size else "") if part)
            chip = page.element("button", text, **{"class": "jp-webmcp-chip jp-webmcp-chip-agent", "type": "button",
                                                   "aria-expanded": "false",
                                                   "title": "Show what the agent changed, and undo it"})
            chip.addEventListener("click", listen(lambda *_: self._toggle_change(notebook, cell_id, row, chip, listen)))
            chips.append(chip)
        if marks.ran:
            chips.append(page.element("span", f"Run by agent · {marks.ran}", **{"class": "jp-webmcp-chip jp-webmcp-chip-ran"}))
        if marks.comments:
            label = f"{marks.comments} open comment{'s' if marks.comments > 1 else ''}"
            chip = page.element("button", label, **{"class": "jp-webmcp-chip jp-webmcp-chip-comments", "type": "button",
                                                    "title": "Show this cell's review comments"})
            chip.addEventListener("click", listen(lambda *_: self._show_comments(notebook.path, cell_id)))
            chips.append(chip)
        row.replaceChildren(*chips)

    def _toggle_change(self, notebook: HumanNotebook, cell_id: str, row: Any, chip: Any, listen: Any) -> None:
        """Show (or hide) the agent's last change to the cell as a diff, with Undo."""
        shown = self._page.found(row.nextElementSibling)
        if shown is not None and shown.classList.contains("jp-webmcp-change"):
            shown.remove()
            chip.setAttribute("aria-expanded", "false")
            return
        chip.setAttribute("aria-expanded", "true")
        row.after(self.change_view(notebook, self._journal.last_change(notebook.key, cell_id), listen))

    def change_view(self, notebook: HumanNotebook, change: Optional[AgentChange], listen: Any) -> Any:
        """The change as a diff, with Undo (off, with the reason, when it cannot be taken back)."""
        page = self._page
        view = page.element("div", **{"class": "jp-webmcp-change"})
        if change is None:
            view.appendChild(page.element("p", "The agent's change is kept only while this page is open; this one "
                                               "was made before it opened.", **{"class": "jp-webmcp-note"}))
            return view
        lines = changed_lines(change)
        if lines:
            view.appendChild(diff_view(page, lines, "What the agent changed"))
        elif change.kind == "moved":
            view.appendChild(page.element("p", f"The agent moved this cell from place {change.index + 1} to "
                                               f"{(change.to_index or 0) + 1}.", **{"class": "jp-webmcp-note"}))
        else:
            view.appendChild(page.element("p", "The agent cleared this cell's outputs.", **{"class": "jp-webmcp-note"}))
        actions = page.element("div", **{"class": "jp-webmcp-change-actions"})
        why = why_not(change, notebook)
        undo = page.element("button", "Undo this change", **{"class": "jp-webmcp-undo jp-Dialog-button jp-mod-styled jp-mod-warn",
                                                             "type": "button"})
        if why is not None:
            undo.disabled = True
            undo.setAttribute("aria-describedby", f"jp-webmcp-why-{change.number}")
            actions.appendChild(undo)
            actions.appendChild(page.element("span", why, **{"class": "jp-webmcp-note", "id": f"jp-webmcp-why-{change.number}"}))
        else:
            def undo_change(*_: Any) -> None:
                reason = revert(change, notebook)
                if reason is None:
                    self._journal.reverted(notebook.key, change)
                    view.remove()
                else:
                    view.replaceChildren(page.element("p", reason, **{"class": "jp-webmcp-note", "role": "status"}))
                self.later(notebook)

            undo.addEventListener("click", listen(undo_change))
            actions.appendChild(undo)
        view.appendChild(actions)
        return view
