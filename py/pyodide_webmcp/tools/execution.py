"""Running cells on the kernel the human shares, and kernel interrupt / restart."""

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.fields import (
    STATUS_MEANING,
    CellIdField,
    EnameField,
    EvalueField,
    MessageField,
    NotebookPathField,
    PositionIndexField,
    TracebackField,
)
from ..base.shapes import (
    DiffKind,
    KernelInfo,
    KernelStatus,
    NotebookField,
    ProposalOutcome,
)
from ..calls.current import CallContext
from ..calls.schema import Arguments, list_bound
from ..calls.tool import tool
from ..lab.kernels import KERNEL_LOSSES, KernelLoss, match_kernel, no_kernel
from ..notebook.access import notebook_not_found
from ..notebook.arguments import NotebookPath
from ..notebook.guarded_write import Plan, reviewed_write
from ..notebook.provenance import record_history
from ..notebook.resolve import (
    WRITE_ERRORS,
    active_cell,
    info_of,
    no_active_notebook,
    resolve_notebook,
)
from ..notebook.runs import (
    ErrorDetails,
    Target,
    add_error_details,
    error_details,
    needs_kernel,
    select_targets,
    summarize_outputs,
)
from ..port import CellRecord, NotebookPort


class RunCellsArguments(Arguments):
    notebookPath: NotebookPath = None
    cellIds: list[str] | None = Field(
        None, description="Cells to run, in this order.", json_schema_extra=list_bound(limits.MAX_CELL_IDS_PER_CALL)
    )
    startIndex: int | None = Field(None, ge=0, description="First cell of a range; needs endIndex.")
    endIndex: int | None = Field(None, ge=0, description="Exclusive; at most 100 cells from startIndex.")
    stopOnError: bool = Field(True, description="Skip the rest after a cell fails.")


class CellRunResult(TypedDict):
    cellId: CellIdField
    index: PositionIndexField
    status: Annotated[Literal["ok", "error", "abort", "no-op"], Field(description=(
        "ok, error, abort (not run: the call was aborted) or no-op (not executable, or skipped)."))]
    executionCount: NotRequired[Annotated[int | None, Field(description=(
        "The kernel's execution count of the last run (absent or null: not run)."))]]
    outputSummary: Annotated[str, Field(description="One line saying what the run produced (bounded).")]
    ename: NotRequired[EnameField]
    evalue: NotRequired[EvalueField]
    traceback: NotRequired[TracebackField]


RunStatus = Literal["ok", "error", "aborted"]


class RunCellsResult(ProposalOutcome):
    status: Annotated[Literal[RunStatus, "denied"], Field(description=STATUS_MEANING)]
    notebook: NotRequired[NotebookField]
    results: NotRequired[Annotated[list[CellRunResult], Field(description="One result per target cell, in run order.")]]


def _skipped(index: int, cell_id: str, why: str) -> CellRunResult:
    return {"cellId": cell_id, "index": index, "status": "no-op", "outputSummary": why}


GONE = "The cell no longer exists; it was not run."
VIEW_GONE = "The cell's view went away while it ran (deleted, or its notebook closed); it may not have run to its end."
WAITING_FOR_INPUT = (
    "Not run: a cell of this notebook waits for the human to answer its input() prompt (the box under it), "
    "and the kernel runs nothing else until they do. Ask the human to answer it, or restart the kernel."
)
DROPPED: ErrorDetails = {
    "ename": "ExecutionCancelled",
    "evalue": "The kernel dropped this execution: a cell queued before it failed, and JupyterLite cancels "
    "the executions waiting behind a failure. Run it again.",
    "traceback": "",
}
STATE_GONE = "; its state is gone and the cells after it did not run. Run the cells again once the kernel is idle."
Stop = Literal[KernelLoss, "closed"]
"""Why a run stops under a cell: the kernel died or restarted, or the notebook was closed."""
KERNEL_LOST: dict[Stop, tuple[ErrorCode, str]] = {
    "died": (ErrorCode.KERNEL_DIED, "The kernel died while cell {cell} ran" + STATE_GONE),
    "restarted": (ErrorCode.KERNEL_RESTARTED, "The kernel restarted while cell {cell} ran" + STATE_GONE),
    "closed": (
        ErrorCode.NOTEBOOK_NOT_FOUND,
        "The notebook was closed while cell {cell} ran; the cells after it did not run. "
        "Open it again (jupyter_open_notebook) to see its outputs.",
    ),
}


class KernelLost(Exception):
    """The kernel died or restarted under a running cell: the run stops."""

    def __init__(self, outcome: Stop, cell_id: str):
        super().__init__(outcome)
        self.outcome = outcome
        self.cell_id = cell_id


def _locate(notebook: NotebookPort, target: Target) -> tuple[int, CellRecord | None]:
    """The target's current index and record; (-1, None) once deleted or hidden."""
    for index, record in enumerate(notebook.cells()):
        if record.id == target.cell_id:
            return (-1, None) if record.hidden else (index, record)
    return -1, None


def _guard_notebook_still(notebook: NotebookPort, args: RunCellsArguments, results: list[CellRunResult]) -> bool:
    """Re-check the notebook mid-call: False when it became read-only; hidden or closed fails the call."""
    if notebook.closed():
        raise ToolError(
            ErrorCode.NOTEBOOK_NOT_FOUND,
            "The notebook was closed during the call; the cells after that did not run. "
            "Open it again (jupyter_open_notebook) to see its outputs.",
            results=results,
        )
    access = notebook.access()
    if access == "none":
        raise no_active_notebook() if args.notebookPath is None else notebook_not_found(notebook.path)
    return access == "write"


async def _run_one(notebook: NotebookPort, target: Target, ctx: CallContext) -> CellRunResult:
    index, record = _locate(notebook, target)
    if record is None:
        return _skipped(-1, target.reported_id, GONE)
    if record.access != "write":
        return _skipped(index, record.id, "The owner made the cell read-only; it was not run.")
    if record.type == "markdown":
        notebook.render_markdown(index)
        return _skipped(index, record.id, "Markdown cell rendered; nothing to execute.")
    if record.type != "code":
        return _skipped(index, record.id, f"{record.type.capitalize()} cells are not executed.")
    if not record.source.strip():
        return _skipped(index, record.id, "Empty code cell; nothing to execute.")
    if notebook.waits_for_input():
        return _skipped(index, record.id, WAITING_FOR_INPUT)
    # An abort while this call's own execution is in flight interrupts the kernel.
    stop_listening = ctx.abort.on_abort(notebook.interrupt_kernel)
    try:
        status = await notebook.execute_code(index, record.id)
    finally:
        stop_listening()
    if status is None:
        return _skipped(-1, target.reported_id, "The cell's view changed under the run; it was not run.")
    if notebook.closed():
        raise KernelLost("closed", record.id)
    if status == "gone":
        index, record = _locate(notebook, target)
        return _skipped(index, record.id if record else target.reported_id, VIEW_GONE)
    if status in KERNEL_LOSSES:
        raise KernelLost(status, record.id)
    index, record = _locate(notebook, target)
    if record is None:  # deleted or hidden while it ran: reported like a vanished target
        return _skipped(-1, target.reported_id, GONE)
    record_history(notebook, record.id, "agent", "ran", ctx.tool)
    cell = notebook.cell_json(index)
    outputs = list(cell.get("outputs") or [])
    result: CellRunResult = {
        "cellId": record.id,
        "index": index,
        "status": "ok" if status == "ok" else "error",
        "executionCount": cell.get("execution_count"),
        "outputSummary": summarize_outputs(outputs),
    }
    if status == "dropped":
        add_error_details(result, DROPPED)
        result["outputSummary"] = f"{DROPPED['ename']}: {DROPPED['evalue']}"
    elif result["status"] == "error":
        add_error_details(result, error_details(outputs))
    return result


@tool(
    "jupyter_run_cells",
    "Run notebook cells", read_only=False, destructive=True, idempotent=False, consequential=True, reviewed=True,
    errors=(*WRITE_ERRORS, ErrorCode.CELL_NOT_FOUND, ErrorCode.CELL_ACCESS_DENIED, ErrorCode.KERNEL_UNAVAILABLE, ErrorCode.KERNEL_DIED, ErrorCode.KERNEL_RESTARTED, ErrorCode.PROPOSAL_ALREADY_PENDING),
)
async def run_cells(args: RunCellsArguments, ctx: CallContext) -> RunCellsResult:
    """Run existing cells (cellIds, a startIndex-endIndex range, else the active cell) on the kernel the human shares; returns per cell its status, executionCount and outputSummary (outputs in one line).

    Errors come back per cell; no kernel: error KERNEL_UNAVAILABLE, use jupyter_start_kernel. Past 20 s it
    returns status pending, for jupyter_wait_for_result.
    """

    def plan(notebook: NotebookPort) -> Plan[RunCellsResult]:
        records = notebook.cells()
        targets = select_targets(
            records, active_cell(notebook, records), args.cellIds, args.startIndex, args.endIndex, notebook.path
        )
        positions = {record.id: (index, record) for index, record in enumerate(records)}
        preview: list[tuple[DiffKind, str]] = [
            ("same", f"cell {positions[t.cell_id][0] + 1}: {positions[t.cell_id][1].source.split(chr(10))[0]}")
            for t in targets
        ]
        cells = "this cell" if len(targets) == 1 else f"{len(targets)} cells, starting here"
        title = f"The agent proposes running {cells}:"
        return Plan(targets[0].cell_id, title, lambda: preview, lambda: _run(notebook, targets, args, ctx))

    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    records = notebook.cells()
    wanted = {t.cell_id for t in select_targets(records, active_cell(notebook, records), args.cellIds,
                                                 args.startIndex, args.endIndex, notebook.path)}
    if any(needs_kernel(record) for record in records if record.id in wanted) and not await notebook.has_kernel():
        raise no_kernel(notebook.path)
    return await reviewed_write(ctx, args.notebookPath, "run", plan)


async def _run(
    notebook: NotebookPort, targets: list[Target], args: RunCellsArguments, ctx: CallContext
) -> RunCellsResult:
    results: list[CellRunResult] = []
    for target in targets:
        if ctx.abort.aborted:
            index, record = _locate(notebook, target)
            cell_id = record.id if record is not None else target.reported_id
            results.append(
                {"cellId": cell_id, "index": index, "status": "abort", "outputSummary": "Not run: the call was aborted."}
            )
            continue
        if not _guard_notebook_still(notebook, args, results):
            index, record = _locate(notebook, target)
            cell_id = record.id if record is not None else target.reported_id
            results.append(_skipped(index, cell_id, "The owner made the notebook read-only; it was not run."))
            continue
        ctx.wait_on(notebook, kind="kernel", cellId=target.cell_id, done=len(results), total=len(targets))
        try:
            result = await _run_one(notebook, target, ctx)
        except KernelLost as lost:
            code, message = KERNEL_LOST[lost.outcome]
            raise ToolError(
                code,
                message.format(cell=lost.cell_id),
                cellId=lost.cell_id,
                results=results,
            ) from None
        results.append(result)
        if result["status"] == "error" and args.stopOnError and not ctx.abort.aborted:
            break
    _guard_notebook_still(notebook, args, results)
    status: RunStatus
    if ctx.abort.aborted:
        status = "aborted"
    else:
        status = "error" if any(result["status"] == "error" for result in results) else "ok"
    return {"status": status, "notebook": info_of(notebook), "results": results}


KernelAction = Literal["interrupt", "restart"]


class KernelActionArguments(Arguments):
    notebookPath: NotebookPath = None
    action: KernelAction


class KernelActionResult(TypedDict):
    action: Annotated[KernelAction, Field(description=(
        "What: inserted, edited, ran or deleted (for kernel actions: the action performed)."))]
    notebookPath: NotebookPathField
    kernel: Annotated[KernelInfo, Field(description="The notebook's kernel, or null when no notebook is current.")]
    message: MessageField
    interruptSent: NotRequired[Annotated[bool, Field(description=(
        "Whether an interrupt was sent (never while nothing runs or the kernel is starting)."))]]


NOT_RUNNING: dict[KernelStatus, str] = {
    "idle": "Nothing was running, so no interrupt was sent.",
    "starting": "The kernel is still starting and runs nothing yet, so no interrupt was sent.",
    "unknown": "The kernel is still starting and runs nothing yet, so no interrupt was sent.",
    "dead": "The kernel is dead, so no interrupt was sent; restart it.",
}
INTERRUPTED = (
    "Interrupt applied: executions waiting in the kernel's queue are cancelled (they end with "
    '"Kernel Interrupt"). The Pyodide kernel cannot stop code that is already running: it finishes '
    "on its own, or restart the kernel to stop it."
)
RESTARTED = (
    "Kernel restarted: all in-memory state (variables, imports, definitions) is lost; rerun cells to rebuild it."
)


@tool(
    "jupyter_kernel_action",
    "Interrupt or restart the kernel", read_only=False, destructive=True, idempotent=False, consequential=True,
    untrusted_content=False,
    errors=(*WRITE_ERRORS, ErrorCode.KERNEL_UNAVAILABLE, ErrorCode.LAB_ERROR),
)
async def kernel_action(args: KernelActionArguments, ctx: CallContext) -> KernelActionResult:
    """Interrupt or restart a notebook's kernel, which the human shares; returns its status and what was done.

    interrupt cancels queued runs only: Pyodide cannot stop running code.
    restart discards every variable: ask the human first. With no kernel, use
    jupyter_start_kernel.
    """
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    if not await notebook.has_kernel():
        raise no_kernel(notebook.path)
    if args.action == "restart":
        await notebook.restart_kernel()
        return {"action": args.action, "notebookPath": notebook.path, "message": RESTARTED, "kernel": notebook.kernel()}
    status = notebook.kernel()["status"]
    if status in NOT_RUNNING:
        # Sent while the kernel starts, JupyterLite applies it once it is up: to the next run.
        message, sent = NOT_RUNNING[status], False
    elif await notebook.interrupt_kernel_now():
        message, sent = INTERRUPTED, True
    else:
        message, sent = "Interrupt sent; the kernel has not confirmed it yet.", True
    return {
        "action": args.action,
        "notebookPath": notebook.path,
        "message": message,
        "interruptSent": sent,
        "kernel": notebook.kernel(),
    }


class StartKernelArguments(Arguments):
    notebookPath: NotebookPath = None
    kernelName: str | None = Field(None, description="Kernel name or language; default: the lab's default.")


class StartKernelResult(TypedDict):
    notebookPath: NotebookPathField
    kernel: Annotated[KernelInfo, Field(description="The notebook's kernel, or null when no notebook is current.")]
    message: MessageField


@tool(
    "jupyter_start_kernel",
    "Start a kernel", read_only=False, destructive=False, idempotent=True, untrusted_content=False,
    errors=(*WRITE_ERRORS, ErrorCode.LAB_ERROR),
)
async def start_kernel(args: StartKernelArguments, ctx: CallContext) -> StartKernelResult:
    """Start a kernel for a notebook that has none; returns the kernel's status.

    Use it when a run fails with error KERNEL_UNAVAILABLE; a no-op when one is
    attached. To interrupt or restart it: jupyter_kernel_action.
    """
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    if await notebook.has_kernel():
        message = "A kernel is already attached; nothing was started."
    else:
        default, specs = ctx.lab.kernel_specs()
        name = match_kernel(args.kernelName, specs) or default
        await notebook.start_kernel(name)
        message = f'Started the "{name}" kernel; it is ready when its status is idle.'
    return {"notebookPath": notebook.path, "kernel": notebook.kernel(), "message": message}
