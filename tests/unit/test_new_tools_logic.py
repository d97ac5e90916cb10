"""Pure logic of search, replacement, text-file paging, reading notebooks from their files, and listings' paging."""

import pytest
from pyodide_webmcp import limits
from pyodide_webmcp.errors import ErrorCode, ToolError
from pyodide_webmcp.filenotebook import FileNotebook
from pyodide_webmcp.paging import fit, offset_page, range_page
from pyodide_webmcp.registry import REGISTRY, CallContext
from pyodide_webmcp.search import compile_query, find
from pyodide_webmcp.settings import AccessDefaults
from pyodide_webmcp.textfile import is_binary, page_lines
from pyodide_webmcp.tools.cell_changes import replaced
from pyodide_webmcp.views import CellRecord

from tests.unit.aio import run
from tests.unit.memory_lab import MemoryLab, MemoryNotebook, cell


@pytest.mark.parametrize("pattern", ["(a+)+", "(x|xy)*", "(?:a*)*b", ".*a.*b.*c", "([ab]+)*"])
def test_patterns_that_could_freeze_the_page_are_refused(pattern):
    with pytest.raises(ToolError) as refused:
        compile_query(pattern, regex=True, case_sensitive=False)
    assert refused.value.code is ErrorCode.INVALID_ARGUMENT and refused.value.details["field"] == "query"


@pytest.mark.parametrize("pattern", [r"def \w+\(", r"\s*=\s*", "(ab)+", "x{2,5}", "(a|b)*c", "[(]"])
def test_ordinary_patterns_are_accepted(pattern):
    compile_query(pattern, regex=True, case_sensitive=True)


def test_an_invalid_regex_and_an_empty_query_are_clear_errors():
    for query, regex in (("(", True), ("", False)):
        with pytest.raises(ToolError) as bad:
            compile_query(query, regex=regex, case_sensitive=False)
        assert bad.value.details["field"] == "query"


def test_search_finds_lines_columns_and_outputs_and_pages():
    records = [CellRecord("a", "code", "x = 1\nprint(X)"), CellRecord("b", "markdown", "no match here")]
    cells = [{"outputs": [{"output_type": "stream", "name": "stdout", "text": "x marks\n"}]}, {}]
    literal = compile_query("x", regex=False, case_sensitive=False)
    found = find([(0, records[0], cells[0]), (1, records[1], cells[1])], literal, True, 0, 10, literal=True)
    assert [(m["cellId"], m["where"], m["line"], m["column"]) for m in found.matches] == [
        ("a", "source", 0, 0), ("a", "source", 1, 6), ("a", "output", 0, 0),
    ]
    assert found.matches[2]["outputIndex"] == 0 and found.total == 3
    page = find([(0, records[0], cells[0])], literal, True, 1, 1, literal=True)
    assert [m["line"] for m in page.matches] == [1] and page.total == 3
    cased = find([(0, records[0], None)], compile_query("x", False, True), False, 0, 10, literal=True)
    assert cased.total == 1


def test_a_long_line_gives_a_bounded_excerpt():
    record = CellRecord("a", "code", "y" * 10_000 + "needle" + "z" * 10_000)
    found = find([(0, record, None)], compile_query("needle", False, False), False, 0, 5, literal=True)
    assert "needle" in found.matches[0]["excerpt"] and len(found.matches[0]["excerpt"]) <= limits.MAX_EXCERPT_CHARS


def test_replacement_needs_exactly_one_occurrence():
    assert replaced("a = 1\nb = 1", "b = 1", "b = 2") == "a = 1\nb = 2"
    for source, detail, count in (("a = 1", "TEXT_NOT_FOUND", 0), ("x x", "TEXT_NOT_UNIQUE", 2)):
        with pytest.raises(ToolError) as refused:
            replaced(source, "x" if count else "zz", "y")
        assert refused.value.details["detail"] == detail and refused.value.details["occurrences"] == count


def test_text_files_page_by_lines_within_the_bounds():
    text = "\n".join(f"line {i}" for i in range(10)) + "\n"
    page = page_lines(text, 2, 3)
    assert page.lines == ["line 2", "line 3", "line 4"] and page.line_count == 10 and page.next_start == 5
    last = page_lines(text, 8, 50)
    assert last.lines == ["line 8", "line 9"] and last.next_start is None
    huge = page_lines("é" * 10_000 + "\n" + "x\n" * 100_000, 0, limits.MAX_FILE_LINES)
    assert huge.cut and sum(len(line.encode()) + 1 for line in huge.lines) <= limits.MAX_FILE_PAGE_BYTES
    assert huge.next_start is not None
    assert is_binary("PNG\0\0") and not is_binary("plain text")


def test_a_notebook_with_cell_ids_is_read_from_its_file_as_the_live_model_holds_it():
    content = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"id": "c1", "cell_type": "code", "source": ["a = 1\n", "a"], "metadata": {},
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["x\n", "y\n"]}], "execution_count": 1},
    ]}
    notebook = FileNotebook.read("n.ipynb", content, AccessDefaults())
    assert notebook.cells()[0].source == "a = 1\na" and notebook.dirty is False and notebook.access() == "write"
    assert notebook.cell_json(0)["outputs"][0]["text"] == "x\n,y\n"  # as JupyterLab's shared model joins a list
    assert FileNotebook.read("old.ipynb", {"cells": [{"cell_type": "code", "source": ""}]}, AccessDefaults()) is None  # no ids
    duplicated = {"cells": [{"id": "d", "cell_type": "code"}, {"id": "d", "cell_type": "code"}]}
    assert FileNotebook.read("dup.ipynb", duplicated, AccessDefaults()) is None


def test_listings_say_where_to_continue():
    assert fit([{"x": "y" * 100}] * 10, 3) == [{"x": "y" * 100}] * 3
    assert len(fit([{"x": "y" * 1000}] * 100, 100, budget=5000)) == 4
    assert range_page([5, 6, 8, 9], 2, 10, 20) == {"hasMore": True, "nextStartIndex": 8}
    assert range_page([5, 6], 2, 10, 20) == {"hasMore": True, "nextStartIndex": 10}
    assert range_page([5, 6], 2, 20, 20) == {"hasMore": False}
    assert range_page([5, 6], 1, None, 20) == {"hasMore": False}
    assert offset_page(10, 5, 3) == {"hasMore": True, "nextOffset": 15}
    assert offset_page(10, 5, 0) == {"hasMore": False}


def call(lab, name, arguments):
    envelope = run(REGISTRY.get(name).call(arguments, CallContext(lab)))
    return envelope["structuredContent"]


def test_a_default_read_of_a_long_notebook_says_more_exist():
    notebook = MemoryNotebook("long.ipynb", [cell(f"x = {i}", cell_id=f"c{i}") for i in range(50)])
    lab = MemoryLab(notebook)
    first = call(lab, "jupyter_get_cells", {})
    assert len(first["cells"]) == 20 and first["hasMore"] is True and first["nextStartIndex"] == 20
    assert first["truncated"] is False and first["omittedCount"] == 0  # the seed's meaning: cut to the bounds
    last = call(lab, "jupyter_get_cells", {"startIndex": 40})
    assert len(last["cells"]) == 10 and last["hasMore"] is False and "nextStartIndex" not in last


def test_a_notebook_closed_mid_run_ends_the_call_with_a_clear_code_and_the_results_so_far():
    notebook = MemoryNotebook("closing.ipynb", [cell(f"v = {i}", cell_id=c) for i, c in enumerate("abc")])
    original = notebook.execute_code

    async def closed_during_b(index, cell_id):
        status = await original(index, cell_id)
        if cell_id == "b":
            notebook.is_closed = True
            return "gone"
        return status

    notebook.execute_code = closed_during_b
    envelope = run(REGISTRY.get("jupyter_run_cells").call({"startIndex": 0, "endIndex": 3}, CallContext(MemoryLab(notebook))))
    error = envelope["structuredContent"]
    assert envelope["isError"] is True and error["error"] == "NOTEBOOK_NOT_FOUND" and error["cellId"] == "b"
    assert "closed while cell b ran" in error["message"]
    assert [result["cellId"] for result in error["results"]] == ["a"]
