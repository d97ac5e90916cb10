"""A line diff as the human reads it: each replaced line paired with its replacement, the words that changed
marked inside them, and the size of the change (lines removed and added). Pure."""

import difflib
import re
from dataclasses import dataclass
from typing import Sequence

from ..base.shapes import DiffKind

TOKENS = re.compile(r"\w+|\s+|[^\w\s]")
MAX_WORD_DIFF_TOKENS = 400  # a longer line is marked changed as a whole
MAX_SHOWN_ROWS = 400  # of one diff; the rest is counted

Segment = tuple[bool, str]
"""A piece of a line, and whether it changed."""


@dataclass(frozen=True)
class DiffRow:
    kind: DiffKind
    segments: tuple[Segment, ...]

    @property
    def text(self) -> str:
        return "".join(text for _, text in self.segments)


def _marked(old: str, new: str) -> tuple[tuple[Segment, ...], tuple[Segment, ...]]:
    a, b = TOKENS.findall(old), TOKENS.findall(new)
    if len(a) > MAX_WORD_DIFF_TOKENS or len(b) > MAX_WORD_DIFF_TOKENS:
        return ((True, old),), ((True, new),)
    left: list[Segment] = []
    right: list[Segment] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if i2 > i1:
            left.append((tag != "equal", "".join(a[i1:i2])))
        if j2 > j1:
            right.append((tag != "equal", "".join(b[j1:j2])))
    return tuple(left), tuple(right)


def diff_rows(lines: Sequence[tuple[DiffKind, str]]) -> list[DiffRow]:
    """Rows of a line diff; in a run of removed lines followed by added ones, the n-th of each is marked word by
    word against the other."""
    rows: list[DiffRow] = []
    at = 0
    while at < len(lines):
        kind, text = lines[at]
        if kind != "removed":
            rows.append(DiffRow(kind, ((kind == "added", text),)))
            at += 1
            continue
        removed_end = at
        while removed_end < len(lines) and lines[removed_end][0] == "removed":
            removed_end += 1
        added_end = removed_end
        while added_end < len(lines) and lines[added_end][0] == "added":
            added_end += 1
        removed, added = lines[at:removed_end], lines[removed_end:added_end]
        pairs = [_marked(old, new) for (_, old), (_, new) in zip(removed, added)]
        rows.extend(DiffRow("removed", pair[0]) for pair in pairs)
        rows.extend(DiffRow("removed", ((True, text),)) for _, text in removed[len(pairs):])
        rows.extend(DiffRow("added", pair[1]) for pair in pairs)
        rows.extend(DiffRow("added", ((True, text),)) for _, text in added[len(pairs):])
        at = added_end
    return rows


def change_size(lines: Sequence[tuple[DiffKind, str]]) -> int:
    """Lines removed and added: the "±N" of a change."""
    return sum(kind != "same" for kind, _ in lines)
