"""The Agent panel's Activity tab, its first: one line per agent call, newest first, each with its verb, what it
touched and when; denied proposals, refusals and failures in their own colour. A line with a cell shows it on a
click; the code jupyter_run_code ran unfolds under its line."""

from typing import Any, Callable

from .activity import ActivityLog, FeedLine
from .controls import set_options, styled_select
from .page import Page

ALL = ""
OUTCOME_WORDS = {"done": "", "pending": "still running", "denied": "denied", "refused": "refused", "failed": "failed"}


class ActivityTab:
    def __init__(self, page: Page, body: Any, log: ActivityLog, show_cell: Callable[[str, str], None]):
        self._page = page
        self._log = log
        self._show_cell = show_cell
        self._listen = page.listeners()
        self._lines = page.listeners()  # the drawn lines' listeners
        self._drawn = 0  # the number of the newest line drawn
        body.classList.add("jp-webmcp-activity")
        field, self._filter = styled_select(page, "Notebook", "jp-webmcp-feed-filter", [(ALL, "All notebooks")])
        self._filter.addEventListener("change", self._listen(lambda *_: self.render()))
        self._list = page.element("ol", **{"class": "jp-webmcp-feed", "aria-label": "What the agent did, newest first"})
        self._empty = page.element("p", "Nothing yet: each call of a connected agent shows here.",
                                   **{"class": "jp-webmcp-note"})
        for node in (field, self._empty, self._list):
            body.appendChild(node)
        log.on_change(self._added)
        self.render()

    def _wanted(self, line: FeedLine) -> bool:
        chosen = str(self._filter.value)
        return chosen == ALL or line.notebook == chosen

    def render(self) -> None:
        set_options(self._page, self._filter, [(ALL, "All notebooks"), *((path, path) for path in self._log.notebooks())])
        stale, self._lines = self._lines, self._page.listeners()
        shown = [self._line(line) for line in reversed(self._log.lines) if self._wanted(line)]
        self._list.replaceChildren(*shown)
        stale.release()
        last = self._log.last()
        self._drawn = last.number if last is not None else 0
        self._empty.hidden = bool(self._log.lines)

    def _added(self, last: FeedLine) -> None:
        """A new line goes on top; the oldest drawn goes when the feed is full; a line drawn already (counted once
        more, or a pending call's, given its outcome) is drawn again in its place."""
        if last.number <= self._drawn:
            drawn = self._page.found(self._list.querySelector(f':scope > [data-number="{last.number}"]'))
            if drawn is not None:
                drawn.replaceWith(self._line(last))
            return
        if last.notebook and last.notebook not in [str(o.value) for o in self._filter.options]:
            self.render()
            return
        self._drawn = last.number
        self._empty.hidden = True
        if self._wanted(last):
            self._list.prepend(self._line(last))
            while self._list.children.length > self._log.lines.maxlen:
                self._list.lastElementChild.remove()

    def _line(self, line: FeedLine) -> Any:
        page = self._page
        item = page.element("li", **{"class": "jp-webmcp-feed-line", "data-number": str(line.number),
                                     "data-verb": line.verb, "data-outcome": line.outcome,
                                     "data-tool": line.tool})
        item.appendChild(page.element("time", page.clock(line.at), **{"class": "jp-webmcp-feed-time", "datetime": line.at}))
        item.appendChild(page.element("span", line.action, **{"class": "jp-webmcp-verb", "data-verb": line.verb}))
        file = line.notebook.rsplit("/", 1)[-1] if line.notebook else ""
        where = line.target if not file or line.target == file else f"{line.target} in {file}" if line.target else file
        if line.cell_id and line.notebook:
            notebook, cell_id = line.notebook, line.cell_id
            target = page.element("button", where, **{"class": "jp-webmcp-feed-target", "type": "button",
                                                      "title": "Show this cell"})
            target.addEventListener("click", self._lines(lambda *_: self._show_cell(notebook, cell_id)))
        else:
            target = page.element("span", where, **{"class": "jp-webmcp-feed-target"})
        item.appendChild(target)
        if line.count > 1:
            item.appendChild(page.element("span", f"×{line.count}", **{"class": "jp-webmcp-feed-count",
                                                                      "title": f"{line.count} times in a row"}))
        if OUTCOME_WORDS[line.outcome]:
            item.appendChild(page.element("span", OUTCOME_WORDS[line.outcome], **{"class": "jp-webmcp-outcome"}))
        if line.detail:
            item.appendChild(page.element("div", line.detail, **{"class": "jp-webmcp-feed-detail"}))
        if line.code:
            item.appendChild(self._snippet(line))
        return item

    def _snippet(self, line: FeedLine) -> Any:
        page = self._page
        details = page.element("details", **{"class": "jp-webmcp-snippet"})
        details.appendChild(page.element("summary", "Code it ran"))
        details.appendChild(page.element("pre", line.code, **{"class": "jp-webmcp-log-code"}))
        if line.output:
            details.appendChild(page.element("pre", line.output, **{"class": "jp-webmcp-log-output"}))
        return details
