"""calls/envelope.py: a tool's result as the page sends it: the payload once, within the size bound."""

import json

from pyodide_webmcp.base import limits
from pyodide_webmcp.calls.envelope import failure, success, wire


def size(text: str) -> int:
    return len(text.encode("utf-8"))


def test_small_payload_is_passed_through():
    result = success({"a": 1, "b": None})
    assert json.loads(result["content"][0]["text"]) == {"a": 1, "b": None}
    assert result["structuredContent"] == {"a": 1, "b": None}
    assert "isError" not in result


def test_largest_object_array_is_trimmed_and_counted():
    cells = [{"id": str(i), "source": "x" * 1000} for i in range(200)]
    small = [{"id": str(i)} for i in range(5)]
    payload = {"cells": cells, "other": small, "truncated": False, "omittedCount": 0}
    result = success(payload)
    text = result["content"][0]["text"]
    assert size(text) <= limits.MAX_TOTAL_RESULT_BYTES
    trimmed = result["structuredContent"]
    assert json.loads(text) == trimmed
    assert trimmed["truncated"] is True
    assert len(trimmed["cells"]) + trimmed["omittedCount"] == 200
    assert trimmed["cells"] == cells[: len(trimmed["cells"])]
    assert trimmed["other"] == small
    assert payload["cells"] is cells and len(cells) == 200  # the caller's data is untouched


def test_nested_array_owner_gets_its_own_counters():
    payload = {"thread": {"messages": [{"body": "m" * 2000} for _ in range(60)]}}
    trimmed = success(payload)["structuredContent"]
    assert trimmed["truncated"] is True
    thread = trimmed["thread"]
    assert thread["truncated"] is True
    assert len(thread["messages"]) + thread["omittedCount"] == 60


def test_last_resort_envelope_fits_and_drops_structured_content():
    payload = {"document": "é\"\n" * 40_000}
    result = success(payload)
    text = result["content"][0]["text"]
    assert size(text) <= limits.MAX_TOTAL_RESULT_BYTES
    envelope = json.loads(text)
    assert envelope["truncated"] is True and envelope["maxBytes"] == limits.MAX_TOTAL_RESULT_BYTES
    assert envelope["reason"]
    assert json.dumps(payload, ensure_ascii=False, separators=(",", ":")).startswith(envelope["partial"])
    assert len(envelope["partial"]) > 1000
    assert "structuredContent" not in result


def test_failure_marks_error_and_reduces_oversized_errors():
    result = failure({"error": "INVALID_ARGUMENT", "message": "bad", "field": "x"})
    assert result["isError"] is True
    assert result["structuredContent"]["field"] == "x"
    huge = failure({"error": "INVALID_ARGUMENT", "message": "bad", "items": ["y" * 2000] * 40})
    assert huge["structuredContent"] == {"error": "INVALID_ARGUMENT", "message": "bad"}


def test_the_page_gets_the_payload_once():
    payload = {"cells": [{"id": "a", "source": "print('é')\n"}], "truncated": False}
    sent = wire(success(payload))
    assert sent == {"content": [{"type": "text", "text": json.dumps(payload, ensure_ascii=False, separators=(",", ":"))}]}
    error = wire(failure({"error": "STALE_CELL", "message": "changed", "cellId": "a"}))
    assert error["isError"] is True and set(error) == {"content", "isError"}
    assert json.loads(error["content"][0]["text"])["cellId"] == "a"
    # A client that serializes the whole return value (every WebMCP client does) shows the payload once.
    seen = json.dumps(wire(success(payload)), ensure_ascii=False)
    assert seen.count("print(") == 1 and json.loads(json.loads(seen)["content"][0]["text"]) == payload


def test_a_lone_surrogate_in_a_payload_is_measured_not_an_internal_error():
    """Found by the stress run: a cell source with a lone surrogate made every result echoing it INTERNAL_ERROR."""
    for payload in ({"source": "\ud800 lone"}, {"cells": [{"source": "\udfff" * 30_000}]}, "\ud800" * 60_000):
        result = success(payload)
        text = result["content"][0]["text"]
        assert "isError" not in result
        assert len(text.encode("utf-8", "surrogatepass")) <= limits.MAX_TOTAL_RESULT_BYTES
