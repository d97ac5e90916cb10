"""An agent's run goes the way a human's Run does: through the notebook's cell executor.

JupyterLab's Run commands hand each cell to the INotebookCellExecutor (an extension may
replace it) and announce it with NotebookActions' `executionScheduled` and `executed`
signals; everything that listens for executed cells (execution timing, the debugger,
other extensions) sees an agent's run too. A cell that asks for `input()` shows the
usual input box under it and waits for the human, as it would for them.
"""

from typing import Any, Literal

from js import Object
from pyodide.ffi import create_once_callable, create_proxy

from ..calls.current import current_call
from .ffi import js_value, to_js_object
from .kernel_watch import RunCancelled
from .services import NotebookServices


async def run_through_executor(services: NotebookServices, panel: Any, widget: Any) -> Literal["ok", "error", "gone"]:
    """Run one code cell: "ok", "error" for a reply that was not ok, "gone" when the cell's view went away
    mid-run; RunCancelled when its request was cancelled (the kernel went away)."""
    notebook = panel.content
    actions = services.notebook_actions

    def announce(signal: Any) -> Any:
        return create_proxy(lambda args: signal.emit(Object.assign(Object.new(), args, to_js_object({"notebook": notebook}))))

    on_scheduled = announce(actions.executionScheduled)
    on_executed = announce(actions.executed)
    options = to_js_object(
        {
            "cell": widget,
            "notebook": notebook.model,
            "notebookConfig": notebook.notebookConfig,
            "onCellExecuted": on_executed,
            "onCellExecutionScheduled": on_scheduled,
            "sessionContext": panel.sessionContext,
        }
    )
    promise = services.cell_executor.runCell(options)

    def release(*_: Any) -> None:
        on_scheduled.destroy()
        on_executed.destroy()

    # Released when the executor is done with them, even after this wait was given up on.
    promise.then(*[create_once_callable(release)] * 2)
    # A rename does not stop the run (nor does it for the human); the agent hears of it at once.
    call = current_call()
    on_renamed = create_proxy(lambda _context, path: call.notebook_renamed(str(path)) if call else None)
    panel.context.pathChanged.connect(on_renamed)
    try:
        ran = await promise
    except Exception as error:  # the executor throws a KernelError for a reply that was not ok
        if "KernelReplyNotOK" in str(error):
            return "error"
        ran = False
    finally:
        panel.context.pathChanged.disconnect(on_renamed)
        on_renamed.destroy()
    if ran:
        return "ok"
    if js_value(widget.isDisposed):
        return "gone"
    raise RunCancelled()

