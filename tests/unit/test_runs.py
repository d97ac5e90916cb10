"""notebook/runs.py: which cells a run targets, and a run's outcome in one bounded line."""

import pytest
from pyodide_webmcp.base import limits
from pyodide_webmcp.base.errors import ErrorCode, ToolError
from pyodide_webmcp.base.text import utf8_len
from pyodide_webmcp.notebook.runs import (
    Target,
    error_details,
    needs_kernel,
    select_targets,
    summarize_outputs,
)
from pyodide_webmcp.port import CellRecord

RECORDS = [CellRecord(f"c{i}", "code", f"print({i})") for i in range(5)]


def select(cell_ids=None, start=None, end=None, active=2):
    return select_targets(RECORDS, active, cell_ids, start, end, "n.ipynb")


def invalid(**kwargs) -> ToolError:
    with pytest.raises(ToolError) as caught:
        select(**kwargs)
    return caught.value


def test_cell_ids_keep_the_given_order_and_ids():
    assert select(cell_ids=["c3", "c1"]) == [Target("c3", "c3"), Target("c1", "c1")]


def test_a_range_is_resolved_to_ids_in_notebook_order_reported_as_blank():
    assert select(start=1, end=3) == [Target("c1", ""), Target("c2", "")]
    assert select(start=4, end=50) == [Target("c4", "")]


def test_no_selector_runs_the_active_cell():
    assert select() == [Target("c2", "")]
    assert invalid(active=None).code is ErrorCode.INVALID_ARGUMENT


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"start": 1}, "endIndex"),
        ({"end": 2}, "startIndex"),
        ({"cell_ids": ["c1"], "start": 0, "end": 1}, "cellIds"),
        ({"start": 3, "end": 1}, "endIndex"),
        ({"start": 0, "end": limits.MAX_CELL_IDS_PER_CALL + 1}, "endIndex"),
        ({"cell_ids": []}, "cellIds"),
        ({"cell_ids": ["c1"] * (limits.MAX_CELL_IDS_PER_CALL + 1)}, "cellIds"),
    ],
)
def test_selector_validation(kwargs, field):
    error = invalid(**kwargs)
    assert error.code is ErrorCode.INVALID_ARGUMENT and error.details["field"] == field


def test_unknown_ids_are_cell_not_found():
    error = invalid(cell_ids=["c1", "zz"])
    assert error.code is ErrorCode.CELL_NOT_FOUND and error.details == {"cellId": "zz", "notebookPath": "n.ipynb"}


def test_only_non_empty_code_needs_the_kernel():
    assert needs_kernel(CellRecord("a", "code", "x"))
    assert not needs_kernel(CellRecord("a", "code", "  \n"))
    assert not needs_kernel(CellRecord("a", "markdown", "x"))


def test_summary_is_one_bounded_line():
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": "line one\nline two\n"},
        {"output_type": "execute_result", "data": {"text/plain": "42", "image/png": "AAAA"}},
    ]
    assert summarize_outputs(outputs) == "line one line two | 42 | [image/png, 3 bytes]"
    assert summarize_outputs([]) == "no output"
    long = summarize_outputs([{"output_type": "stream", "name": "stdout", "text": "w " * 5000}])
    assert len(long) <= limits.MAX_SUMMARY_CHARS and "\n" not in long


def test_error_details_are_bounded_and_ansi_free():
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": "before"},
        {"output_type": "error", "ename": "ValueError", "evalue": "v" * 20_000, "traceback": ["\x1b[31mboom\x1b[0m"]},
    ]
    details = error_details(outputs)
    assert details["ename"] == "ValueError" and details["traceback"] == "boom"
    assert utf8_len(details["evalue"]) <= limits.MAX_TEXT_OUTPUT_BYTES
    assert summarize_outputs(outputs).startswith("before | ValueError: ")
    assert error_details(outputs[:1]) == {}
