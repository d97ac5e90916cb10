"""A workspace text file as agents read it: paged by lines, bounded, never binary. Pure."""

from dataclasses import dataclass
from typing import Optional

from ..base import limits
from ..base.text import clamp_utf8, utf8_len


def is_binary(text: str) -> bool:
    """Text with NUL characters is not text an agent can read."""
    return "\0" in text[: limits.BINARY_SNIFF_CHARS]


@dataclass(frozen=True)
class LinePage:
    lines: list[str]
    line_count: int
    next_start: Optional[int]  # where the next page starts; None at the end
    cut: bool  # a line was cut to the line bound


def page_lines(text: str, start: int, max_lines: int) -> LinePage:
    """Lines from `start` (zero-based), at most `max_lines` and MAX_FILE_PAGE_BYTES of UTF-8, lines cut long."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # a final newline ends the last line; it does not start another
    kept: list[str] = []
    used = 0
    cut = False
    for line in lines[start : start + max_lines]:
        shown, line_cut = clamp_utf8(line, limits.MAX_FILE_LINE_BYTES)
        size = utf8_len(shown) + 1
        if kept and used + size > limits.MAX_FILE_PAGE_BYTES:
            break
        kept.append(shown)
        used += size
        cut = cut or line_cut
    following = start + len(kept)
    return LinePage(kept, len(lines), following if following < len(lines) else None, cut)
