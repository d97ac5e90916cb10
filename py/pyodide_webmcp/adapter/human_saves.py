"""The human's own saves: JupyterLab's Save and Save All commands, run by the human, each of which starts the
saved notebooks' new checkpoint once it has written them. Autosave and an agent's save start none."""

from typing import Any

from pyodide.ffi import create_proxy

from ..calls.current import current_call
from .ffi import js_value
from .notebook import NotebookHandle
from .services import NotebookServices

SAVE_ONE = "docmanager:save"
SAVE_ALL = "docmanager:save-all"


class HumanSaves:
    def __init__(self, services: NotebookServices, tracker: Any):
        self._services = services
        self._tracker = tracker
        self._slot = create_proxy(self._executed)

    def watch(self, commands: Any) -> None:
        commands.commandExecuted.connect(self._slot)

    def _executed(self, _registry: Any, executed: Any) -> None:
        command = str(executed.id)
        if command not in (SAVE_ONE, SAVE_ALL) or current_call() is not None:  # an agent call ran it
            return
        panels = self._open_panels() if command == SAVE_ALL else self._current_panel()
        if panels:
            def settled(*_: Any) -> None:
                done.destroy()
                self._saved(panels)

            done = create_proxy(settled)
            executed.result.then(done, done)  # a failed save leaves the notebook dirty: no checkpoint

    def _current_panel(self) -> list[Any]:
        current = js_value(self._services.shell.currentWidget)
        return [current] if current is not None and self._tracker.has(current) else []

    def _open_panels(self) -> list[Any]:
        found: list[Any] = []
        collect = create_proxy(lambda panel, *_: found.append(panel))
        try:
            self._tracker.forEach(collect)
        finally:
            collect.destroy()
        return found

    def _saved(self, panels: list[Any]) -> None:
        for panel in panels:
            if not panel.isDisposed and not bool(panel.context.model.dirty):
                self._services.events.saved(NotebookHandle(self._services, panel))
