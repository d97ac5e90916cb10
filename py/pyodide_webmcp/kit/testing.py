"""The in-memory lab: an implementation of the port (pyodide_webmcp.port) for testing tools on CPython.

    from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call, cell

    call(MemoryLab(MemoryNotebook("a.ipynb", [cell("x = 1")])), your_tool, {"notebookPath": "a.ipynb"})

Browser tests remain the proof that the adapter behaves like this; here a
notebook is a list of nbformat cells, and a code cell "runs" by awaiting
`run_delay` seconds and printing its source.
"""

import asyncio
import contextlib
import io
import itertools
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Optional, Union

from pyodide_webmcp.base.access_levels import Access, AccessDefaults
from pyodide_webmcp.base.shapes import KernelInfo, KernelStatus
from pyodide_webmcp.calls.catalog import Toolbox
from pyodide_webmcp.calls.current import CallContext
from pyodide_webmcp.calls.dispatch import dispatch
from pyodide_webmcp.calls.tool import Tool
from pyodide_webmcp.lab.snippet_outputs import SnippetLog, SnippetOutputs
from pyodide_webmcp.notebook.access import cell_access, notebook_access
from pyodide_webmcp.port import (
    CellList,
    CellRecord,
    CommandInfo,
    Dialog,
    EditorState,
    SaveOutcome,
)
from pyodide_webmcp.tools import BUILT_IN

_ids = itertools.count()


def cell(source: str, cell_type: str = "code", cell_id: Optional[str] = None, **metadata: Any) -> dict[str, Any]:
    """An nbformat cell; `metadata` its metadata (`jupyterlite_webmcp={"access": "none"}` hides it)."""
    cell_id = cell_id or f"cell-{next(_ids)}"
    data: dict[str, Any] = {"id": cell_id, "cell_type": cell_type, "source": source, "metadata": dict(metadata)}
    if cell_type == "code":
        data.update(outputs=[], execution_count=None)
    return data


class MemoryNotebook:
    def __init__(self, path: str, cells: list[dict[str, Any]], metadata: Optional[dict[str, Any]] = None):
        self.path = path
        self.dirty = False
        self.notebook_metadata: dict[str, Any] = metadata or {}
        self.data = cells
        self.active: Optional[int] = 0 if cells else None
        self.selected: Optional[list[int]] = None  # None: the active cell only
        self.editor: Optional[EditorState] = None  # the active cell's cursor and selection
        self.kernel_status: KernelStatus = "idle"
        self.run_delay = 0.0
        self.input_pending = False
        self.is_closed = False
        self.executions = 0
        self.saved = 0
        self.namespace: dict[str, Any] = {}
        self.proposal_watchers: dict[str, Any] = {}

    def access(self) -> Access:
        return notebook_access(self.notebook_metadata)

    def closed(self) -> bool:
        return self.is_closed

    def cells(self) -> CellList:
        return CellList(
            CellRecord(c["id"], c["cell_type"], c["source"], cell_access(c.get("metadata"))) for c in self.data
        )

    def cell_json(self, index: int) -> dict[str, Any]:
        return self.data[index]

    def cell_outputs(self, index: int) -> list[dict[str, Any]]:
        outputs: list[dict[str, Any]] = self.data[index].get("outputs") or []
        return outputs

    def cells_json(self, indexes: list[int]) -> list[dict[str, Any]]:
        return [self.data[i] for i in indexes]

    def active_index(self) -> Optional[int]:
        return self.active

    def selected_indexes(self) -> list[int]:
        if self.selected is not None:
            return list(self.selected)
        return [] if self.active is None else [self.active]

    def editor_state(self) -> Optional[EditorState]:
        return self.editor

    def kernel(self) -> KernelInfo:
        return {"name": "python", "status": self.kernel_status}

    async def has_kernel(self) -> bool:
        return self.kernel_status != "unavailable"

    async def execute_code(self, index: int, cell_id: str) -> Optional[str]:
        self.kernel_status = "busy"
        try:
            await asyncio.sleep(self.run_delay)
        finally:
            self.kernel_status = "idle"
        self.executions += 1
        target = next((c for c in self.data if c["id"] == cell_id), None)
        if target is None:
            return None
        target["execution_count"] = self.executions
        target["outputs"] = [{"output_type": "stream", "name": "stdout", "text": target["source"] + "\n"}]
        return "ok"

    def waits_for_input(self) -> bool:
        return self.input_pending

    async def run_snippet(self, code: str, outputs: SnippetOutputs) -> str:
        """Runs the snippet in this process (the notebook's "kernel" namespace), its prints streamed as a kernel would."""
        await asyncio.sleep(self.run_delay)

        class Stream(io.TextIOBase):
            def write(self, text: str) -> int:
                outputs.add("stream", {"name": "stdout", "text": text})
                return len(text)

        try:
            with contextlib.redirect_stdout(Stream()):
                exec(code, self.namespace)
        except Exception as exc:
            outputs.add("error", {"ename": type(exc).__name__, "evalue": str(exc), "traceback": []})
            return "error"
        return "ok"

    def interrupt_kernel(self) -> None:
        pass

    async def interrupt_kernel_now(self) -> bool:
        return True

    async def restart_kernel(self) -> None:
        self.kernel_status = "starting"

    async def start_kernel(self, name: str) -> None:
        self.kernel_status = "starting"

    def insert_cells(self, index: int, cells: list[tuple[str, str]]) -> list[str]:
        new = [cell(source, cell_type) for cell_type, source in cells]
        self.data[index:index] = new
        self.dirty = True
        return [item["id"] for item in new]

    def transact(self, change: Callable[[], None]) -> None:
        change()

    def set_source(self, index: int, source: str) -> None:
        self.data[index]["source"] = source
        self.dirty = True

    def delete_cell(self, index: int) -> None:
        del self.data[index]
        if self.active is not None and (index < self.active or self.active == len(self.data)):
            self.active -= 1  # as JupyterLab: the next cell becomes active, or the previous one at the end
        if not self.data:
            self.active = None
        self.dirty = True

    def move_cell(self, from_index: int, to_index: int) -> None:
        self.data.insert(to_index, self.data.pop(from_index))

    def set_cell_type(self, index: int, cell_type: str) -> None:
        self.data[index]["cell_type"] = cell_type

    def clear_outputs(self, index: int) -> None:
        self.data[index].update(outputs=[], execution_count=None)

    def cell_entry(self, cell_id: str) -> Any:
        target = next((c for c in self.data if c["id"] == cell_id), None)
        return None if target is None else target["metadata"].get("jupyterlite_webmcp", {})

    def set_cell_entry(self, cell_id: str, entry: dict[str, Any]) -> None:
        next(c for c in self.data if c["id"] == cell_id)["metadata"]["jupyterlite_webmcp"] = entry

    def review_entry(self) -> Any:
        return self.notebook_metadata.get("jupyterlite_webmcp_review")

    def set_review_entry(self, entry: dict[str, Any]) -> None:
        self.notebook_metadata["jupyterlite_webmcp_review"] = entry

    async def save(self) -> SaveOutcome:
        self.saved += 1
        self.dirty = False
        return "saved", None

    def activate(self) -> None:
        pass

    def activate_cell(self, index: int, *, render_markdown: bool) -> None:
        self.active = index

    def render_markdown(self, index: int) -> None:
        pass

    async def reveal_cell(self, index: int) -> None:
        self.active = index

    async def focus_cell(self, index: int, selection: Any) -> None:
        self.active = index

    def keep_below_cell(self, cell_id: str, node: Any) -> Callable[[], None]:
        return lambda: None

    def watch_proposal(self, cell_id: str, deny: Any) -> Callable[[], None]:
        self.proposal_watchers[cell_id] = deny

        def stop() -> None:
            self.proposal_watchers.pop(cell_id, None)

        return stop


class MemoryProposals:
    """Propose mode, off unless a test turns it on with `human`: a function that sees each proposal
    (notebook, cell id, title, preview) and returns ("accepted" | "denied", reason)."""

    def __init__(self) -> None:
        self.enabled = False
        self.reviewed_actions: set[str] = set()
        self.human: Any = None
        self.shown: list[tuple[str, str, list[Any]]] = []

    def reviews(self, action: str) -> bool:
        return self.enabled and (action == "update" or action in self.reviewed_actions)

    def pending_id(self, path: str, cell_id: str) -> Optional[str]:
        return None

    async def decide(self, notebook: Any, cell_id: str, title: str, preview: Any, abort: Any) -> tuple[Any, Any, str]:
        self.shown.append((cell_id, title, preview))
        outcome, reason = self.human(notebook, cell_id, title, preview)
        return outcome, reason, f"p-{len(self.shown)}"


class MemoryCommands:
    """Commands as (label, enabled, argument schema, function of the arguments)."""

    def __init__(self) -> None:
        self.defined: dict[str, tuple[str, bool, Optional[dict[str, Any]], Any]] = {}
        self.ran: list[tuple[str, dict[str, Any]]] = []

    def info(self, command_id: str, args: dict[str, Any]) -> Optional[CommandInfo]:
        if command_id not in self.defined:
            return None
        label, enabled, _, _ = self.defined[command_id]
        return CommandInfo(label=label, caption="", enabled=enabled)

    async def args_schema(self, command_id: str) -> Optional[dict[str, Any]]:
        return self.defined[command_id][2]

    async def execute(self, command_id: str, args: dict[str, Any]) -> Any:
        self.ran.append((command_id, args))
        return self.defined[command_id][3](args)


class MemoryLab:
    access_defaults = AccessDefaults()
    command_allowlist: tuple[str, ...] = ()

    def __init__(self, *notebooks: MemoryNotebook):
        self.notebooks = {notebook.path: notebook for notebook in notebooks}
        self.current = notebooks[0] if notebooks else None
        self.proposals = MemoryProposals()
        self.dialogs = MemoryDialogs()
        self.commands = MemoryCommands()
        self.snippet_log = SnippetLog()

    def current_notebook(self) -> Optional[MemoryNotebook]:
        return self.current

    def find_notebook(self, path: str) -> Optional[MemoryNotebook]:
        return self.notebooks.get(path)

    async def open_notebook(self, path: str, *, activate: bool, kernel: Optional[str] = None) -> MemoryNotebook:
        return self.notebooks[path]

    def open_documents(self) -> list[tuple[str, Access]]:
        return [(path, notebook.access()) for path, notebook in self.notebooks.items()]

    def current_directory(self) -> str:
        return ""

    def kernel_specs(self) -> tuple[str, list[tuple[str, str]]]:
        return "python", [("python", "python")]

    async def render_image(self, mime: str, data: str) -> Optional[dict[str, str]]:
        """The image as MCP image content, as it is (no canvas here to downscale it in)."""
        return {"type": "image", "data": data, "mimeType": mime}

    def output_selection_record(self) -> Any:
        return None

    async def get_entry(self, path: str, *, content: bool = False) -> Optional[dict[str, Any]]:
        notebook = self.notebooks.get(path)
        if notebook is None:
            return None
        entry: dict[str, Any] = {"path": path, "name": path, "type": "notebook"}
        if content:
            entry["content"] = {"nbformat": 4, "nbformat_minor": 5, "metadata": notebook.notebook_metadata, "cells": notebook.data}
        return entry

    async def file_notebook_access(self, path: str) -> Optional[Access]:
        notebook = self.notebooks.get(path)
        return None if notebook is None else notebook.access()

    async def notebook_access(self, path: str) -> Optional[Access]:
        return await self.file_notebook_access(path)

    async def new_untitled_notebook(self, directory: str) -> str:
        raise NotImplementedError

    async def rename(self, old_path: str, new_path: str) -> None:
        raise NotImplementedError

    async def delete(self, path: str) -> None:
        raise NotImplementedError


def dialog(dialog_id: str, owner: str | None, shown: bool = True, buttons: tuple[str, ...] = ("Cancel", "Revert", "Overwrite"),
           **extra: Any) -> Dialog:
    """A "File Changed" dialog as the dialog watcher reports it; `owner` is the call that opened it (None: the human)."""
    return Dialog(dialog_id, owner, "File Changed", '"a.ipynb" has changed on disk.', list(buttons), shown, **extra)


class MemoryDialogs:
    def __init__(self) -> None:
        self.dialogs: list[Dialog] = []

    def open_dialogs(self) -> list[Dialog]:
        return list(self.dialogs)

    async def press(self, dialog_id: str, index: int) -> None:
        self.dialogs = [d for d in self.dialogs if d.id != dialog_id]


def run(coroutine: Any) -> Any:
    """A coroutine run to its end on a fresh event loop in a thread of its own (a test's own loop may be running)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def call_result(lab: Any, tool: Union[Tool, str], arguments: Any, **context: Any) -> dict[str, Any]:
    """One call of a tool (yours, or a built-in one by name) on the lab, as the page gets it: the whole result
    (payload, error flag); `context` sets the call's context (abort, calls, budget_ms)."""
    toolbox = BUILT_IN
    if isinstance(tool, Tool):
        toolbox = Toolbox()
        toolbox.add([tool])
    name = tool.name if isinstance(tool, Tool) else tool
    if toolbox.get(name) is None:
        raise KeyError(f"no tool {name}")
    result: dict[str, Any] = run(dispatch(toolbox, name, arguments, CallContext(lab, **context)))
    return result


def call(lab: Any, tool: Union[Tool, str], arguments: Any, **context: Any) -> Any:
    """One call of a tool (yours, or a built-in one by name) on the lab, as the agent gets it: the result's
    payload (an error's too)."""
    return call_result(lab, tool, arguments, **context)["structuredContent"]
