"""base/positions.py: character indexes and the editor's UTF-16 columns."""

from pyodide_webmcp.base.positions import (
    editor_coordinates,
    index_to_utf16,
    utf16_to_index,
)


def test_utf16_columns_become_character_indexes():
    assert utf16_to_index("a😀b", 0) == 0
    assert utf16_to_index("a😀b", 3) == 2
    assert utf16_to_index("a😀b", 4) == 3
    assert utf16_to_index("ab", 10) == 2


def test_character_positions_become_utf16_editor_coordinates():
    assert index_to_utf16("a😀b", 2) == 3
    source = "x = 1\ny = 😀 + 2"
    assert editor_coordinates(source, {"line": 1, "column": 5}) == (1, 6)
    assert editor_coordinates(source, {"line": 9, "column": 99}) == (1, len("y = 😀 + 2") + 1)
