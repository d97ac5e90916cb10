"""The tool kit: everything a tool is written with, built-in or a site's own, behind one import.

    from pyodide_webmcp.kit import Arguments, CallContext, tool

A tool is one typed async function and the `tool` decorator: its docstring is its description, its
argument model (an `Arguments` subclass) its input schema, its return annotation its result. Notebooks
are read and written through the kit (`read_cells`, `replace_cell_source`), so the owner's access
rules apply: a hidden cell is not there, a read-only one refuses writes, and in Propose mode the human
reviews an edit before it applies.

What else the built-in tools are written with, each held once: in the kit's own modules (`arguments`,
`paging`, `notebooks`, `views`, `propose_mode`, `same_origin`, `guarded_write`, `source_edits`,
`visible_cells`), or in the pure modules below the kit, which never import it:

- arguments: `Arguments` and the arguments several tools share (`NotebookPath`, `CellId`,
  `ExpectedSourceHash`, `Offset`...), the bounds of a text or list argument;
- errors: `ErrorCode` (each code with what it means and how to recover), `ToolError`, the errors every
  notebook read or write may raise (`READ_ERRORS`, `WRITE_ERRORS`);
- bounds: `limits`, every numeric bound, named once;
- results: the result types, each field described on the field itself (`NotebookInfo`, `CellSnapshot`,
  `KernelInfo`...; a field several results share is described once, `CellIdField`...), the pages of a
  listing, the envelope's image content;
- notebooks: the notebook a call names, found with access applied (`resolve_notebook`,
  `read_notebook`, `find_cell`), and the cells and notebook as agents see them (`cell_snapshot`,
  `info_of`, `focus_of`);
- the guarded write: `reviewed_write` with its `Plan` (hash check, Propose mode, provenance), and the
  one guarded source write (`SourceEdit`, `write_sources`);
- bounded text and outputs, positions in a source, workspace paths, provenance, review threads,
  kernels and snippets, pending calls and dialogs.
"""

from .. import limits
from ..access import (
    Intent,
    VisibleAccess,
    cell_not_found,
    guard_cell,
    notebook_access,
    notebook_not_found,
)
from ..call_budget import Answered, CallSummary, unknown_call, wait_for
from ..dialog_views import DialogView, choose_button, choose_dialog, dialog_view
from ..envelope import Delivered, WithImages, failure, success
from ..errors import ErrorCode, ToolError
from ..fields import (
    CellCountField,
    CellIdField,
    ColumnField,
    DirtyField,
    EnameField,
    EvalueField,
    HiddenCellCountField,
    LineField,
    MessageField,
    NameField,
    NotebookPathField,
    OmittedCountField,
    OutputIndexField,
    OutputsTruncatedField,
    PositionIndexField,
    ThreadIdField,
    TracebackField,
    TruncatedField,
)
from ..kernels import KERNEL_LOSSES, KernelLoss, match_kernel
from ..outputs import joined, serialize_output, serialize_outputs
from ..paths import NOTEBOOK_SUFFIX, is_notebook_path, join_path, normalize_path
from ..port import NOTEBOOK_END
from ..positions import editor_coordinates, editor_range, strict_offset
from ..provenance import HistoryEntry, history_of, iso_now
from ..registry import CallContext, tool
from ..review_threads import (
    AGENT_AUTHOR,
    AnchorKind,
    AnchorStatus,
    ChangedThread,
    ReviewStore,
    StoredThread,
    Thread,
    ThreadStatus,
    ThreadSummary,
    anchor_status,
    cell_anchor,
    output_anchor,
    output_fingerprint,
    public_thread,
    range_anchor,
    thread_counts,
    thread_summary,
)
from ..schema import (
    Arguments,
    NoArguments,
    PositionArgument,
    SelectionArgument,
    list_bound,
    require_max_bytes,
    text_bound,
)
from ..shapes import (
    CELL_TYPES,
    CellRef,
    CellSnapshot,
    CellType,
    DiffKind,
    FocusContext,
    KernelInfo,
    KernelStatus,
    NotebookField,
    NotebookInfo,
    Outcome,
    OutputSelection,
    OutputSnapshot,
    Placement,
    Position,
    ProposalOutcome,
    ReviewCounts,
    is_cell_type,
)
from ..snippet_outputs import SnippetOutputs, SnippetStatus
from ..text import (
    clamp_chars,
    clamp_utf8,
    json_object,
    json_size,
    one_line,
    strip_ansi,
    utf8_len,
)
from .arguments import (
    CellId,
    CellSource,
    ExpectedSourceHash,
    NotebookPath,
    Offset,
    OverwriteUnread,
    ThreadId,
)
from .guarded_write import Plan, check_source, reviewed_write
from .notebooks import (
    READ_ERRORS,
    WRITE_ERRORS,
    active_cell,
    anchored_cell,
    find_cell,
    focus_of,
    info_of,
    live_cell,
    no_active_notebook,
    read_notebook,
    resolve_notebook,
    review_counts,
    review_store,
)
from .paging import OffsetPage, RangePage, fit_listing, offset_page, range_page
from .propose_mode import diff_lines
from .same_origin import require_same_origin
from .source_edits import (
    STALE_SOURCE,
    CellResult,
    CellsResult,
    SourceEdit,
    write_sources,
    written,
    written_refs,
)
from .views import cell_ref, cell_snapshot
from .visible_cells import Cell, read_cells, replace_cell_source

__all__ = [
    "AGENT_AUTHOR",
    "AnchorKind",
    "AnchorStatus",
    "Answered",
    "Arguments",
    "CELL_TYPES",
    "CallContext",
    "CallSummary",
    "Cell",
    "CellCountField",
    "CellId",
    "CellIdField",
    "CellRef",
    "CellResult",
    "CellSnapshot",
    "CellSource",
    "CellType",
    "CellsResult",
    "ChangedThread",
    "ColumnField",
    "Delivered",
    "DialogView",
    "DiffKind",
    "DirtyField",
    "EnameField",
    "ErrorCode",
    "EvalueField",
    "ExpectedSourceHash",
    "FocusContext",
    "HiddenCellCountField",
    "HistoryEntry",
    "Intent",
    "KERNEL_LOSSES",
    "KernelInfo",
    "KernelLoss",
    "KernelStatus",
    "LineField",
    "MessageField",
    "NOTEBOOK_END",
    "NOTEBOOK_SUFFIX",
    "NameField",
    "NoArguments",
    "NotebookField",
    "NotebookInfo",
    "NotebookPath",
    "NotebookPathField",
    "Offset",
    "OffsetPage",
    "OmittedCountField",
    "Outcome",
    "OutputIndexField",
    "OutputSelection",
    "OutputSnapshot",
    "OutputsTruncatedField",
    "OverwriteUnread",
    "Placement",
    "Plan",
    "Position",
    "PositionArgument",
    "PositionIndexField",
    "ProposalOutcome",
    "READ_ERRORS",
    "RangePage",
    "ReviewCounts",
    "ReviewStore",
    "STALE_SOURCE",
    "SelectionArgument",
    "SnippetOutputs",
    "SnippetStatus",
    "SourceEdit",
    "StoredThread",
    "Thread",
    "ThreadId",
    "ThreadIdField",
    "ThreadStatus",
    "ThreadSummary",
    "ToolError",
    "TracebackField",
    "TruncatedField",
    "VisibleAccess",
    "WRITE_ERRORS",
    "WithImages",
    "active_cell",
    "anchor_status",
    "anchored_cell",
    "cell_anchor",
    "cell_not_found",
    "cell_ref",
    "cell_snapshot",
    "check_source",
    "choose_button",
    "choose_dialog",
    "clamp_chars",
    "clamp_utf8",
    "dialog_view",
    "diff_lines",
    "editor_coordinates",
    "editor_range",
    "failure",
    "find_cell",
    "fit_listing",
    "focus_of",
    "guard_cell",
    "history_of",
    "info_of",
    "is_cell_type",
    "is_notebook_path",
    "iso_now",
    "join_path",
    "joined",
    "json_object",
    "json_size",
    "limits",
    "list_bound",
    "live_cell",
    "match_kernel",
    "no_active_notebook",
    "normalize_path",
    "notebook_access",
    "notebook_not_found",
    "offset_page",
    "one_line",
    "output_anchor",
    "output_fingerprint",
    "public_thread",
    "range_anchor",
    "range_page",
    "read_cells",
    "read_notebook",
    "replace_cell_source",
    "require_max_bytes",
    "require_same_origin",
    "resolve_notebook",
    "review_counts",
    "review_store",
    "reviewed_write",
    "serialize_output",
    "serialize_outputs",
    "strict_offset",
    "strip_ansi",
    "success",
    "text_bound",
    "thread_counts",
    "thread_summary",
    "tool",
    "unknown_call",
    "utf8_len",
    "wait_for",
    "write_sources",
    "written",
    "written_refs",
]
