"""Notebook to portable markdown: pure, bounded, images as placeholders only."""

import re
from typing import Any, Sequence

from ..base import limits
from ..base.text import json_size
from ..port import CellRecord
from .outputs import serialize_output

_BACKTICK_RUNS = re.compile(r"`+")


def fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run inside `text` (at least three)."""
    longest = max((len(run) for run in _BACKTICK_RUNS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def fenced(text: str, language: str = "") -> str:
    fence = fence_for(text)
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}"


def output_blocks(output: dict[str, Any]) -> list[str]:
    """Markdown for one output, through the same serializer (and bounds) as jupyter_get_cells."""
    shown = serialize_output(output)
    blocks = []
    if shown["outputType"] == "error":
        blocks.append(fenced(shown["traceback"] or f"{shown['ename']}: {shown['evalue']}"))
    elif shown.get("text"):
        blocks.append(fenced(shown["text"]))
    elif shown.get("textData"):
        blocks.append(fenced(shown["textData"][0]["text"]))
    elif shown.get("html"):
        blocks.append(fenced(shown["html"]))
    for media in shown.get("media", []):
        blocks.append(f"![output]({media['mimeType']}, {media['bytes']} bytes — not included)")
    return blocks


def cell_markdown(record: CellRecord, cell: dict[str, Any], include_outputs: bool) -> str:
    if record.type == "markdown":
        return record.source
    if record.type != "code":
        return fenced(record.source)
    parts = [fenced(record.source, "python")]
    if include_outputs:
        for output in cell.get("outputs") or []:
            parts.extend(output_blocks(output))
    return "\n\n".join(parts)


def export_markdown(
    cells: Sequence[tuple[CellRecord, dict[str, Any]]], include_outputs: bool
) -> tuple[str, bool, int, int]:
    """(document, truncated, exported cell count, hidden cell count) for the cells in notebook order."""
    walked = cells[: limits.MAX_EXPORT_CELLS]
    truncated = len(cells) > len(walked)
    blocks: list[str] = []
    size = hidden = 0
    for record, cell in walked:
        if record.hidden:
            hidden += 1
            continue
        block = cell_markdown(record, cell, include_outputs)
        cost = json_size(block + "\n\n") - 2  # as it counts inside the result's JSON
        if size + cost > limits.MAX_EXPORT_BYTES:
            truncated = True
            break
        blocks.append(block)
        size += cost
    return "\n\n".join(blocks) + ("\n" if blocks else ""), truncated, len(blocks), hidden
