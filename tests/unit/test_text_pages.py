"""lab/text_pages.py: text files read in pages of lines, within the bounds."""

from pyodide_webmcp.base import limits
from pyodide_webmcp.lab.text_pages import is_binary, page_lines


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
