"""Live JupyterLab state as plain Python data: the lab, its notebooks, human-edit attribution."""

import asyncio
import json
from typing import Any, Callable, Optional

from js import JSON, Object, clearTimeout, setTimeout
from pyodide.ffi import JsProxy, create_once_callable, create_proxy, jsnull, to_js

from .. import limits
from ..access import METADATA_KEY, Access, cell_access, notebook_access, with_cell_access, with_notebook_access
from ..shapes import KernelInfo
from ..hashing import source_hash
from ..shapes import Action, Actor
from ..provenance import add_history, human_changes, iso_now
from ..review import REVIEW_KEY, ReviewStore
from ..views import CellList, CellRecord, EditorState
from .proposals import ProposalBoard

_KERNEL_STATUS = {
    "idle": "idle",
    "busy": "busy",
    "starting": "starting",
    "restarting": "starting",
    "autorestarting": "starting",
    "dead": "dead",
    "terminating": "dead",
    "unknown": "unknown",
}


async def settled(promise: Any, wait_ms: int) -> bool:
    """Await a JS promise for at most `wait_ms`; False when it did not settle in time."""
    try:
        await asyncio.wait_for(asyncio.ensure_future(promise), wait_ms / 1000)
        return True
    except asyncio.TimeoutError:
        return False


def stored_metadata(owner: Any) -> dict[str, Any]:
    """`{METADATA_KEY: entry}` of a model or shared cell, or `{}` when it has none (a stored null stays None)."""
    value = owner.getMetadata(METADATA_KEY)
    if value is None:
        return {}
    return {METADATA_KEY: None if value is jsnull else to_python(value)}


def js_value(value: Any) -> Any:
    """JS null and undefined both read as None."""
    return None if value is None or value is jsnull else value


def to_js_object(value: Any) -> Any:
    return to_js(value, dict_converter=Object.fromEntries)


def to_python(value: Any) -> Any:
    """JSON-like JS data as plain Python; through JSON so every null becomes None (to_py keeps jsnull)."""
    value = js_value(value)
    return json.loads(JSON.stringify(value)) if isinstance(value, JsProxy) else value


class NotebookHandle:
    """One open notebook panel."""

    def __init__(self, lab: "Lab", panel: Any):
        self._lab = lab
        self._panel = panel

    @property
    def path(self) -> str:
        return str(self._panel.context.path)

    @property
    def dirty(self) -> bool:
        return bool(self._panel.context.model.dirty)

    @property
    def _notebook(self) -> Any:
        return self._panel.content

    def _shared_cells(self) -> Any:
        return self._notebook.model.sharedModel.cells

    def cells(self) -> CellList:
        """Every cell as it is now: re-read only when the notebook's document changed since the last read."""
        shared = self._notebook.model.sharedModel
        key, version = str(self._panel.id), self._lab.readers.version(shared)
        cached = self._lab.cell_lists.get(key, version)
        return cached if cached is not None else self._lab.cell_lists.put(key, version, self._read_cells(shared))

    def _read_cells(self, shared: Any) -> CellList:
        rows = json.loads(self._lab.readers.cells(shared, METADATA_KEY))
        # The reader sends, per cell, no entry (null), a damaged one (false) or just its access field.
        return CellList(
            CellRecord(cell_id, kind, source, cell_access({} if entry is None else {METADATA_KEY: entry}))
            for cell_id, kind, source, entry in rows
        )

    def access(self) -> Access:
        return notebook_access(stored_metadata(self._notebook.model))

    def _shared_cell(self, cell_id: str) -> Any:
        return next((c for c in self._shared_cells() if str(c.id) == cell_id), None)

    def record_history(self, cell_id: str, actor: Actor, action: Action, tool: Optional[str] = None) -> None:
        """Append to the cell's provenance trail; an agent entry also settles the human-edit baseline."""
        cell = self._shared_cell(cell_id)
        if cell is None:
            return
        stored = stored_metadata(cell)
        entry = stored.get(METADATA_KEY, {})
        if not isinstance(entry, dict):
            return  # a damaged entry hides the cell; rewriting it would reveal the cell
        entry["history"] = add_history(entry.get("history"), actor, action, iso_now(), tool)
        cell.setMetadata(METADATA_KEY, to_js_object(entry))
        self._lab.human_edits.settle(self._panel, cell_id, source_hash(str(cell.getSource())))

    def set_cell_access(self, index: int, access: Access) -> None:
        cell = self._shared_cells()[index]
        cell.setMetadata(METADATA_KEY, to_js_object(with_cell_access(stored_metadata(cell), access)))
        self.refresh_markers()

    def set_access(self, access: Access) -> None:
        model = self._notebook.model
        model.setMetadata(METADATA_KEY, to_js_object(with_notebook_access(stored_metadata(model), access)))

    def keep_below_cell(self, cell_id: str, node: Any) -> Callable[[], None]:
        """Show `node` under the cell, and keep it there when the cell moves or its widget is rebuilt.

        The same node moves, so whatever the human typed into it stays. Returns a function that stops following.
        """

        following = [True]

        def place(*_: Any) -> None:
            if not following[0]:
                return
            for widget in self._notebook.widgets:
                if str(widget.model.id) == cell_id:
                    if node.parentElement != widget.node:
                        widget.node.appendChild(node)
                    return

        def on_cells_changed(*_: Any) -> None:
            place()
            setTimeout(create_once_callable(place), 0)  # widgets created after this change settle

        place()
        cells = self._notebook.model.cells
        proxy = create_proxy(on_cells_changed)
        cells.changed.connect(proxy)

        def stop() -> None:
            following[0] = False
            cells.changed.disconnect(proxy)
            proxy.destroy()

        return stop

    def watch_proposal(self, cell_id: str, deny: Callable[[str], None]) -> Callable[[], None]:
        """Deny with a reason if the cell is deleted, the notebook closed, or renamed or moved."""
        model, panel = self._notebook.model, self._panel

        def on_change(*_: Any) -> None:
            if self._shared_cell(cell_id) is None:
                deny("The cell was deleted before the human decided.")

        watchers = [
            (model.contentChanged, create_proxy(on_change)),
            (panel.disposed, create_proxy(lambda *_: deny("The notebook was closed before the human decided."))),
            (panel.context.pathChanged, create_proxy(lambda *_: deny("The notebook was renamed or moved."))),
        ]
        for signal, proxy in watchers:
            signal.connect(proxy)

        def stop() -> None:
            for signal, proxy in watchers:
                signal.disconnect(proxy)
                proxy.destroy()

        return stop

    def widgets(self) -> Any:
        return self._notebook.widgets

    def highlight_output(self, cell_index: int, output_index: int) -> None:
        """Flash the anchored output so the human sees which one a thread is about."""
        children = self._notebook.widgets[cell_index].node.querySelectorAll(".jp-OutputArea-child")
        if output_index < children.length:
            node = children[output_index]
            node.classList.add("jp-webmcp-highlight")
            node.scrollIntoView(to_js_object({"block": "center"}))
            setTimeout(create_once_callable(lambda: node.classList.remove("jp-webmcp-highlight")), 2000)

    def review_entry(self) -> Any:
        return to_python(self._notebook.model.getMetadata(REVIEW_KEY))

    def set_review_entry(self, entry: dict[str, Any]) -> None:
        # Through JSON text, so every stored value (odd numbers, lone surrogates) comes back exactly.
        self._notebook.model.setMetadata(REVIEW_KEY, JSON.parse(json.dumps(entry)))
        self.refresh_markers()

    def refresh_markers(self) -> None:
        """Markers on cells the owner restricted and on cells with open review threads."""
        discussed = {t.cell_id for t in ReviewStore(self.review_entry()).threads if t.status == "open"}
        for widget, record in zip(self._notebook.widgets, self.cells()):
            for level in ("read", "none"):
                widget.toggleClass(f"jp-webmcp-access-{level}", record.access == level)
            widget.toggleClass("jp-webmcp-has-thread", record.id in discussed)

    def cell_json(self, index: int) -> dict[str, Any]:
        return to_python(self._shared_cells()[index].toJSON())

    def cells_json(self, indexes: list[int]) -> list[dict[str, Any]]:
        """Several cells' nbformat JSON in one crossing."""
        return json.loads(self._lab.readers.cellsJson(self._notebook.model.sharedModel, json.dumps(indexes)))

    def active_index(self) -> Optional[int]:
        index = js_value(self._notebook.activeCellIndex)
        return int(index) if index is not None and index >= 0 else None

    def selected_indexes(self) -> list[int]:
        return list(self._lab.readers.selectedIndexes(self._notebook).to_py())

    def editor_state(self) -> Optional[EditorState]:
        cell = js_value(self._notebook.activeCell)
        editor = js_value(cell.editor) if cell is not None else None
        if editor is None:
            return None
        cursor = editor.getCursorPosition()
        selection = editor.getSelection()
        return EditorState(
            cursor=(int(cursor.line), int(cursor.column)),
            selection_start=(int(selection.start.line), int(selection.start.column)),
            selection_end=(int(selection.end.line), int(selection.end.column)),
        )

    def kernel(self) -> KernelInfo:
        session_context = self._panel.sessionContext
        session = js_value(session_context.session)
        kernel = js_value(session.kernel) if session is not None else None
        if kernel is None:
            return {"name": None, "status": "unavailable"}
        info: KernelInfo = {"name": str(kernel.name), "status": _KERNEL_STATUS.get(str(kernel.status), "unknown")}
        display_name = js_value(session_context.kernelDisplayName)
        if display_name:
            info["displayName"] = str(display_name)
        return info

    async def has_kernel(self) -> bool:
        """Whether a kernel is attached, once the session has initialized (or a kernel dialog made it wait too long)."""
        await settled(self._panel.sessionContext.ready, limits.SESSION_READY_WAIT_MS)
        session = js_value(self._panel.sessionContext.session)
        return session is not None and js_value(session.kernel) is not None

    def activate(self) -> None:
        self._lab.app.shell.activateById(self._panel.id)

    async def reveal_cell(self, index: int) -> None:
        notebook = self._notebook
        notebook.activeCellIndex = index
        notebook.deselectAll()
        await notebook.scrollToCell(notebook.widgets[index])

    # Writes. Each is synchronous, so a guard checked just before cannot be raced.

    def insert_cell(self, index: int, cell_type: str, source: str) -> str:
        cell = self._notebook.model.sharedModel.insertCell(
            index, to_js_object({"cell_type": cell_type, "source": source, "metadata": {}})
        )
        return str(cell.id)

    def set_source(self, index: int, source: str) -> None:
        self._shared_cells()[index].setSource(source)

    def delete_cell(self, index: int) -> None:
        self._notebook.model.sharedModel.deleteCell(index)

    def activate_cell(self, index: int, *, render_markdown: bool) -> None:
        notebook = self._notebook
        notebook.activeCellIndex = index
        notebook.deselectAll()
        if render_markdown:
            self.render_markdown(index)

    def render_markdown(self, index: int) -> None:
        widget = self._notebook.widgets[index]
        if str(widget.model.type) == "markdown":
            widget.rendered = True

    # Execution

    def _widget_for(self, index: int, cell_id: str) -> Any:
        """The cell widget at `index` if it is in step with the model, else None."""
        widgets = self._notebook.widgets
        if index >= widgets.length:
            return None
        widget = widgets[index]
        return widget if str(widget.model.id) == cell_id else None

    async def execute_code(self, index: int, cell_id: str) -> Optional[str]:
        """Run one code cell as the human would; the reply status, or None if its widget is gone."""
        widget = self._widget_for(index, cell_id)
        if widget is None:
            return None
        reply = js_value(await self._lab.classes.CodeCell.execute(widget, self._panel.sessionContext))
        return str(reply.content.status) if reply is not None else "error"

    def _kernel(self) -> Any:
        session = js_value(self._panel.sessionContext.session)
        return js_value(session.kernel) if session is not None else None

    def interrupt_kernel(self) -> None:
        """Send an interrupt without waiting (from an abort listener)."""
        kernel = self._kernel()
        if kernel is not None:
            kernel.interrupt()

    async def interrupt_kernel_now(self) -> bool:
        """Send an interrupt and wait until the kernel has applied it; False if it did not answer in time."""
        kernel = self._kernel()
        try:
            return kernel is not None and await settled(kernel.interrupt(), limits.KERNEL_INTERRUPT_WAIT_MS)
        except Exception:  # the kernel refused it (for example, it died meanwhile)
            return False

    async def restart_kernel(self) -> None:
        await self._panel.sessionContext.restartKernel()

    # View

    async def focus_cell(self, index: int, selection: Optional[tuple[tuple[int, int], tuple[int, int]]]) -> None:
        """Show the cell, then place the editor's cursor or selection (UTF-16 columns)."""
        self.activate()
        await self.reveal_cell(index)
        if selection is None:
            return
        widget = self._notebook.widgets[index]
        if str(widget.model.type) == "markdown":
            widget.rendered = False
        self._notebook.mode = "edit"
        editor = js_value(widget.editor)
        if editor is None:
            return
        (start_line, start_column), (end_line, end_column) = selection
        editor.setSelection(
            to_js_object(
                {
                    "start": {"line": start_line, "column": start_column},
                    "end": {"line": end_line, "column": end_column},
                }
            )
        )
        editor.focus()

    async def save(self) -> None:
        await self._panel.context.save()


class HumanEditRecorder:
    """Attributes genuine human source changes, debounced, deferring to tool calls in flight."""

    def __init__(self, lab: "Lab"):
        self._lab = lab
        self._baselines: dict[str, dict[str, str]] = {}
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
            handle = NotebookHandle(self._lab, panel)
            self._baselines[key] = {c.id: c.source_hash for c in handle.cells()}
            handle.refresh_markers()
            # One proxy per notebook for the debounced flush and one for the change slot, made once.
            self._flushers[key] = create_proxy(lambda: self._flush(panel))
            changed = create_proxy(lambda *_: self._schedule(key))
            self._proxies.append(changed)
            panel.content.model.contentChanged.connect(changed)

        panel.context.ready.then(create_once_callable(start))

    def _schedule(self, key: str) -> None:
        if key in self._timers:
            clearTimeout(self._timers[key])
        self._timers[key] = setTimeout(self._flushers[key], limits.HUMAN_EDIT_DEBOUNCE_MS)

    def _flush(self, panel: Any) -> None:
        key = str(panel.id)
        self._timers.pop(key, None)
        if panel.isDisposed:
            self._baselines.pop(key, None)
            return
        if self._lab.calls_in_flight:
            self._schedule(key)
            return
        handle = NotebookHandle(self._lab, panel)
        cells = handle.cells()
        changes = human_changes(self._baselines[key], ((c.id, c.source_hash) for c in cells))
        for cell_id, action in changes:
            handle.record_history(cell_id, "human", action)
        self._baselines[key] = {c.id: c.source_hash for c in cells}
        if any(action == "inserted" for _, action in changes):
            handle.refresh_markers()  # a pasted cell may carry access metadata

    def settle(self, panel: Any, cell_id: str, digest: str) -> None:
        baseline = self._baselines.get(str(panel.id))
        if baseline is not None:
            baseline[cell_id] = digest


class CellListCache:
    """Each notebook's latest cell list, valid while its document version (the host's counter) stands."""

    def __init__(self) -> None:
        self._lists: dict[str, tuple[int, CellList]] = {}

    def get(self, notebook: str, version: int) -> Optional[CellList]:
        kept = self._lists.get(notebook)
        return kept[1] if kept is not None and kept[0] == version else None

    def put(self, notebook: str, version: int, cells: CellList) -> CellList:
        self._lists.pop(notebook, None)
        self._lists[notebook] = (version, cells)
        while len(self._lists) > limits.MAX_CACHED_CELL_LISTS:
            del self._lists[next(iter(self._lists))]
        return cells


class Lab:
    """The live JupyterLab application as the tools need it."""

    def __init__(self, host: Any):
        self.app = host.app
        self.classes = host.classes
        self.readers = host.readers
        self.calls_in_flight = 0
        self.output_selection = None
        self.proposals = ProposalBoard()
        self.human_edits = HumanEditRecorder(self)
        self.cell_lists = CellListCache()
        self._tracker = host.tracker
        self._documents = host.docManager
        self._file_browser = js_value(host.fileBrowser)
        self._contents = host.docManager.services.contents

    # Notebooks

    def current_notebook(self) -> Optional[NotebookHandle]:
        panel = js_value(self._tracker.currentWidget)
        return NotebookHandle(self, panel) if panel is not None else None

    def find_notebook(self, path: str) -> Optional[NotebookHandle]:
        panel = js_value(self._documents.findWidget(path, "Notebook"))
        return NotebookHandle(self, panel) if panel is not None else None

    async def open_notebook(self, path: str, *, activate: bool, kernel: Optional[str] = None) -> NotebookHandle:
        kernel_arg = to_js_object({"name": kernel}) if kernel else None
        panel = js_value(
            self._documents.openOrReveal(path, "Notebook", kernel_arg, to_js_object({"activate": activate}))
        )
        if panel is None:
            raise RuntimeError(f"JupyterLab could not open {path}")
        await panel.context.ready
        # A notebook without a kernelspec makes JupyterLab ask the human; never wait on that for long.
        await settled(panel.sessionContext.ready, limits.SESSION_READY_WAIT_MS)
        return NotebookHandle(self, panel)

    def output_selection_record(self) -> Optional[dict[str, Any]]:
        return self.output_selection.record if self.output_selection is not None else None

    def locate_cell_node(self, node: Any) -> Optional[tuple[NotebookHandle, int]]:
        """The open notebook and cell index whose widget owns this DOM node."""
        for widget in self.app.shell.widgets("main"):
            context = js_value(self._documents.contextForWidget(widget))
            notebook = self.find_notebook(str(context.path)) if context is not None else None
            if notebook is None:
                continue
            for index, cell in enumerate(notebook.widgets()):
                if cell.node == node:
                    return notebook, index
        return None

    def open_documents(self) -> list[tuple[str, Access]]:
        """(path, access) of every open document; non-notebooks count as writable."""
        documents = []
        for widget in self.app.shell.widgets("main"):
            context = js_value(self._documents.contextForWidget(widget))
            if context is not None:
                path = str(context.path)
                notebook = self.find_notebook(path)
                documents.append((path, notebook.access() if notebook is not None else "write"))
        return documents

    async def file_notebook_access(self, path: str) -> Optional[Access]:
        """The access stored in a notebook file, or None when there is no notebook there."""
        entry = await self.get_entry(path, content=True)
        if entry is None or entry.get("type") != "notebook":
            return None
        content = entry.get("content")
        return notebook_access(content.get("metadata") if isinstance(content, dict) else None)

    async def notebook_paths(self) -> list[str]:
        """Every notebook in the workspace, breadth-first."""
        found, pending = [], [""]
        while pending:
            listing = await self.get_entry(pending.pop(0), content=True) or {}
            for child in sorted(listing.get("content") or [], key=lambda child: child.get("path", "")):
                if child.get("type") == "directory":
                    pending.append(child["path"])
                elif child.get("type") == "notebook":
                    found.append(child["path"])
        return found

    async def set_notebook_access(self, path: str, access: Optional[Access] = None, cells: Optional[Access] = None) -> None:
        """The human's change of a notebook's (and optionally all its cells') access: live model if open, else the file."""
        notebook = self.find_notebook(path)
        if notebook is not None:
            if access is not None:
                notebook.set_access(access)
            if cells is not None:
                for index in range(len(notebook.cells())):
                    notebook.set_cell_access(index, cells)
            return
        entry = await self.get_entry(path, content=True)
        content = entry.get("content") if entry else None
        if not isinstance(content, dict):
            return
        if access is not None:
            metadata = content.setdefault("metadata", {})
            metadata[METADATA_KEY] = with_notebook_access(metadata, access)
        for cell in content.get("cells") or [] if cells is not None else []:
            metadata = cell.setdefault("metadata", {})
            metadata[METADATA_KEY] = with_cell_access(metadata, cells)
        await self._contents.save(path, to_js_object({"type": "notebook", "format": "json", "content": content}))

    async def notebook_access(self, path: str) -> Optional[Access]:
        """Live access of an open notebook, else what its file says."""
        notebook = self.find_notebook(path)
        return notebook.access() if notebook is not None else await self.file_notebook_access(path)

    def current_directory(self) -> str:
        return str(self._file_browser.model.path) if self._file_browser is not None else ""

    def kernel_specs(self) -> tuple[Optional[str], list[tuple[str, str]]]:
        specs = to_python(self.app.serviceManager.kernelspecs.specs) or {}
        entries = [(name, str(spec.get("language", ""))) for name, spec in (specs.get("kernelspecs") or {}).items()]
        return specs.get("default"), entries

    # Contents

    async def get_entry(self, path: str, *, content: bool = False) -> Optional[dict[str, Any]]:
        try:
            model = await self._contents.get(path, to_js_object({"content": content}))
        except Exception:
            return None
        return to_python(model)

    async def new_untitled_notebook(self, directory: str) -> str:
        model = await self._contents.newUntitled(to_js_object({"path": directory, "type": "notebook"}))
        return str(model.path)

    async def rename(self, old_path: str, new_path: str) -> None:
        await self._contents.rename(old_path, new_path)

    async def delete(self, path: str) -> None:
        await self._contents.delete(path)
