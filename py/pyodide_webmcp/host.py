"""The host object the JavaScript host hands `pyodide_webmcp.start`, declared once.

`lib/handoff.js` declares the same object for JavaScript (a JSDoc `@typedef` of each type here, under the
same names, every key listed): change both together. Like pyodide's `_core_docs`, this module only
declares: importing it touches no JavaScript. At run time every value is a JavaScript object seen
through Pyodide's FFI; a key the host may leave empty holds `null` or `undefined`, which
`adapter.ffi.js_value` reads as None.
"""

from collections.abc import Callable
from typing import Any, Literal, Protocol

JsObject = Any
"""A JupyterLab or browser object used through the FFI; its interface is the one its docstring names."""

AccessEntry = None | Literal[False] | dict[str, Any]
"""A cell's access entry in its metadata as the bulk reader sends it: None (no entry stored), False (a
damaged entry: not an object) or the entry's `access` field alone (`{}` when it has none)."""

CellRow = tuple[str, str, str, AccessEntry]
"""One cell as `Readers.cells` sends it: [id, cell type, source, access entry]."""


class PageLinks(Protocol):
    """What this page can open, and links to the apps that open the rest."""

    opensNotebooks: bool
    """True in the lab (any notebook opens here), False on the Notebook app's page of one notebook."""

    def notebookUrl(self, path: str) -> str:
        """The Notebook app's page of the notebook at `path`."""

    def labUrl(self, path: str) -> str:
        """The lab, opening the notebook at `path`."""

    def siteUrl(self, path: str) -> str:
        """The URL of a file of this site, `path` from its root."""


class BootPath(Protocol):
    """How the interpreter started."""

    path: Literal["snapshot", "plain"]
    fallback: str | None
    """Why the snapshot shipped with the extension was not used (None when it was, or none ships)."""


class HostClasses(Protocol):
    """JupyterLab's classes Python calls (it cannot import them)."""

    Dialog: JsObject
    """@jupyterlab/apputils Dialog."""
    NotebookActions: JsObject
    """@jupyterlab/notebook NotebookActions."""
    Widget: JsObject
    """@lumino/widgets Widget."""
    Panel: JsObject
    """@lumino/widgets Panel."""
    TabPanel: JsObject
    """@lumino/widgets TabPanel."""
    Switch: JsObject
    """@jupyterlab/ui-components Switch."""
    caretDownEmptyIcon: JsObject
    """@jupyterlab/ui-components caretDownEmptyIcon: the styled select's caret."""


class Readers(Protocol):
    """Bulk readers: one FFI call instead of several per cell (hot on large notebooks)."""

    def cells(self, sharedModel: JsObject, key: str) -> str:
        """Every cell of a notebook's shared model, as a JSON list of `CellRow`; `key` is the metadata key
        of the bridge's entry."""

    def cellsJson(self, sharedModel: JsObject, indexes: str) -> str:
        """The nbformat JSON of the cells at `indexes` (a JSON list of indexes), as a JSON list."""

    def version(self, sharedModel: JsObject) -> int:
        """A number that changes with every change to the document, unique across notebooks."""

    def lastChanges(self, sharedModel: JsObject, key: str) -> str:
        """Per cell, the last entry of the provenance trail in its bridge entry (`key`), or null: a JSON list."""

    def selectedIndexes(self, notebook: JsObject) -> JsObject:
        """The indexes of the selected or active cells of a Notebook widget (a JS array of numbers)."""


class PrelistedTools(Protocol):
    """The tools the host listed from the build's copy of their descriptors before Python started."""

    digest: str
    """The digest of the descriptors listed (the catalog's, made when the extension was built)."""
    controllers: JsObject
    """{tool name: the AbortController it was registered with}."""
    siteTools: JsObject
    """The descriptors of the site's own tools among them, as the site build listed them (a JS array)."""

    def serve(self, name: str, handler: Callable[..., Any]) -> None:
        """Hand the calls of the prelisted tool `name` to `handler` (the tool's execute)."""

    def release(self) -> None:
        """Let the calls waiting for Python go to their handlers, before the rest of the start."""


class Host(Protocol):
    """The object `pyodide_webmcp.start(host)` receives: every key the JavaScript host sets."""

    app: JsObject
    """The JupyterFrontEnd (@jupyterlab/application)."""
    tracker: JsObject | None
    """INotebookTracker."""
    docManager: JsObject | None
    """IDocumentManager."""
    fileBrowser: JsObject | None
    """IDefaultFileBrowser; None where the app has none."""
    palette: JsObject | None
    """ICommandPalette; None where the app has none."""
    modelContext: JsObject | None
    """The page's WebMCP model context (`document.modelContext`, or `navigator.modelContext`); None in a browser
    without WebMCP, where the human's controls (access, review, Propose mode) start without tools."""
    page: PageLinks
    cellExecutor: JsObject
    """INotebookCellExecutor: the one the human's Run uses (JupyterLab's `runCell` when none is provided)."""
    settings: JsObject | None
    """The bridge's ISettingRegistry.ISettings; None without a settings registry or when they could not be read."""
    boot: BootPath
    classes: HostClasses
    readers: Readers
    prelisted: PrelistedTools | None
    """None when the build's manifest has no prelisted descriptors (a build without a snapshot)."""

    def setStatus(self, state: Literal["booting", "ready", "off", "unavailable"], text: str) -> None:
        """Show the bridge's state in its status item (and leave a `webmcp:<state>` User Timing mark)."""
