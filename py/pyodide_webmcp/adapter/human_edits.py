"""Attributes genuine human source changes to the human in each cell's provenance trail, and tells the human's
views when a notebook opens, changes (debounced) or closes."""

from typing import Any

from js import clearTimeout, setTimeout
from pyodide.ffi import create_once_callable, create_proxy

from ..base import limits
from ..calls.budget import CallTable
from ..notebook.provenance import human_changes, record_history
from .notebook import NotebookHandle
from .services import NotebookServices


class HumanEditRecorder:
    """Attributes genuine human source changes, debounced, deferring to tool calls in flight."""

    def __init__(self, services: NotebookServices, calls: CallTable):
        self._services = services
        self._calls = calls
        self._baselines = services.edit_baselines
        self._timers: dict[str, Any] = {}
        self._flushers: dict[str, Any] = {}
        self._proxies: list[Any] = []

    def watch_all(self, tracker: Any) -> None:
        for slot in (lambda panel, *_: self.watch(panel), lambda _sender, panel: self.watch(panel)):
            self._proxies.append(create_proxy(slot))
        tracker.forEach(self._proxies[0])
        tracker.widgetAdded.connect(self._proxies[1])

    def watch(self, panel: Any) -> None:
        key = str(panel.id)

        def start(*_: Any) -> None:
            handle = NotebookHandle(self._services, panel)
            self._baselines.reset(key, {c.id: c.source_hash for c in handle.cells()})
            self._services.events.opened(handle)
            # One proxy per notebook for the debounced flush, one for the change slot and one for its close.
            self._flushers[key] = create_proxy(lambda: self._flush(panel))
            changed = create_proxy(lambda *_: self._schedule(key))
            closed = create_proxy(lambda *_: self._services.events.closed(key))
            self._proxies.extend((changed, closed))
            panel.content.model.contentChanged.connect(changed)
            panel.disposed.connect(closed)

        panel.context.ready.then(create_once_callable(start))

    def _schedule(self, key: str) -> None:
        if key in self._timers:
            clearTimeout(self._timers[key])
        self._timers[key] = setTimeout(self._flushers[key], limits.HUMAN_EDIT_DEBOUNCE_MS)

    def _flush(self, panel: Any) -> None:
        key = str(panel.id)
        self._timers.pop(key, None)
        if panel.isDisposed:
            self._baselines.forget(key)
            return
        if self._calls.running():  # an agent call may still be writing: it attributes its own edits
            self._schedule(key)
            return
        handle = NotebookHandle(self._services, panel)
        cells = handle.cells()
        changes = human_changes(self._baselines.get(key), ((c.id, c.source_hash) for c in cells))
        for cell_id, action in changes:
            record_history(handle, cell_id, "human", action)
        self._baselines.reset(key, {c.id: c.source_hash for c in cells})
        self._services.events.changed(handle)  # the marks follow (a pasted cell may carry access metadata)
