"""The closed set of error codes, what each means and how to recover, and their structured, bounded form."""

from dataclasses import dataclass
from enum import Enum
from typing import Any

from . import limits
from .text import clamp_chars, clamp_utf8


class ErrorCode(str, Enum):
    NO_ACTIVE_NOTEBOOK = "NO_ACTIVE_NOTEBOOK"
    NOTEBOOK_NOT_FOUND = "NOTEBOOK_NOT_FOUND"
    NOTEBOOK_NOT_IN_THIS_PAGE = "NOTEBOOK_NOT_IN_THIS_PAGE"
    CELL_NOT_FOUND = "CELL_NOT_FOUND"
    STALE_CELL = "STALE_CELL"
    PARTIAL_READ = "PARTIAL_READ"
    INVALID_PATH = "INVALID_PATH"
    PATH_EXISTS = "PATH_EXISTS"
    INVALID_CELL_TYPE = "INVALID_CELL_TYPE"
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    KERNEL_UNAVAILABLE = "KERNEL_UNAVAILABLE"
    ABORTED = "ABORTED"
    COMMENT_NOT_FOUND = "COMMENT_NOT_FOUND"
    COMMENT_ANCHOR_STALE = "COMMENT_ANCHOR_STALE"
    CELL_ACCESS_DENIED = "CELL_ACCESS_DENIED"
    NOTEBOOK_ACCESS_DENIED = "NOTEBOOK_ACCESS_DENIED"
    PROPOSAL_ALREADY_PENDING = "PROPOSAL_ALREADY_PENDING"
    REVIEW_DATA_UNREADABLE = "REVIEW_DATA_UNREADABLE"
    PENDING_CALL_NOT_FOUND = "PENDING_CALL_NOT_FOUND"
    DIALOG_NOT_FOUND = "DIALOG_NOT_FOUND"
    DIALOG_NOT_YOURS = "DIALOG_NOT_YOURS"
    DIALOG_CANCELLED = "DIALOG_CANCELLED"
    LAB_ERROR = "LAB_ERROR"
    KERNEL_DIED = "KERNEL_DIED"
    KERNEL_RESTARTED = "KERNEL_RESTARTED"
    COMMAND_NOT_ALLOWED = "COMMAND_NOT_ALLOWED"
    BRIDGE_STARTING = "BRIDGE_STARTING"
    BRIDGE_UNAVAILABLE = "BRIDGE_UNAVAILABLE"
    INTERNAL_ERROR = "INTERNAL_ERROR"


@dataclass(frozen=True)
class Guide:
    meaning: str
    hint: str
    retryable: bool  # whether the same call may succeed later without changing its arguments


GUIDE: dict[ErrorCode, Guide] = {
    ErrorCode.NO_ACTIVE_NOTEBOOK: Guide(
        "No notebookPath was given and no notebook is current (for list_comments with scope current-cell: no active cell; see `detail`).",
        "Pass notebookPath (find one with jupyter_list_workspace), or open one with jupyter_open_notebook.",
        False,
    ),
    ErrorCode.NOTEBOOK_NOT_FOUND: Guide(
        "The path is not a notebook that exists for the agent (for list_workspace: no such folder, `detail` DIRECTORY_NOT_FOUND).",
        "Check the path with jupyter_list_workspace; hidden notebooks are never listed.",
        False,
    ),
    ErrorCode.NOTEBOOK_NOT_IN_THIS_PAGE: Guide(
        "The notebook exists, but this page (the Notebook app's page of another notebook) cannot open it.",
        "Ask the human to open `url` (that notebook's page) or `labUrl` (the lab, whose tools reach every notebook).",
        False,
    ),
    ErrorCode.CELL_NOT_FOUND: Guide(
        "No cell with that id exists for the agent in the notebook.",
        "Read the cell ids again with jupyter_get_cells; the human may have deleted or hidden the cell.",
        False,
    ),
    ErrorCode.STALE_CELL: Guide(
        "The cell changed since it was read (expectedSourceHash does not match); nothing was written.",
        "Use currentSourceHash and currentSourcePreview, or read the cell again, then retry with the new hash.",
        False,
    ),
    ErrorCode.PARTIAL_READ: Guide(
        "expectedSourceHash comes from a read that showed only part of the cell (sourceTruncated), and the "
        "new source would replace all of it; nothing was written.",
        "Read the rest (jupyter_get_cells with sourceOffset) and send the whole source, or change a piece with "
        "jupyter_replace_in_cell; to replace the whole cell anyway, retry with overwriteUnread: true.",
        False,
    ),
    ErrorCode.INVALID_PATH: Guide(
        "The path is absolute, escapes the workspace, uses a backslash, names the wrong kind of file, or could not be created.",
        "Use a workspace-relative path with forward slashes.",
        False,
    ),
    ErrorCode.PATH_EXISTS: Guide(
        "A file already exists where a notebook was to be created; nothing was overwritten.",
        "Choose another name, or open the existing notebook.",
        False,
    ),
    ErrorCode.INVALID_CELL_TYPE: Guide(
        "The cell type is not code, markdown or raw.", "Use code, markdown or raw.", False
    ),
    ErrorCode.INVALID_ARGUMENT: Guide(
        "An argument is missing, unknown, of the wrong type or shape, or over its size limit (`field` names it).",
        "Fix the argument named in `field`; the tool's input schema gives the accepted values and limits.",
        False,
    ),
    ErrorCode.KERNEL_UNAVAILABLE: Guide(
        "The notebook has no kernel attached.",
        "Start one with jupyter_start_kernel, then retry.",
        True,
    ),
    ErrorCode.ABORTED: Guide("The caller aborted the call.", "Call again if the work is still wanted.", True),
    ErrorCode.COMMENT_NOT_FOUND: Guide(
        "No review thread with that id exists for the agent in the notebook.",
        "List the threads again with jupyter_list_comments.",
        False,
    ),
    ErrorCode.COMMENT_ANCHOR_STALE: Guide(
        "The anchor does not match the cell as it is now (text not in the source, no such output, or the cell is gone).",
        "Read the cell again (jupyter_get_cells) and anchor to text or an output that exists now.",
        False,
    ),
    ErrorCode.CELL_ACCESS_DENIED: Guide(
        "The notebook's owner made this cell read-only for agents.",
        "Leave the cell as it is, or ask the human to change its access; reading it is allowed.",
        False,
    ),
    ErrorCode.NOTEBOOK_ACCESS_DENIED: Guide(
        "The notebook's owner made this notebook read-only for agents.",
        "Read and navigate only, or ask the human to change its access.",
        False,
    ),
    ErrorCode.PROPOSAL_ALREADY_PENDING: Guide(
        "The cell already has a proposal waiting for the human (Propose mode).",
        "Wait for the pending proposal's decision (jupyter_wait_for_result), then propose again.",
        True,
    ),
    ErrorCode.REVIEW_DATA_UNREADABLE: Guide(
        "The notebook's stored review data is damaged; it was left untouched so nothing is lost.",
        "Ask the human to repair or remove the notebook's jupyterlite_webmcp_review metadata.",
        False,
    ),
    ErrorCode.PENDING_CALL_NOT_FOUND: Guide(
        "No pending call with that id: it never returned pending, or its result expired (10 minutes after it settled).",
        "Use the pendingId of a pending result; start the call again if its result expired.",
        False,
    ),
    ErrorCode.DIALOG_NOT_FOUND: Guide(
        "No such dialog is open, none is, several are (give dialogId), or the one named is queued behind another.",
        "Read `dialogs` in jupyter_get_context and name the dialog that is shown.",
        False,
    ),
    ErrorCode.DIALOG_NOT_YOURS: Guide(
        "The dialog is the human's (no agent call raised it); only they can answer it.",
        "Ask the human to answer it.",
        False,
    ),
    ErrorCode.DIALOG_CANCELLED: Guide(
        "A dialog of this call was cancelled, so the operation did not happen.",
        "Call again if the operation is still wanted, and answer its dialog differently.",
        True,
    ),
    ErrorCode.LAB_ERROR: Guide(
        "JupyterLab reported an error (its dialog's text is in the message) or did not finish in time.",
        "Read the message; close the error dialog with jupyter_answer_dialog when dialogId is given.",
        True,
    ),
    ErrorCode.KERNEL_DIED: Guide(
        "The kernel died during the call; `results` has the cells that ran before.",
        "Start a kernel (jupyter_start_kernel) and run the cells again.",
        True,
    ),
    ErrorCode.KERNEL_RESTARTED: Guide(
        "The kernel restarted during the call; its state is gone; `results` has the cells that ran before.",
        "Wait until the kernel is idle (jupyter_get_context), then run the cells again.",
        True,
    ),
    ErrorCode.COMMAND_NOT_ALLOWED: Guide(
        "The command is not on the owner's allowlist (whether or not JupyterLab has such a command).",
        "Call jupyter_list_commands for the commands you may run; ask the human to allow another one in the settings.",
        False,
    ),
    ErrorCode.BRIDGE_STARTING: Guide(
        "The page listed the tools before its Python finished starting, and it did not finish within the call "
        "budget; the call was not run.",
        "Call again in a few seconds.",
        True,
    ),
    ErrorCode.BRIDGE_UNAVAILABLE: Guide(
        "The bridge could not start on this page; the call was not run.",
        "Tell the human: the status bar says why (reloading the page starts it again).",
        False,
    ),
    ErrorCode.INTERNAL_ERROR: Guide(
        "An unexpected failure in the bridge; no stack trace is included.", "Retry once; if it persists, tell the human.", True
    ),
}

COMMON_ERRORS = (
    ErrorCode.INVALID_ARGUMENT,
    ErrorCode.ABORTED,
    ErrorCode.BRIDGE_STARTING,
    ErrorCode.BRIDGE_UNAVAILABLE,
    ErrorCode.INTERNAL_ERROR,
)
"""Codes any tool can return: they are not listed per tool."""


class ToolError(Exception):
    """An expected failure that reaches the agent as a structured error."""

    def __init__(self, code: ErrorCode, message: str, **details: Any):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


def _clamp_strings(value: Any) -> Any:
    if isinstance(value, str):
        return clamp_utf8(value, limits.MAX_ERROR_STRING_BYTES)[0]
    if isinstance(value, dict):
        return {key: _clamp_strings(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clamp_strings(item) for item in value]
    return value


def error_payload(exc: BaseException) -> dict[str, Any]:
    """Reduce any exception to `{error, message, ...details, hint, retryable}` with clamped strings."""
    if isinstance(exc, ToolError):
        code, payload = exc.code, {"error": exc.code.value, "message": exc.message, **exc.details}
    else:
        text = str(exc) or type(exc).__name__
        code = ErrorCode.INTERNAL_ERROR
        payload = {"error": code.value, "message": clamp_chars(text, limits.MAX_INTERNAL_ERROR_CHARS)[0]}
    payload.setdefault("hint", GUIDE[code].hint)
    payload.setdefault("retryable", GUIDE[code].retryable)
    return {key: _clamp_strings(value) for key, value in payload.items()}
