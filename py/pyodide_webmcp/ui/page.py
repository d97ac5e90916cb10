"""What the human's views are handed by the adapter: the page (elements, listeners, timers, JupyterLab's classes)
and the lab as the human works in it. Declared here, implemented by the adapter; importing this touches no
JavaScript."""

from typing import Any, Callable, Optional, Protocol, Sequence

from ..base.access_levels import Access
from ..lab.snippet_outputs import SnippetLog
from ..owner.site_settings import Settings
from ..port import EditorSelection
from .reverts import RevertTarget


class Listeners(Protocol):
    """Page callbacks made from Python functions, kept alive until released together."""

    def __call__(self, function: Callable[..., Any]) -> Any: ...

    def release(self) -> None: ...


class Page(Protocol):
    @property
    def app(self) -> Any:
        """JupyterLab's application: commands, shell, context menu."""

    @property
    def palette(self) -> Any:
        """The command palette, or None."""

    @property
    def classes(self) -> Any:
        """JupyterLab's and Lumino's widget classes (the host's `classes`)."""

    def element(self, tag: str, text: str = "", **attributes: str) -> Any:
        """A new element with text (never parsed as HTML); `data_x` becomes `data-x`."""

    def listeners(self) -> Listeners: ...

    def found(self, value: Any) -> Any:
        """A page value, or None where the page gave null or undefined (an element not found)."""

    def options(self, **values: Any) -> Any:
        """A plain JS object of options for a JupyterLab call."""

    def later(self, callback: Callable[[], None], ms: int = 0) -> None:
        """Run the callback once, in a task of its own."""

    def clock(self, at: str) -> str:
        """A stored time as the human's clock shows it (10:15:02)."""

    def when_shown(self, node: Any, callback: Callable[[], None]) -> None:
        """Run the callback once, the first time the node is laid out on screen."""

    def when_settled(self, promise: Any, callback: Callable[[], None]) -> None:
        """Run the callback once, when the page's promise has settled (resolved or rejected)."""

    def focused(self, node: Any) -> bool:
        """Whether the node has the keyboard focus."""


class HumanNotebook(RevertTarget, Protocol):
    """An open notebook as the human's views use it."""

    @property
    def key(self) -> str:
        """Stable while the notebook stays open (a rename keeps it)."""

    def widgets(self) -> Any:
        """The cell widgets, in order."""

    def last_changes(self) -> list[Optional[dict[str, Any]]]:
        """Per cell, the last entry of its provenance trail (None when it has none)."""

    def set_cell_access(self, index: int, access: Access) -> None: ...

    def highlight_output(self, cell_index: int, output_index: int) -> None: ...

    async def focus_cell(self, index: int, selection: Optional[EditorSelection]) -> None: ...


class HumanSettings(Protocol):
    @property
    def current(self) -> Settings: ...

    def on_change(self, listener: Callable[[Settings], object]) -> None: ...

    def fixed(self, key: str) -> bool: ...

    def save(self, key: str, value: Any) -> None: ...


class HumanLab(Protocol):
    """The lab as the human's controls change it (never limited by the agent's access)."""

    @property
    def settings(self) -> HumanSettings: ...

    @property
    def snippet_log(self) -> SnippetLog: ...

    @property
    def proposals(self) -> Any:
        """Propose mode: `enabled` and `reviewed_actions`, set by the human only."""

    def current_notebook(self) -> Optional[HumanNotebook]: ...

    def find_notebook(self, path: str) -> Optional[HumanNotebook]: ...

    def open_notebooks(self) -> Sequence[HumanNotebook]: ...

    async def notebook_paths(self) -> list[str]: ...

    async def notebook_access(self, path: str) -> Optional[Access]: ...

    async def set_notebook_access(self, path: str, access: Optional[Access] = None,
                                  cells: Optional[Access] = None) -> None: ...
