import pytest
from pyodide_webmcp import limits
from pyodide_webmcp.errors import GUIDE, ErrorCode, ToolError, error_payload
from pyodide_webmcp.text import (
    TRUNCATION_MARK,
    clamp_chars,
    clamp_utf8,
    one_line,
    strip_ansi,
    utf8_len,
)


def test_clamp_utf8_keeps_short_text():
    assert clamp_utf8("héllo", 100) == ("héllo", False)


def test_clamp_utf8_never_splits_a_code_point_and_fits():
    text = "€" * 100  # 3 bytes each
    cut, was_cut = clamp_utf8(text, 50)
    assert was_cut and cut.endswith(TRUNCATION_MARK)
    assert utf8_len(cut) <= 50
    assert set(cut.removesuffix(TRUNCATION_MARK)) == {"€"}


def test_clamp_chars():
    assert clamp_chars("abcdef", 6) == ("abcdef", False)
    cut, was_cut = clamp_chars("a" * 1000, 500)
    assert was_cut and len(cut) == 500


def test_strip_ansi_removes_colour_and_osc_sequences():
    assert strip_ansi("\x1b[31mred\x1b[39m \x1b]8;;http://x\x07link\x1b]8;;\x07") == "red link"


def test_one_line():
    assert one_line(" a\n\n b\tc ") == "a b c"


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
