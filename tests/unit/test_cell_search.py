"""notebook/cell_search.py: finding text in cells and outputs, with patterns that cannot freeze the page."""

import pytest
from pyodide_webmcp.base import limits
from pyodide_webmcp.base.errors import ErrorCode, ToolError
from pyodide_webmcp.notebook.cell_search import compile_query, find
from pyodide_webmcp.port import CellRecord


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
