"""The human's side, put together: the marks on cells, the Agent panel and the commands, following the agent's
work and the notebooks. Nothing is drawn until a notebook opens, an agent calls, or the panel is shown."""

import asyncio
from typing import Any, Optional

from ..base.clock import iso_now
from .agent_work import AgentWork
from .cell_marks import CellMarks
from .human_commands import HumanCommands
from .page import HumanLab, HumanNotebook, Page
from .panel import AgentPanel

BUSY_TICK_MS = 1_000  # while a call runs: what it waits for may change at any time
IDLE_TICK_MS = 30_000  # "2 min ago" moves on


class HumanSide:
    def __init__(self, page: Page, lab: HumanLab, work: AgentWork, file_browser: Any):
        self._page = page
        self._lab = lab
        self._work = work
        self.marks = CellMarks(page, work.journal, work.here, self._show_comments)
        self.panel = AgentPanel(page, lab, work.log, work.journal, work.doing, self.show_cell, self.marks.later,
                                lambda: self.commands.propose_changed())
        self.commands = HumanCommands(page, lab, self.panel, file_browser, self.marks.later)
        self.commands.install()
        self._fast = False  # a tick every second while the agent works
        self._slow = False  # a tick every half minute once the panel shows "2 min ago"
        self._last_here: dict[str, set[str]] = {}  # notebook path -> the cells marked as the agent's now
        work.on_change(self._work_changed)
        lab.settings.on_change(self._settings_changed)

    # What the adapter reports

    def opened(self, notebook: HumanNotebook) -> None:
        self._work.journal.opened(notebook.key, notebook.path, iso_now())
        self.marks.later(notebook)

    def changed(self, notebook: HumanNotebook) -> None:
        self.marks.later(notebook)
        self._redraw_tab("changes")

    def reviewed(self, notebook: HumanNotebook) -> None:
        self.marks.later(notebook)
        self._redraw_tab("comments")

    def saved(self, notebook: HumanNotebook) -> None:
        """The human saved it: its list of changes starts again (an autosave or an agent's save does not)."""
        self._work.journal.checkpoint(notebook.key, notebook.path, iso_now(), "saved")

    def closed(self, key: str) -> None:
        """A closed notebook's journal and marks are let go (reopened, it starts from a new checkpoint)."""
        self._work.journal.forget(key)
        self.marks.forget(key)

    # Following the agent

    def _follow(self, paths: set[str]) -> None:
        """Redraw the marks where the agent works now or worked a moment ago, and who does what."""
        wanted = paths | self._work.paths() | set(self._last_here)
        for path in wanted:
            notebook = self._lab.find_notebook(path)
            if notebook is not None:
                self.marks.later(notebook)
        self._last_here = {path: set(cells) for path in wanted if (cells := self._work.here(path))}
        self._draw_presence()

    def _work_changed(self, paths: set[str]) -> None:
        self._follow(paths)
        if self._work.busy and not self._fast:
            self._fast = True
            self._page.later(self._fast_tick, BUSY_TICK_MS)
        if self.panel.built and not self._slow:
            self._slow = True
            self._page.later(self._slow_tick, IDLE_TICK_MS)

    def _fast_tick(self) -> None:
        """While the agent works, follow what it waits for (a proposal, a dialog, the kernel)."""
        self._follow(set())
        if self._work.busy:
            self._page.later(self._fast_tick, BUSY_TICK_MS)
        else:
            self._fast = False

    def _slow_tick(self) -> None:
        """Keep "2 min ago" true."""
        self._draw_presence()
        self._page.later(self._slow_tick, IDLE_TICK_MS)

    def _draw_presence(self) -> None:
        if self.panel.presence is not None:
            self.panel.presence.draw()

    def _redraw_tab(self, tab: str) -> None:
        if self.panel.current_tab() == tab:
            self._page.later(self.panel.refresh, 50)

    def _settings_changed(self, settings: Any) -> None:
        self.panel.apply_settings(settings)
        for notebook in self._lab.open_notebooks():
            self.marks.later(notebook)  # the owner's default access may have changed

    # The human's moves

    def show_cell(self, path: str, cell_id: str) -> None:
        """Bring the notebook forward and show the cell (a feed line's click)."""
        notebook = self._lab.find_notebook(path)
        index = self._index(notebook, cell_id)
        if notebook is not None and index is not None:
            asyncio.ensure_future(notebook.focus_cell(index, None))

    def _show_comments(self, path: str, cell_id: str) -> None:
        self.panel.reveal("comments")
        if self.panel.comments is not None:
            self.panel.comments.show_cell(cell_id)

    @staticmethod
    def _index(notebook: Optional[HumanNotebook], cell_id: str) -> Optional[int]:
        if notebook is None:
            return None
        return next((i for i, record in enumerate(notebook.cells()) if record.id == cell_id), None)
