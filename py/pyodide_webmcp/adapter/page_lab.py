"""The live JupyterLab application as the port's LabPort: notebooks, files, kernels."""

from typing import TYPE_CHECKING, Any, Optional

from ..base import limits
from ..base.access_levels import Access, AccessDefaults
from ..base.errors import ErrorCode, ToolError
from ..base.shapes import SelectedOutput
from ..calls.budget import CallTable
from ..lab.snippet_outputs import SnippetLog
from ..notebook.access import (
    METADATA_KEY,
    notebook_access,
    with_cell_access,
    with_notebook_access,
)
from ..ui.agent_work import AgentWork
from .command_registry import LabCommands
from .dialogs import DialogWatcher
from .documents import DocumentCache, EditBaselines
from .ffi import js_value, to_js_data, to_js_object, to_python
from .human_edits import HumanEditRecorder
from .images import render_image
from .notebook import NotebookHandle
from .notebook_events import NotebookEvents
from .page_dom import PageDom
from .proposals import ProposalBoard
from .services import NotebookServices
from .settings import SettingsWatcher

if TYPE_CHECKING:
    from .output_selection import OutputSelectionTracker


class PageLab:
    """The lab in this page (the port's LabPort over JupyterLab's live application), as the tools need it."""

    def __init__(self, host: Any, calls: CallTable, settings: SettingsWatcher, work: AgentWork):
        self.app = host.app
        self.settings = settings
        self.classes = host.classes
        self.calls = calls
        self.page = PageDom(host)
        self.output_selection: Optional["OutputSelectionTracker"] = None  # set once the page is ready
        self.proposals = ProposalBoard(self.page)
        self.dialogs = DialogWatcher(host.classes.Dialog, calls)
        self.commands = LabCommands(host.app.commands, self.dialogs)
        self.snippet_log = SnippetLog()
        self.notebook_services = NotebookServices(
            shell=host.app.shell,
            readers=host.readers,
            cell_executor=host.cellExecutor,
            notebook_actions=host.classes.NotebookActions,
            dialogs=self.dialogs,
            cell_lists=DocumentCache(limits.MAX_CACHED_CELL_LISTS),
            cell_outputs=DocumentCache(limits.MAX_CACHED_OUTPUT_NOTEBOOKS),  # per notebook, {cell index: outputs}
            edit_baselines=EditBaselines(),
            access_defaults=lambda: self.settings.current.access,
            contents=host.docManager.services.contents,
            work=work,
            events=NotebookEvents(),
        )
        self.human_edits = HumanEditRecorder(self.notebook_services, calls)
        self._tracker = host.tracker
        self._documents = host.docManager
        self._file_browser = js_value(host.fileBrowser)
        self._contents = host.docManager.services.contents
        self._page = host.page

    @property
    def access_defaults(self) -> AccessDefaults:
        return self.settings.current.access

    @property
    def command_allowlist(self) -> tuple[str, ...]:
        return self.settings.current.command_allowlist

    # Notebooks

    def current_notebook(self) -> Optional[NotebookHandle]:
        panel = js_value(self._tracker.currentWidget)
        return NotebookHandle(self.notebook_services, panel) if panel is not None and panel.context.isReady else None

    def find_notebook(self, path: str) -> Optional[NotebookHandle]:
        """The open notebook at `path`, once JupyterLab has loaded it (a panel whose file failed to load is not one)."""
        panel = js_value(self._documents.findWidget(path, "Notebook"))
        return NotebookHandle(self.notebook_services, panel) if panel is not None and panel.context.isReady else None

    def cell_index(self, path: str, cell_id: str) -> Optional[int]:
        """Where the cell is now in the open notebook at `path` (for the human's feed), or None."""
        notebook = self.find_notebook(path)
        if notebook is None:
            return None
        return next((i for i, record in enumerate(notebook.cells()) if record.id == cell_id), None)

    def open_notebooks(self) -> list[NotebookHandle]:
        """Every notebook open in the lab, once loaded."""
        panels: list[Any] = []
        listen = self.page.listeners()
        try:
            self._tracker.forEach(listen(lambda panel, *_: panels.append(panel)))
        finally:
            listen.release()
        return [NotebookHandle(self.notebook_services, panel) for panel in panels if panel.context.isReady]

    async def open_notebook(self, path: str, *, activate: bool, kernel: Optional[str] = None) -> NotebookHandle:
        if not self._page.opensNotebooks and js_value(self._documents.findWidget(path, "Notebook")) is None:
            raise self._not_in_this_page(path)
        kernel_arg = to_js_object({"name": kernel}) if kernel else None
        panel = js_value(
            self._documents.openOrReveal(path, "Notebook", kernel_arg, to_js_object({"activate": activate}))
        )
        if panel is None:
            raise ToolError(ErrorCode.LAB_ERROR, f"JupyterLab could not open {path}.", path=path)
        await self.dialogs.wait(panel.context.ready, "opened the notebook")
        # A notebook without a kernelspec makes JupyterLab ask which kernel to start: a dialog of this call.
        await self.dialogs.wait(panel.sessionContext.ready, "started its kernel", limits.SESSION_READY_WAIT_MS, required=False)
        return NotebookHandle(self.notebook_services, panel)

    async def render_image(self, mime: str, data: str) -> Optional[dict[str, str]]:
        return await render_image(mime, data)

    def _not_in_this_page(self, path: str) -> ToolError:
        """The Notebook app shows one notebook per page and opens others in a new browser tab, out of this
        page's reach (a call waiting there would never return): say where the notebook can be reached."""
        url, lab_url = str(self._page.notebookUrl(path)), str(self._page.labUrl(path))
        return ToolError(
            ErrorCode.NOTEBOOK_NOT_IN_THIS_PAGE,
            f'"{path}" exists but is not open in this page, which shows one notebook; opening it would start a new '
            f"browser tab that this page's tools cannot reach. Open {url} (its page serves the same tools for "
            f"that notebook) or the lab, {lab_url}, whose tools reach every notebook.",
            path=path,
            url=url,
            labUrl=lab_url,
        )

    def output_selection_record(self) -> Optional[SelectedOutput]:
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
        """The access stored in a notebook file, or None when there is no notebook JupyterLab can read there."""
        entry = await self.get_entry(path, content=True)
        content = entry.get("content") if entry is not None and entry.get("type") == "notebook" else None
        return notebook_access(content.get("metadata"), self.access_defaults.notebook) if isinstance(content, dict) else None

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
        if cells is not None:
            for cell in content.get("cells") or []:
                metadata = cell.setdefault("metadata", {})
                metadata[METADATA_KEY] = with_cell_access(metadata, cells)
        await self._contents.save(path, to_js_data({"type": "notebook", "format": "json", "content": content}))

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
