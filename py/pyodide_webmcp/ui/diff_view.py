"""A diff as the human sees it: one row per line, removed and added lines marked, and inside a replaced line the
words that changed (as <del> and <ins>, so assistive technology reads them too)."""

from typing import Any, Sequence

from ..base.shapes import DiffKind
from .page import Page
from .word_diff import MAX_SHOWN_ROWS, diff_rows

MARKS: dict[DiffKind, str] = {"same": " ", "removed": "−", "added": "+"}
SPOKEN: dict[DiffKind, str] = {"same": "", "removed": "removed: ", "added": "added: "}


def diff_view(page: Page, lines: Sequence[tuple[DiffKind, str]], label: str) -> Any:
    """The diff of `lines` (kind, text), under an accessible name."""
    box = page.element("div", **{"class": "jp-webmcp-diff", "role": "group", "aria-label": label})
    rows = diff_rows(lines)
    for row in rows[:MAX_SHOWN_ROWS]:
        node = page.element("div", **{"class": f"jp-webmcp-diff-row jp-webmcp-diff-{row.kind}"})
        node.appendChild(page.element("span", MARKS[row.kind], **{"class": "jp-webmcp-diff-mark", "aria-hidden": "true"}))
        if SPOKEN[row.kind]:
            node.appendChild(page.element("span", SPOKEN[row.kind], **{"class": "jp-webmcp-sr-only"}))
        for changed, text in row.segments:
            tag = ("del" if row.kind == "removed" else "ins") if changed and row.kind != "same" else "span"
            node.appendChild(page.element(tag, text))
        box.appendChild(node)
    if len(rows) > MAX_SHOWN_ROWS:
        box.appendChild(page.element("div", f"… {len(rows) - MAX_SHOWN_ROWS} more lines", **{"class": "jp-webmcp-diff-more"}))
    return box
