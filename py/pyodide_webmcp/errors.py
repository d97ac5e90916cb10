"""The closed set of error codes and their structured, bounded form."""

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
    INVALID_PATH = "INVALID_PATH"
    PATH_EXISTS = "PATH_EXISTS"
    INVALID_CELL_TYPE = "INVALID_CELL_TYPE"
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    KERNEL_UNAVAILABLE = "KERNEL_UNAVAILABLE"
    EXECUTION_ERROR = "EXECUTION_ERROR"
    ABORTED = "ABORTED"
    WEBMCP_UNAVAILABLE = "WEBMCP_UNAVAILABLE"
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
    INTERNAL_ERROR = "INTERNAL_ERROR"


ERROR_MEANINGS: dict[ErrorCode, str] = {
    ErrorCode.NO_ACTIVE_NOTEBOOK: "No notebookPath was given and no notebook is current.",
    ErrorCode.NOTEBOOK_NOT_FOUND: "The path is not an existing notebook (or directory, for listings).",
    ErrorCode.NOTEBOOK_NOT_IN_THIS_PAGE: (
        "The notebook exists but this page (the Notebook app's page of another notebook) cannot open it; "
        "the error carries the URL of a page that can (`url`, `labUrl`)."
    ),
    ErrorCode.CELL_NOT_FOUND: "No such cell id in the notebook.",
    ErrorCode.STALE_CELL: "expectedSourceHash no longer matches the cell; nothing was written.",
    ErrorCode.INVALID_PATH: "The path is absolute, escapes the workspace, uses a backslash, or names the wrong kind of file.",
    ErrorCode.PATH_EXISTS: "A file already exists where a notebook was to be created.",
    ErrorCode.INVALID_CELL_TYPE: "The cell type is not code, markdown or raw.",
    ErrorCode.INVALID_ARGUMENT: "An argument is missing, unknown, of the wrong type or shape, or over its size limit.",
    ErrorCode.KERNEL_UNAVAILABLE: "The notebook has no kernel attached.",
    ErrorCode.EXECUTION_ERROR: "Reserved; per-cell execution errors are reported inline.",
    ErrorCode.ABORTED: "The caller aborted the call.",
    ErrorCode.WEBMCP_UNAVAILABLE: "Reserved; tools are only registered when WebMCP exists.",
    ErrorCode.COMMENT_NOT_FOUND: "No such review thread.",
    ErrorCode.COMMENT_ANCHOR_STALE: "The comment anchor no longer matches the cell.",
    ErrorCode.CELL_ACCESS_DENIED: "The owner made this cell read-only for agents.",
    ErrorCode.NOTEBOOK_ACCESS_DENIED: "The owner made this notebook read-only for agents.",
    ErrorCode.PROPOSAL_ALREADY_PENDING: "The cell already has a proposal waiting for the human.",
    ErrorCode.REVIEW_DATA_UNREADABLE: "The notebook's stored review data is damaged; it was left untouched.",
    ErrorCode.PENDING_CALL_NOT_FOUND: "No such pending call: never returned pending, or its result expired.",
    ErrorCode.DIALOG_NOT_FOUND: "No such dialog open (or none open, or several: give dialogId).",
    ErrorCode.DIALOG_NOT_YOURS: "The dialog is the human's (not raised by an agent call); only they can answer it.",
    ErrorCode.DIALOG_CANCELLED: "A dialog of this call was cancelled, so the operation did not happen.",
    ErrorCode.LAB_ERROR: "JupyterLab reported an error in a dialog; the message carries its text.",
    ErrorCode.KERNEL_DIED: "The kernel died during the call; `results` has what ran before.",
    ErrorCode.KERNEL_RESTARTED: "The kernel restarted during the call; `results` has what ran before.",
    ErrorCode.INTERNAL_ERROR: "An unexpected failure; no stack trace is included.",
}


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
    """Reduce any exception to `{error, message, ...details}` with clamped strings."""
    if isinstance(exc, ToolError):
        payload = {"error": exc.code.value, "message": exc.message, **exc.details}
    else:
        text = str(exc) or type(exc).__name__
        message = clamp_chars(text, limits.MAX_INTERNAL_ERROR_CHARS)[0]
        payload = {"error": ErrorCode.INTERNAL_ERROR.value, "message": message}
    return _clamp_strings(payload)
