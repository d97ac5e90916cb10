"""What happens to the open notebooks that the human's views follow: one opened, its document changed, its review
threads changed, the human saved it, it was closed."""

from typing import Any, Callable


class NotebookEvents:
    def __init__(self) -> None:
        self._opened: list[Callable[[Any], None]] = []
        self._changed: list[Callable[[Any], None]] = []
        self._reviewed: list[Callable[[Any], None]] = []
        self._saved: list[Callable[[Any], None]] = []
        self._closed: list[Callable[[str], None]] = []

    def on(self, opened: Callable[[Any], None], changed: Callable[[Any], None], reviewed: Callable[[Any], None],
           saved: Callable[[Any], None], closed: Callable[[str], None]) -> None:
        self._opened.append(opened)
        self._changed.append(changed)
        self._reviewed.append(reviewed)
        self._saved.append(saved)
        self._closed.append(closed)

    def opened(self, notebook: Any) -> None:
        for listener in self._opened:
            listener(notebook)

    def changed(self, notebook: Any) -> None:
        for listener in self._changed:
            listener(notebook)

    def reviewed(self, notebook: Any) -> None:
        for listener in self._reviewed:
            listener(notebook)

    def saved(self, notebook: Any) -> None:
        """The human saved it (Save or Save All; not autosave, not an agent)."""
        for listener in self._saved:
            listener(notebook)

    def closed(self, key: str) -> None:
        """The notebook's panel (its key) is gone."""
        for listener in self._closed:
            listener(key)
