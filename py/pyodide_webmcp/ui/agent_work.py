"""The agent's work as the human's views follow it: the calls in flight and the cells each touched, the journal of
its changes, and the feed of finished calls. The adapter tells it what happens; the views read it. Pure."""

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..base.clock import iso_now
from ..calls.budget import Call
from ..lab.snippet_outputs import SnippetEntry
from .activity import ActivityLog, Doing, FeedLine, Touch, doing_text, feed_line
from .agent_changes import AgentChange, ChangeJournal


@dataclass
class InFlight:
    tool: str
    call: Callable[[], Optional[Call]]  # its entry in the call table, once it has one
    touches: list[Touch] = field(default_factory=list)
    line: Optional[int] = None  # the number of its feed line, once it answered pending

    def doing(self) -> Doing:
        entry = self.call()
        waiting = entry.waiting() if entry is not None else None
        return Doing(self.tool, tuple(self.touches), waiting["kind"] if waiting else None,
                     int(waiting.get("done", 0)) if waiting else 0, int(waiting.get("total", 0)) if waiting else 0)


class AgentWork:
    def __init__(self) -> None:
        self.journal = ChangeJournal()
        self.log = ActivityLog()
        self._calls: dict[object, InFlight] = {}
        self._listeners: list[Callable[[set[str]], None]] = []

    def on_change(self, listener: Callable[[set[str]], None]) -> None:
        """Hear of every change, with the notebooks (paths) it touched."""
        self._listeners.append(listener)

    def _changed(self, paths: set[str]) -> None:
        for listener in list(self._listeners):
            listener(paths)

    def started(self, key: object, tool: str, call: Callable[[], Optional[Call]]) -> None:
        self._calls[key] = InFlight(tool, call)
        self._changed(set())

    def touched(self, key: object, touch: Touch) -> None:
        """A cell the call changes, runs or waits on now."""
        flight = self._calls.get(key)
        if flight is not None and touch not in flight.touches:
            flight.touches.append(touch)
            self._changed({touch.path})

    def changed(self, key: object, notebook: str, change: AgentChange, path: str) -> None:
        self.journal.record(notebook, path, change)
        self.touched(key, Touch(path, change.cell_id, change.index if change.kind != "moved" else change.to_index or 0))

    def ended(self, key: object, arguments: Any, envelope: dict[str, Any], payload: Any,
              snippet: Optional[SnippetEntry] = None,
              place: Callable[[str, str], Optional[int]] = lambda path, cell_id: None) -> Optional[FeedLine]:
        """The call's feed line (`place` finds a cell the call named but did not touch). A call that answered
        pending stays in flight, its line saying so, until this is called again with its final result, which
        takes that line's place."""
        flight = self._calls.get(key)
        if flight is None:
            return None
        number = flight.line if flight.line is not None else self.log.new_number()
        line = feed_line(number, iso_now(), flight.tool, arguments, envelope, payload, flight.touches, snippet, place)
        if flight.line is not None:
            self.log.replace(line)
        else:
            self.log.add(line)
        if line.outcome == "pending" and flight.line is None:
            flight.line = number
        else:
            del self._calls[key]
        self._changed({touch.path for touch in flight.touches} | ({line.notebook} if line.notebook else set()))
        return line

    def doing(self) -> list[Doing]:
        return [flight.doing() for flight in self._calls.values()]

    def here(self, path: str) -> dict[str, str]:
        """The cells of a notebook the agent works in now (those it touched, and the one it waits on), and what it
        does in each."""
        cells: dict[str, str] = {}
        for flight in self._calls.values():
            doing = flight.doing()
            text = doing_text(Doing(doing.tool, (), doing.waiting))[1]
            for touch in flight.touches:
                if touch.path == path:
                    cells[touch.cell_id] = text
            entry = flight.call()
            waiting = entry.waiting() if entry is not None else None
            if waiting and waiting.get("cellId") and entry is not None and entry.notebook is not None \
                    and entry.notebook.path == path:
                cells[str(waiting["cellId"])] = text
        return cells

    def paths(self) -> set[str]:
        """The notebooks the calls in flight touched or wait in."""
        found = {touch.path for flight in self._calls.values() for touch in flight.touches}
        for flight in self._calls.values():
            entry = flight.call()
            if entry is not None and entry.notebook is not None and not entry.notebook.closed():
                found.add(entry.notebook.path)
        return found

    @property
    def busy(self) -> bool:
        return bool(self._calls)
