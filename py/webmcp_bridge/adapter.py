"""The only module that touches `js`, Pyodide's FFI and JupyterLab objects.

Everything here converts between live JupyterLab state and plain Python
data; the tools decide what to do with it.
"""

from typing import Any, Callable, Optional

from js import JSON, Object
from pyodide.ffi import JsProxy, create_proxy, jsnull, to_js

from .envelope import to_json
from .models import KernelInfo
from .registry import CallContext, NeverAborted, Registry
from .snapshots import CellRecord, EditorState

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


def _value(value: Any) -> Any:
    """JS null and undefined both read as None."""
    return None if value is None or value is jsnull else value


def to_js_object(value: Any) -> Any:
    return to_js(value, dict_converter=Object.fromEntries)


def _to_python(value: Any) -> Any:
    value = _value(value)
    return value.to_py() if isinstance(value, JsProxy) else value


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

    def cells(self) -> list[CellRecord]:
        return [CellRecord(str(c.id), str(c.cell_type), str(c.getSource())) for c in self._shared_cells()]

    def cell_json(self, index: int) -> dict[str, Any]:
        return self._shared_cells()[index].toJSON().to_py()

    def active_index(self) -> Optional[int]:
        index = _value(self._notebook.activeCellIndex)
        return int(index) if index is not None and index >= 0 else None

    def selected_indexes(self) -> list[int]:
        notebook = self._notebook
        return [i for i, widget in enumerate(notebook.widgets) if notebook.isSelectedOrActive(widget)]

    def editor_state(self) -> Optional[EditorState]:
        cell = _value(self._notebook.activeCell)
        editor = _value(cell.editor) if cell is not None else None
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
        session = _value(session_context.session)
        kernel = _value(session.kernel) if session is not None else None
        if kernel is None:
            return {"name": None, "status": "unavailable"}
        info: KernelInfo = {"name": str(kernel.name), "status": _KERNEL_STATUS.get(str(kernel.status), "unknown")}
        display_name = _value(session_context.kernelDisplayName)
        if display_name:
            info["displayName"] = str(display_name)
        return info

    async def has_kernel(self) -> bool:
        """Whether a kernel is attached, once the session has finished initializing."""
        await self._panel.sessionContext.ready
        session = _value(self._panel.sessionContext.session)
        return session is not None and _value(session.kernel) is not None

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
        reply = _value(await self._lab.classes.CodeCell.execute(widget, self._panel.sessionContext))
        return str(reply.content.status) if reply is not None else "error"

    def interrupt_kernel(self) -> None:
        session = _value(self._panel.sessionContext.session)
        kernel = _value(session.kernel) if session is not None else None
        if kernel is not None:
            kernel.interrupt()

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
        editor = _value(widget.editor)
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


class Lab:
    """The live JupyterLab application as the tools need it."""

    def __init__(self, host: Any):
        self.app = host.app
        self.classes = host.classes
        self._tracker = host.tracker
        self._documents = host.docManager
        self._file_browser = _value(host.fileBrowser)
        self._contents = host.docManager.services.contents

    # Notebooks

    def current_notebook(self) -> Optional[NotebookHandle]:
        panel = _value(self._tracker.currentWidget)
        return NotebookHandle(self, panel) if panel is not None else None

    def find_notebook(self, path: str) -> Optional[NotebookHandle]:
        panel = _value(self._documents.findWidget(path, "Notebook"))
        return NotebookHandle(self, panel) if panel is not None else None

    async def open_notebook(self, path: str, *, activate: bool, kernel: Optional[str] = None) -> NotebookHandle:
        kernel_arg = to_js_object({"name": kernel}) if kernel else None
        panel = _value(
            self._documents.openOrReveal(path, "Notebook", kernel_arg, to_js_object({"activate": activate}))
        )
        if panel is None:
            raise RuntimeError(f"JupyterLab could not open {path}")
        await panel.context.ready
        await panel.sessionContext.ready
        return NotebookHandle(self, panel)

    def open_documents(self) -> list[str]:
        paths = []
        for widget in self.app.shell.widgets("main"):
            context = _value(self._documents.contextForWidget(widget))
            if context is not None:
                paths.append(str(context.path))
        return paths

    def current_directory(self) -> str:
        return str(self._file_browser.model.path) if self._file_browser is not None else ""

    def kernel_specs(self) -> tuple[Optional[str], list[tuple[str, str]]]:
        specs = _to_python(self.app.serviceManager.kernelspecs.specs) or {}
        entries = [(name, str(spec.get("language", ""))) for name, spec in (specs.get("kernelspecs") or {}).items()]
        return specs.get("default"), entries

    # Contents

    async def get_entry(self, path: str, *, content: bool = False) -> Optional[dict[str, Any]]:
        try:
            model = await self._contents.get(path, to_js_object({"content": content}))
        except Exception:
            return None
        return _to_python(model)

    async def new_untitled_notebook(self, directory: str) -> str:
        model = await self._contents.newUntitled(to_js_object({"path": directory, "type": "notebook"}))
        return str(model.path)

    async def rename(self, old_path: str, new_path: str) -> None:
        await self._contents.rename(old_path, new_path)

    async def delete(self, path: str) -> None:
        await self._contents.delete(path)


class SignalAbort:
    """A call's AbortSignal, as the tools see abort state."""

    def __init__(self, signal: Any):
        self._signal = signal

    @property
    def aborted(self) -> bool:
        return bool(self._signal.aborted)

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]:
        listener = create_proxy(lambda _event: callback())
        self._signal.addEventListener("abort", listener)

        def cancel() -> None:
            self._signal.removeEventListener("abort", listener)
            listener.destroy()

        return cancel


def _arguments(raw: Any) -> Any:
    try:
        return _to_python(raw)
    except Exception:
        return raw


async def serve(host: Any, registry: Registry) -> int:
    """Register every tool on the host's model context; returns how many took."""
    lab = Lab(host)
    model_context = host.modelContext
    registered = 0
    failures = []
    for tool in registry:

        async def execute(raw: Any = None, options: Any = None, tool=tool) -> Any:
            signal = _value(getattr(options, "signal", None)) if _value(options) is not None else None
            context = CallContext(lab, SignalAbort(signal) if signal is not None else NeverAborted())
            # Through JSON so None becomes null (to_js would make it undefined).
            return JSON.parse(to_json(await tool.call(_arguments(raw), context)))

        # Through JSON so schema defaults of None stay null (to_js would drop them).
        descriptor = JSON.parse(
            to_json(
                {
                    "name": tool.name,
                    "title": tool.title,
                    "description": tool.description,
                    "inputSchema": tool.input_schema,
                    "outputSchema": tool.output_schema,
                    "annotations": tool.annotations,
                }
            )
        )
        descriptor.execute = create_proxy(execute)
        try:
            pending = model_context.registerTool(descriptor)
            if hasattr(pending, "then"):
                await pending
            registered += 1
        except Exception as exc:
            failures.append(f"{tool.name}: {exc}")
    if failures:
        host.setStatus("unavailable", f"WebMCP: {registered} tools; failed: {'; '.join(failures)}")
    else:
        host.setStatus("ready", f"WebMCP: ready ({registered} tools)")
    return registered
