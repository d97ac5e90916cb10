"""Positions in a cell's source, in one place.

Agents count columns in characters. Browser editors, and the source ranges
that the reference extension (jupyterlite-webmcp) stores, count UTF-16 code units (a character outside the Basic
Multilingual Plane is two). Lines are split on "\\n" only.
"""

from typing import Optional

from .shapes import Position


def _lines(source: str) -> list[str]:
    return source.split("\n")


def _units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_to_index(line: str, column: int) -> int:
    """A UTF-16 column on one line as a character index (clamped to the line)."""
    units = 0
    for index, char in enumerate(line):
        if units >= column:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)


def index_to_utf16(line: str, index: int) -> int:
    """A character index on one line as a UTF-16 column."""
    return _units(line[: max(0, index)])


def offset_of(source: str, position: Position) -> int:
    """The character offset of a (line, column) position, clamped into the source."""
    lines = _lines(source)
    line = max(0, min(position["line"], len(lines) - 1))
    column = max(0, min(position["column"], len(lines[line])))
    return sum(len(text) + 1 for text in lines[:line]) + column


def strict_offset(source: str, position: Position) -> Optional[int]:
    """The character offset of a position, or None when it lies outside the source."""
    lines = _lines(source)
    if not 0 <= position["line"] < len(lines) or not 0 <= position["column"] <= len(lines[position["line"]]):
        return None
    return offset_of(source, position)


def position_of(source: str, offset: int) -> Position:
    """The (line, column) of a character offset, clamped into the source."""
    before = source[: max(0, min(offset, len(source)))]
    return {"line": before.count("\n"), "column": len(before) - (before.rfind("\n") + 1)}


def to_utf16(source: str, position: Position) -> Position:
    """A character position as the UTF-16 position the reference extension stores (clamped into the source)."""
    lines = _lines(source)
    line = max(0, min(position["line"], len(lines) - 1))
    return {"line": line, "column": index_to_utf16(lines[line], position["column"])}


def from_utf16(source: str, position: Position) -> Position:
    """A stored UTF-16 position as a character position (clamped into the source)."""
    lines = _lines(source)
    line = max(0, min(position["line"], len(lines) - 1))
    return {"line": line, "column": utf16_to_index(lines[line], max(0, position["column"]))}


def editor_coordinates(source: str, position: Position) -> tuple[int, int]:
    """A character position, clamped into the source, as the editor's (line, UTF-16 column)."""
    converted = to_utf16(source, {"line": position["line"], "column": max(0, position["column"])})
    return converted["line"], converted["column"]


def editor_position(source: str, line: int, column: int) -> Position:
    """An editor position (UTF-16 column) with its column counted in characters."""
    return from_utf16(source, {"line": line, "column": column})


EditorRange = tuple[tuple[int, int], tuple[int, int]]


def editor_range(source: str, start: Position, end: Position) -> EditorRange:
    """A character range as the editor's ((line, UTF-16 column), (line, UTF-16 column))."""
    return editor_coordinates(source, start), editor_coordinates(source, end)
