"""What the adapter remembers of notebook documents between calls."""

from typing import Any


class DocumentCache:
    """What was last read from each notebook's document, valid while its version (the host's counter) stands."""

    def __init__(self, max_notebooks: int) -> None:
        self._kept: dict[str, tuple[int, Any]] = {}
        self._max_notebooks = max_notebooks

    def get(self, notebook: str, version: int) -> Any:
        kept = self._kept.get(notebook)
        return kept[1] if kept is not None and kept[0] == version else None

    def put(self, notebook: str, version: int, value: Any) -> Any:
        self._kept.pop(notebook, None)
        self._kept[notebook] = (version, value)
        while len(self._kept) > self._max_notebooks:
            del self._kept[next(iter(self._kept))]
        return value


class EditBaselines:
    """Per open notebook, each cell's sourceHash as last attributed: a later change not made by an agent is
    the human's. An agent's write settles its cell's baseline, so it is never taken for the human's."""

    def __init__(self) -> None:
        self._by_panel: dict[str, dict[str, str]] = {}

    def get(self, panel_id: str) -> dict[str, str]:
        return self._by_panel[panel_id]

    def reset(self, panel_id: str, hashes: dict[str, str]) -> None:
        self._by_panel[panel_id] = hashes

    def forget(self, panel_id: str) -> None:
        self._by_panel.pop(panel_id, None)

    def settle(self, panel_id: str, cell_id: str, digest: str) -> None:
        baseline = self._by_panel.get(panel_id)
        if baseline is not None:
            baseline[cell_id] = digest
