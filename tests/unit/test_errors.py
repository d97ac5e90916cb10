"""base/errors.py: every error result carries its code, its details, a hint and whether to retry."""

import pytest
from pyodide_webmcp.base import limits
from pyodide_webmcp.base.errors import GUIDE, ErrorCode, ToolError, error_payload
from pyodide_webmcp.base.text import utf8_len


def test_tool_error_payload_carries_details():
    payload = error_payload(ToolError(ErrorCode.CELL_NOT_FOUND, "missing", cellId="abc"))
    assert payload == {
        "error": "CELL_NOT_FOUND", "message": "missing", "cellId": "abc",
        "hint": GUIDE[ErrorCode.CELL_NOT_FOUND].hint, "retryable": False,
    }


def test_error_strings_are_clamped_to_2_kib():
    payload = error_payload(ToolError(ErrorCode.INVALID_PATH, "x" * 10_000, path="é" * 5_000))
    assert utf8_len(payload["message"]) <= limits.MAX_ERROR_STRING_BYTES
    assert utf8_len(payload["path"]) <= limits.MAX_ERROR_STRING_BYTES


def test_unexpected_exception_is_internal_error_without_trace():
    payload = error_payload(ValueError("boom " * 500))
    assert payload["error"] == "INTERNAL_ERROR"
    assert len(payload["message"]) <= limits.MAX_INTERNAL_ERROR_CHARS
    assert "Traceback" not in payload["message"]
    assert set(payload) == {"error", "message", "hint", "retryable"} and payload["retryable"] is True


@pytest.mark.parametrize("code", list(ErrorCode))
def test_every_code_says_what_it_means_and_how_to_recover(code):
    guide = GUIDE[code]
    assert guide.meaning.endswith(".") and guide.hint.endswith(".") and isinstance(guide.retryable, bool)
