"""The opt-in power tool that runs a code snippet in a notebook's kernel, always in the human's view."""

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..base import limits
from ..base.clock import iso_now
from ..base.errors import ErrorCode, ToolError
from ..base.fields import (
    STATUS_MEANING,
    EnameField,
    EvalueField,
    NotebookPathField,
    OutputsTruncatedField,
    TracebackField,
)
from ..base.shapes import OutputSnapshot
from ..calls.current import CallContext
from ..calls.schema import Arguments, require_max_bytes, text_bound
from ..calls.tool import tool
from ..lab.kernels import KERNEL_LOSSES, KernelLoss, no_kernel
from ..lab.snippet_outputs import SnippetOutputs, SnippetStatus
from ..notebook.arguments import NotebookPath
from ..notebook.outputs import serialize_outputs
from ..notebook.resolve import WRITE_ERRORS, resolve_notebook
from ..notebook.runs import add_error_details, error_details, summarize_outputs

LOST: dict[KernelLoss, tuple[ErrorCode, SnippetStatus]] = {
    "died": (ErrorCode.KERNEL_DIED, "kernel died"),
    "restarted": (ErrorCode.KERNEL_RESTARTED, "kernel restarted"),
}


class RunCodeArguments(Arguments):
    notebookPath: NotebookPath = None
    code: str = Field(json_schema_extra=text_bound(limits.MAX_SNIPPET_BYTES))


class RunCodeResult(TypedDict):
    status: Annotated[Literal["ok", "error"], Field(description=STATUS_MEANING)]
    notebookPath: NotebookPathField
    executionCount: NotRequired[Annotated[int | None, Field(description=(
        "The kernel's execution count of the last run (absent or null: not run)."))]]
    outputs: Annotated[list[OutputSnapshot], Field(description=(
        "The cell's outputs, bounded (at most 10, text cut to 10 KiB)."))]
    outputsTruncated: OutputsTruncatedField
    ename: NotRequired[EnameField]
    evalue: NotRequired[EvalueField]
    traceback: NotRequired[TracebackField]


@tool(
    "jupyter_run_code",
    "Run a code snippet",
    read_only=False,
    destructive=True,
    idempotent=False,
    consequential=True,
    errors=(*WRITE_ERRORS, ErrorCode.KERNEL_UNAVAILABLE, ErrorCode.KERNEL_DIED, ErrorCode.KERNEL_RESTARTED),
    setting="runCode",
)
async def run_code(args: RunCodeArguments, ctx: CallContext) -> RunCodeResult:
    """Run a Python snippet in a notebook's kernel without adding a cell (a shape, a head); returns its status and bounded outputs.

    The human sees it in the page's log of agent snippets; what it defines
    stays in the shared kernel. Refused on notebooks with hidden cells.
    """
    require_max_bytes("code", args.code, limits.MAX_SNIPPET_BYTES)
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    if notebook.cells().hidden_ids:
        raise ToolError(
            ErrorCode.NOTEBOOK_ACCESS_DENIED,
            "This notebook has cells its owner hid from agents, and code in its kernel could read what they "
            "hold, so jupyter_run_code is refused here; insert a cell and run it instead.",
            path=notebook.path,
            detail="HIDDEN_CELLS",
        )
    if not await notebook.has_kernel():
        raise no_kernel(notebook.path)
    entry = ctx.lab.snippet_log.add(iso_now(), notebook.path, args.code)
    collected = SnippetOutputs()
    ctx.wait_on(notebook, kind="kernel", done=0, total=1)
    status = await notebook.run_snippet(args.code, collected)
    summary = summarize_outputs(collected.outputs)
    if status in KERNEL_LOSSES:
        code, logged = LOST[status]
        ctx.lab.snippet_log.finish(entry, logged, summary)
        raise ToolError(code, f"The kernel {status} while the snippet ran.", path=notebook.path)
    shown, cut = serialize_outputs(collected.outputs)
    ok = status == "ok"
    ctx.lab.snippet_log.finish(entry, "ok" if ok else "error", summary)
    result: RunCodeResult = {
        "status": "ok" if ok else "error",
        "notebookPath": notebook.path,
        "executionCount": collected.execution_count,
        "outputs": shown,
        "outputsTruncated": cut or collected.dropped > 0,
    }
    if not ok:
        add_error_details(result, error_details(collected.outputs))
    return result
