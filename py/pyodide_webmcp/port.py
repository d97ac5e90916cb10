"""The port between the tools and the live lab: everything a tool may ask of JupyterLab, declared once.

`adapter/` implements it over Pyodide's FFI; unit tests may implement it in
memory. Like pyodide's `_core_docs`, this module only declares: importing it
touches no JavaScript. The values crossing it (`CellRecord`, `CellList`, `EditorState`, the run outcomes) are
declared here too.
"""

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Literal, Optional, Protocol, Sequence, Union

from .base.access_levels import Access, AccessDefaults
from .base.hashing import revision, source_hash
from .base.shapes import (
    CellType,
    DiffKind,
    KernelInfo,
    OptInReview,
    Outcome,
    ReviewedAction,
    SelectedOutput,
)
from .lab.kernels import KernelLoss
from .lab.snippet_outputs import SnippetLog, SnippetOutputs

Reply = Literal["ok", "error"]
"""The kernel's answer to an execution: ok, or anything else."""
ExecutionOutcome = Literal[Reply, KernelLoss, "dropped"]
"""How one execution ended, watched on its kernel: its reply, the kernel lost, or `dropped` (never answered:
JupyterLite cancels the executions queued behind one that failed)."""
RunOutcome = Literal[ExecutionOutcome, "gone"]
"""How a run of a code cell ended, as the human's Run does it; `gone`: the cell's view went away mid-run."""
NOTEBOOK_END = ""
"""Where a proposal sits when no cell the agent may see marks its place (an insert into an empty notebook, or
one whose cells are all hidden): at the notebook's end. Used as the cell id of the review box."""


SaveOutcome = tuple[Literal["saved", "reverted"], Optional[str]]


@dataclass(frozen=True)
class CellRecord:
    """The minimum the adapter reports for every cell of a notebook."""

    id: str
    type: str
    source: str
    access: Access = "write"

    @property
    def hidden(self) -> bool:
        return self.access == "none"

    @property
    def source_hash(self) -> str:
        return source_hash(self.source)


class CellList(tuple[CellRecord, ...]):
    """A notebook's cell records at one moment, with what is derived from all of them computed once.

    The adapter keeps one per unchanged notebook, so repeated reads of a large notebook cost nothing.
    """

    @cached_property
    def revision(self) -> str:
        return revision((cell.id, cell.type, cell.source_hash) for cell in self if not cell.hidden)

    @cached_property
    def hidden_ids(self) -> frozenset[str]:
        return frozenset(cell.id for cell in self if cell.hidden)


def cell_list(cells: Sequence[CellRecord]) -> CellList:
    return cells if isinstance(cells, CellList) else CellList(cells)


@dataclass(frozen=True)
class EditorState:
    """Raw editor coordinates of the active cell, UTF-16 columns as the browser reports."""

    cursor: tuple[int, int]
    selection_start: tuple[int, int]
    selection_end: tuple[int, int]


EditorSelection = tuple[tuple[int, int], tuple[int, int]]
"""((line, UTF-16 column), (line, UTF-16 column)) of an editor range."""


class AbortState(Protocol):
    """A call's abort signal as tools see it."""

    @property
    def aborted(self) -> bool: ...

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` when the call is aborted; returns a function that cancels that."""


class NotebookReader(Protocol):
    """What reading a notebook needs: an open one, or one read from its file (`filenotebook`)."""

    @property
    def path(self) -> str: ...

    @property
    def dirty(self) -> bool: ...

    def access(self) -> Access: ...

    def cells(self) -> CellList:
        """Every cell as it is now (id, type, source, access)."""

    def cell_json(self, index: int) -> dict[str, Any]: ...

    def cell_outputs(self, index: int) -> list[dict[str, Any]]:
        """A cell's outputs as nbformat JSON; the same objects while the notebook is unchanged: never change them."""

    def cells_json(self, indexes: list[int]) -> list[dict[str, Any]]: ...

    def active_index(self) -> Optional[int]: ...

    def selected_indexes(self) -> list[int]: ...

    def editor_state(self) -> Optional[EditorState]: ...

    def review_entry(self) -> Any:
        """The stored review entry, as JSON data (None when there is none)."""


class NotebookPort(NotebookReader, Protocol):
    """One open notebook: its live model, view, kernel and stored review threads."""

    def closed(self) -> bool:
        """Whether the human (or anything else) closed it since it was resolved: nothing else may be asked."""

    # Kernel

    def kernel(self) -> KernelInfo: ...

    async def has_kernel(self) -> bool:
        """Whether a kernel is attached, once the session is ready (bounded: a dialog may be asking)."""

    async def execute_code(self, index: int, cell_id: str) -> Optional[RunOutcome]:
        """Run one code cell as the human's Run does; None if its view is gone before it starts."""

    def waits_for_input(self) -> bool:
        """A cell of this notebook waits for the human's answer to input()."""

    def interrupt_kernel(self) -> None:
        """Send an interrupt without waiting."""

    async def interrupt_kernel_now(self) -> bool:
        """Send an interrupt and wait (bounded) until the kernel applied it."""

    async def restart_kernel(self) -> None: ...

    async def start_kernel(self, name: Optional[str]) -> None:
        """Attach a new kernel of that name (when none is attached); None: the lab knows of no kernel to name."""

    async def run_snippet(self, code: str, outputs: SnippetOutputs) -> ExecutionOutcome:
        """Run code in the notebook's kernel without a cell, collecting outputs."""

    # Writes: each synchronous, so a guard checked just before cannot be raced

    def insert_cells(self, index: int, cells: list[tuple[CellType, str]]) -> list[str]:
        """Insert (type, source) cells at `index`, in order, in one change; their new ids."""

    def transact(self, change: Callable[[], None]) -> None:
        """Run `change` as one change of the document (one undo step for the human)."""

    def set_source(self, index: int, source: str) -> None: ...

    def delete_cell(self, index: int) -> None: ...

    def move_cell(self, from_index: int, to_index: int) -> None:
        """Move a cell so that it ends up at `to_index`."""

    def set_cell_type(self, index: int, cell_type: CellType) -> None:
        """Change a cell's type, keeping its id, source and metadata."""

    def clear_outputs(self, index: int) -> None:
        """Remove a code cell's outputs and execution count."""

    def cell_entry(self, cell_id: str) -> Any:
        """The bridge's entry in the cell's metadata as JSON data: {} when it has none, None when there is no such
        cell (a damaged entry comes back as it is stored)."""

    def set_cell_entry(self, cell_id: str, entry: dict[str, Any]) -> None:
        """Store the bridge's entry in the cell's metadata (its provenance trail: the human-edit baseline settles)."""

    def set_review_entry(self, entry: dict[str, Any]) -> None: ...

    async def save(self) -> SaveOutcome:
        """Save the live notebook: ("saved", None), or ("reverted", where the live version was kept or None) when
        the human or agent chose Revert in File Changed."""

    # View

    def activate(self) -> None: ...

    def activate_cell(self, index: int, *, render_markdown: bool) -> None: ...

    def render_markdown(self, index: int) -> None: ...

    async def reveal_cell(self, index: int) -> None: ...

    async def focus_cell(self, index: int, selection: Optional[EditorSelection]) -> None: ...

    # What Propose mode needs of the notebook it shows a proposal in

    def keep_below_cell(self, cell_id: str, node: Any) -> Callable[[], None]:
        """Show a page element under the cell (NOTEBOOK_END: at the notebook's end), following it as it moves;
        returns a function that stops."""

    def watch_proposal(self, cell_id: str, deny: Callable[[str], None]) -> Callable[[], None]:
        """Call `deny(reason)` if the cell is deleted or hidden, the notebook closed, renamed or moved; returns a
        function that stops watching."""


class ProposalsPort(Protocol):
    """Propose mode: the human's switch and the proposals waiting for them."""

    enabled: bool  # set by the human only
    reviewed_actions: set[OptInReview]  # as the human chose

    def reviews(self, action: ReviewedAction) -> bool: ...

    def pending_id(self, path: str, cell_id: str) -> Optional[str]: ...

    async def decide(
        self,
        notebook: NotebookPort,
        cell_id: str,
        title: str,
        preview: list[tuple[DiffKind, str]],
        abort: AbortState,
    ) -> tuple[Outcome, Optional[str], str]:
        """Show a proposal and wait: (accepted|denied, reason, proposal id); raises ABORTED."""


@dataclass
class Dialog:
    """One open dialog, read from the page."""

    id: str
    owner: Optional[str]  # the id of the call it belongs to; None for the human's
    title: str
    body: str
    buttons: list[str]
    shown: bool
    input: Union[str, bool, None] = None  # the first field's value; never a password's
    password: bool = False
    answered: list[str] = field(default_factory=list)

    @property
    def error(self) -> bool:
        """A dialog that only reports something (one button), such as "File Load Error"."""
        return len(self.buttons) <= 1


class DialogsPort(Protocol):
    """JupyterLab's open dialogs, each the human's or an agent call's."""

    def open_dialogs(self) -> list[Dialog]: ...

    async def press(self, dialog_id: str, index: int) -> None:
        """Press a shown dialog's button as the human would; INVALID_ARGUMENT if it did not close."""


@dataclass(frozen=True)
class CommandInfo:
    """A JupyterLab command as the agent may see it."""

    label: str
    caption: str
    enabled: bool


class CommandsPort(Protocol):
    """JupyterLab's commands, run as the human would run them."""

    def info(self, command_id: str, args: dict[str, Any]) -> Optional[CommandInfo]:
        """The command as JupyterLab describes it, or None when there is no such command."""

    async def args_schema(self, command_id: str) -> Optional[dict[str, Any]]:
        """The JSON Schema the command declares for its arguments, if any."""

    async def execute(self, command_id: str, args: dict[str, Any]) -> Any:
        """Run the command (its dialogs belong to the call); its result as JSON data."""


class LabPort(Protocol):
    """The lab: notebooks, the workspace's files and kernels, dialogs."""

    @property
    def proposals(self) -> ProposalsPort: ...

    @property
    def dialogs(self) -> DialogsPort: ...

    @property
    def commands(self) -> CommandsPort: ...

    @property
    def snippet_log(self) -> SnippetLog:
        """What the human sees of the agent's snippets."""

    @property
    def access_defaults(self) -> AccessDefaults:
        """Access of notebooks and cells without their own setting (the owner's settings)."""

    @property
    def command_allowlist(self) -> tuple[str, ...]:
        """The commands the owner lets agents run (the settings)."""

    def current_notebook(self) -> Optional[NotebookPort]: ...

    def find_notebook(self, path: str) -> Optional[NotebookPort]: ...

    async def open_notebook(self, path: str, *, activate: bool, kernel: Optional[str] = None) -> NotebookPort: ...

    def open_documents(self) -> list[tuple[str, Access]]:
        """(path, access) of every open document."""

    def current_directory(self) -> str: ...

    def kernel_specs(self) -> tuple[Optional[str], list[tuple[str, str]]]:
        """The default kernel name and (name, language) of every kernel."""

    def output_selection_record(self) -> Optional[SelectedOutput]: ...

    async def render_image(self, mime: str, data: str) -> Optional[dict[str, str]]:
        """An output image as MCP image content, downscaled to the image budget; None when it cannot be."""

    # Files

    async def get_entry(self, path: str, *, content: bool = False) -> Optional[dict[str, Any]]: ...

    async def file_notebook_access(self, path: str) -> Optional[Access]:
        """The access stored in a notebook's file; None when there is no notebook JupyterLab can read there."""

    async def notebook_access(self, path: str) -> Optional[Access]:
        """Live access of an open notebook, else what its file says."""

    async def new_untitled_notebook(self, directory: str) -> str: ...

    async def rename(self, old_path: str, new_path: str) -> None: ...

    async def delete(self, path: str) -> None: ...
