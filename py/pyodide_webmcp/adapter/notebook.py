"""One open notebook panel: its live model, view and kernel, as the port's NotebookPort."""

import json
from typing import Any, Callable, Optional

from js import setTimeout
from pyodide.ffi import create_once_callable, jsnull

from ..base import limits
from ..base.access_levels import Access
from ..base.clock import iso_now
from ..base.errors import ErrorCode, ToolError
from ..base.hashing import source_hash
from ..base.shapes import CellType, KernelInfo
from ..base.text import one_line
from ..calls.current import CURRENT_CALL, current_call
from ..lab.kernels import kernel_status
from ..lab.snippet_outputs import SnippetOutputs
from ..notebook.access import (
    METADATA_KEY,
    cell_access,
    notebook_access,
    with_cell_access,
    with_notebook_access,
)
from ..port import (
    CellList,
    CellRecord,
    EditorState,
    ExecutionOutcome,
    RunOutcome,
    SaveOutcome,
)
from ..review.store import REVIEW_KEY
from ..ui.activity import Touch
from ..ui.agent_changes import AgentChange, ChangeKind
from .cell_run import run_through_executor
from .ffi import js_value, settled, stored_metadata, to_js_data, to_js_object, to_python
from .kept_versions import keep_version
from .kernel_watch import waits_for_input, watch_execution
from .proposal_places import keep_below_cell, watch_proposal
from .services import NotebookServices
from .snippet_requests import run_snippet


class NotebookHandle:
    """One open notebook panel."""

    def __init__(self, services: NotebookServices, panel: Any):
        self._services = services
        self._panel = panel

    @property
    def path(self) -> str:
        return str(self._panel.context.path)

    @property
    def key(self) -> str:
        return str(self._panel.id)

    @property
    def dirty(self) -> bool:
        return bool(self._panel.context.model.dirty)

    def closed(self) -> bool:
        return bool(self._panel.isDisposed)

    @property
    def _notebook(self) -> Any:
        return self._panel.content

    def _shared_cells(self) -> Any:
        return self._notebook.model.sharedModel.cells

    def cells(self) -> CellList:
        """Every cell as it is now: re-read only when the notebook's document changed since the last read."""
        shared = self._notebook.model.sharedModel
        default = self._services.access_defaults().cell  # part of the key: the owner may change it any time
        key, version = f"{self._panel.id}:{default}", self._services.readers.version(shared)
        cached = self._services.cell_lists.get(key, version)
        return cached if cached is not None else self._services.cell_lists.put(key, version, self._read_cells(shared, default))

    def _read_cells(self, shared: Any, default: Access) -> CellList:
        rows = json.loads(self._services.readers.cells(shared, METADATA_KEY))
        # The reader sends, per cell, no entry (null), a damaged one (false) or just its access field.
        return CellList(
            CellRecord(cell_id, kind, source, cell_access({} if entry is None else {METADATA_KEY: entry}, default))
            for cell_id, kind, source, entry in rows
        )

    def access(self) -> Access:
        return notebook_access(stored_metadata(self._notebook.model), self._services.access_defaults().notebook)

    def _shared_cell(self, cell_id: str) -> Any:
        return next((c for c in self._shared_cells() if str(c.id) == cell_id), None)

    def cell_entry(self, cell_id: str) -> Any:
        cell = self._shared_cell(cell_id)
        return None if cell is None else stored_metadata(cell).get(METADATA_KEY, {})

    def set_cell_entry(self, cell_id: str, entry: dict[str, Any]) -> None:
        """Store the entry; the provenance it holds also settles the human-edit baseline."""
        cell = self._shared_cell(cell_id)
        if cell is not None:
            cell.setMetadata(METADATA_KEY, to_js_data(entry))
            self._services.edit_baselines.settle(str(self._panel.id), cell_id, source_hash(str(cell.getSource())))
            self._services.events.changed(self)

    def set_cell_access(self, index: int, access: Access) -> None:
        cell = self._shared_cells()[index]
        cell.setMetadata(METADATA_KEY, to_js_data(with_cell_access(stored_metadata(cell), access)))
        self._services.events.changed(self)

    def set_access(self, access: Access) -> None:
        model = self._notebook.model
        model.setMetadata(METADATA_KEY, to_js_data(with_notebook_access(stored_metadata(model), access)))

    def last_changes(self) -> list[Optional[dict[str, Any]]]:
        changes: list[Optional[dict[str, Any]]] = json.loads(
            self._services.readers.lastChanges(self._notebook.model.sharedModel, METADATA_KEY))
        return changes

    def _neighbours(self, index: int) -> tuple[Optional[str], Optional[str]]:
        cells = self._shared_cells()
        before = str(cells[index - 1].id) if index > 0 else None
        after = str(cells[index + 1].id) if index + 1 < cells.length else None
        return before, after

    def _agent_did(self, kind: ChangeKind, cell_id: str, index: int, **kept: Any) -> None:
        """Keep an agent call's change for the human to see and take back (nothing for the human's own)."""
        call = CURRENT_CALL.get(None)
        if call is None:
            return
        work = self._services.work
        change = AgentChange(work.journal.new_number(), iso_now(), call.tool, kind, cell_id, index, **kept)
        work.changed(call.key, self.key, change, self.path)
    def keep_below_cell(self, cell_id: str, node: Any) -> Callable[[], None]:
        return keep_below_cell(self._notebook, cell_id, node)

    def watch_proposal(self, cell_id: str, deny: Callable[[str], None]) -> Callable[[], None]:
        return watch_proposal(self._panel, cell_id, self._services.access_defaults, deny)

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
        self._notebook.model.setMetadata(REVIEW_KEY, to_js_data(entry))
        self._services.events.reviewed(self)

    def cell_json(self, index: int) -> dict[str, Any]:
        return to_python(self._shared_cells()[index].toJSON())

    def cell_outputs(self, index: int) -> list[dict[str, Any]]:
        """Read from the lab again only after the document changed: a long print converts 100 MB each time."""
        key, version = str(self._panel.id), self._services.readers.version(self._notebook.model.sharedModel)
        kept = self._services.cell_outputs.get(key, version)
        if kept is None:
            kept = self._services.cell_outputs.put(key, version, {})
        if index not in kept:
            kept[index] = self.cell_json(index).get("outputs") or []
        return kept[index]

    def cells_json(self, indexes: list[int]) -> list[dict[str, Any]]:
        """Several cells' nbformat JSON in one crossing."""
        return json.loads(self._services.readers.cellsJson(self._notebook.model.sharedModel, json.dumps(indexes)))

    def active_index(self) -> Optional[int]:
        index = js_value(self._notebook.activeCellIndex)
        return int(index) if index is not None and index >= 0 else None

    def selected_indexes(self) -> list[int]:
        return list(self._services.readers.selectedIndexes(self._notebook).to_py())

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
        info: KernelInfo = {"name": str(kernel.name), "status": kernel_status(str(kernel.status))}
        display_name = js_value(session_context.kernelDisplayName)
        if display_name:
            info["displayName"] = str(display_name)
        return info

    async def has_kernel(self) -> bool:
        """Whether a kernel is attached, once the session has initialized (a kernel dialog of this call may ask first)."""
        await self._services.dialogs.wait(
            self._panel.sessionContext.ready, "waited for the kernel", limits.SESSION_READY_WAIT_MS, required=False
        )
        session = js_value(self._panel.sessionContext.session)
        return session is not None and js_value(session.kernel) is not None

    def activate(self) -> None:
        self._services.shell.activateById(self._panel.id)

    async def reveal_cell(self, index: int) -> None:
        notebook = self._notebook
        notebook.activeCellIndex = index
        notebook.deselectAll()
        await notebook.scrollToCell(notebook.widgets[index])

    # Writes. Each is synchronous, so a guard checked just before cannot be raced.

    def insert_cells(self, index: int, cells: list[tuple[CellType, str]]) -> list[str]:
        new = [{"cell_type": cell_type, "source": source, "metadata": {}} for cell_type, source in cells]
        ids = [str(cell.id) for cell in self._notebook.model.sharedModel.insertCells(index, to_js_data(new))]
        for offset, (cell_id, (cell_type, source)) in enumerate(zip(ids, cells)):
            self._agent_did("inserted", cell_id, index + offset, after=source, after_type=cell_type,
                            neighbours=self._neighbours(index + offset))
        return ids

    def insert_cell_json(self, index: int, cell: dict[str, Any]) -> None:
        self._notebook.model.sharedModel.insertCell(index, to_js_data(cell))

    def set_outputs(self, index: int, outputs: list[dict[str, Any]]) -> None:
        self._shared_cells()[index].setOutputs(to_js_data(outputs))

    def transact(self, change: Callable[[], None]) -> None:
        self._notebook.model.sharedModel.transact(create_once_callable(lambda *_: change()))

    def set_source(self, index: int, source: str) -> None:
        cell = self._shared_cells()[index]
        before, kind = str(cell.getSource()), str(cell.cell_type)
        cell.setSource(source)
        self._agent_did("edited", str(cell.id), index, before=before, after=source, before_type=kind, after_type=kind)

    def delete_cell(self, index: int) -> None:
        shared = self._notebook.model.sharedModel
        if CURRENT_CALL.get(None) is not None:
            cell = to_python(shared.cells[index].toJSON())
            self._agent_did("deleted", str(cell["id"]), index, cell=cell, neighbours=self._neighbours(index))
        shared.deleteCell(index)

    def move_cell(self, from_index: int, to_index: int) -> None:
        if from_index != to_index:
            cell_id, neighbours = str(self._shared_cells()[from_index].id), self._neighbours(from_index)
            self._notebook.model.sharedModel.moveCell(from_index, to_index)
            self._agent_did("moved", cell_id, from_index, to_index=to_index, neighbours=neighbours)

    def set_cell_type(self, index: int, cell_type: CellType) -> None:
        shared = self._notebook.model.sharedModel
        cell = to_python(shared.cells[index].toJSON())
        replacement = {"id": cell["id"], "cell_type": cell_type, "source": cell.get("source", ""),
                       "metadata": cell.get("metadata") or {}}

        def swap(*_: Any) -> None:  # one transaction, as JupyterLab's own "change cell type": the cell keeps its id
            shared.deleteCell(index)
            shared.insertCell(index, to_js_data(replacement))

        shared.transact(create_once_callable(swap))
        source = str(cell.get("source", ""))
        self._agent_did("edited", str(cell["id"]), index, before=source, after=source, before_type=str(cell["cell_type"]),
                        after_type=cell_type)

    def clear_outputs(self, index: int) -> None:
        cell = self._shared_cells()[index]
        if CURRENT_CALL.get(None) is not None:
            outputs = to_python(cell.toJSON()).get("outputs") or []
            if outputs:
                self._agent_did("cleared", str(cell.id), index, cell={"outputs": outputs})
        cell.clearOutputs()
        cell.execution_count = jsnull

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

    async def execute_code(self, index: int, cell_id: str) -> Optional[RunOutcome]:
        """Run one code cell as the human's Run does; its status (see watch_execution), or None if its widget is gone."""
        widget = self._widget_for(index, cell_id)
        if widget is None:
            return None
        call = CURRENT_CALL.get(None)
        if call is not None:
            self._services.work.touched(call.key, Touch(self.path, cell_id, index))
        execution = run_through_executor(self._services, self._panel, widget)
        return await watch_execution(execution, self._panel.sessionContext)

    def waits_for_input(self) -> bool:
        return waits_for_input(self._panel.sessionContext)

    async def run_snippet(self, code: str, outputs: SnippetOutputs) -> ExecutionOutcome:
        return await run_snippet(self._panel.sessionContext, code, outputs)

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

    async def start_kernel(self, name: Optional[str]) -> None:
        change = self._panel.sessionContext.changeKernel(to_js_object({"name": name}))
        await self._services.dialogs.wait(change, "started a kernel")

    async def restart_kernel(self) -> None:
        await self._services.dialogs.wait(self._panel.sessionContext.restartKernel(), "restarted the kernel")

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

    async def save(self) -> SaveOutcome:
        """Save through JupyterLab. A File Changed dialog answered Revert loads the disk's version; the live one
        is kept beside the file first (name.from-lab.ipynb), and its path returned."""
        call = current_call()
        live = self._panel.context.model.toJSON()
        try:
            await self._services.dialogs.wait(self._panel.context.save(), "saved the notebook")
        except ToolError:
            raise
        except Exception as error:  # JupyterLab rejects a save whose dialog was cancelled
            raise ToolError(
                ErrorCode.DIALOG_CANCELLED, f"The save was cancelled; nothing was written. ({one_line(str(error))})"
            ) from None
        answers = call.answers.values() if call is not None else []
        if not any(label.casefold() == "revert" for label in answers):
            return "saved", None
        return "reverted", await keep_version(self._services.contents, self.path, "from-lab", live)
