"""ui/word_diff.py: replaced lines paired and marked word by word; the size of a change."""

from pyodide_webmcp.notebook.propose import diff_lines
from pyodide_webmcp.ui.word_diff import MAX_WORD_DIFF_TOKENS, change_size, diff_rows


def test_a_replaced_line_marks_only_the_words_that_changed():
    lines = diff_lines("a = 1\nprint(mean)\nz", "a = 1\nprint(f'mean {mean:.3f}')\nz")
    rows = diff_rows(lines)
    assert [row.kind for row in rows] == ["same", "removed", "added", "same"]
    removed, added = rows[1], rows[2]
    assert removed.text == "print(mean)" and added.text == "print(f'mean {mean:.3f}')"
    assert (False, "print(") in added.segments and any(changed and "f" in text for changed, text in added.segments)
    assert change_size(lines) == 2


def test_unpaired_lines_and_long_lines_are_marked_whole():
    rows = diff_rows([("removed", "a"), ("removed", "b"), ("added", "c")])
    assert [(row.kind, row.segments) for row in rows] == [
        ("removed", ((True, "a"),)), ("removed", ((True, "b"),)), ("added", ((True, "c"),))]
    long_line = "x " * (MAX_WORD_DIFF_TOKENS + 1)
    rows = diff_rows([("removed", long_line), ("added", long_line + "y")])
    assert rows[1].segments == ((True, long_line + "y"),)
    assert diff_rows([("added", "new")])[0].segments == ((True, "new"),)
