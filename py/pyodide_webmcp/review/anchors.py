"""Review anchors: a new one made in the reference extension's format, and where a stored one points in the live
notebook now (a source range re-found by its text and context, never guessed; an output checked by its
fingerprint). Pure."""

import json
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Optional, Sequence, get_args

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..base import hashing, limits
from ..base.fields import CellIdField, CellIndexField, OutputIndexField, TextField
from ..base.hashing import sha256_hex, stable_hash, utf16_units
from ..base.memo import JsonMemo
from ..base.mime import is_text_like, media_size
from ..base.positions import from_utf16, position_of, strict_offset, to_utf16
from ..base.text import clamp_utf8, json_object
from .store import AnchorKind, Range, StoredAnchor

DetachedState = Literal["orphaned", "cell-missing"]
"""An anchor that no longer points anywhere: its text is not found once, or its cell is gone."""
DETACHED_STATES: tuple[DetachedState, ...] = get_args(DetachedState)
AnchorState = Literal["exact", "reanchored", DetachedState]

# Every read of a thread re-checks its output anchor: a long output is hashed once, then only compared.
output_fingerprint = JsonMemo(hashing.output_fingerprint)


class AnchorStatus(TypedDict):
    """Where an anchor points in the live notebook now; `range` counts columns in characters."""

    kind: Annotated[AnchorKind, Field(description="What kind of thing this is.")]
    cellId: CellIdField
    cellExists: Annotated[bool, Field(description="Whether the anchored cell still exists.")]
    cellIndex: CellIndexField
    state: Annotated[AnchorState, Field(description=(
        "exact (still where it was), reanchored (found elsewhere), orphaned (not found) or cell-missing."))]
    range: NotRequired[Annotated[Range, Field(description="Where the text is now, columns in characters.")]]
    text: NotRequired[TextField]
    outputIndex: NotRequired[OutputIndexField]
    outputChanged: NotRequired[Annotated[bool, Field(description=(
        "Whether the anchored output was replaced or removed since."))]]


def cell_anchor(cell_id: str) -> dict[str, Any]:
    return {"kind": "cell", "cellId": cell_id}


def range_anchor(cell_id: str, source: str, start: int, end: int) -> dict[str, Any]:
    """A source-range anchor for source[start:end] (character offsets), with its context.

    The selected text is cut to MAX_SELECTED_TEXT_BYTES (the range shrinks with
    it); the context is MAX_ANCHOR_CONTEXT_CHARS UTF-16 code units either side.
    """
    start, end = sorted((start, end))
    text = clamp_utf8(source[start:end], limits.MAX_SELECTED_TEXT_BYTES, "")[0]
    end = start + len(text)
    encoded = source.encode("utf-16-le", "surrogatepass")
    low, high = utf16_units(source[:start]), utf16_units(source[:end])
    context = limits.MAX_ANCHOR_CONTEXT_CHARS
    return {
        "kind": "source-range",
        "cellId": cell_id,
        "sourceRange": {
            "start": to_utf16(source, position_of(source, start)),
            "end": to_utf16(source, position_of(source, end)),
        },
        "selectedText": text,
        "selectedTextHash": stable_hash(text),
        "prefix": encoded[2 * max(0, low - context) : 2 * low].decode("utf-16-le", "surrogatepass"),
        "suffix": encoded[2 * high : 2 * (high + context)].decode("utf-16-le", "surrogatepass"),
    }


def primary_mime(output: dict[str, Any]) -> Optional[str]:
    """The MIME type an output is shown as: HTML, else an image, else plain text, else the first."""
    if output.get("output_type") == "stream":
        return "text/plain"
    if output.get("output_type") == "error":
        return "application/vnd.jupyter.error"
    data = json_object(output.get("data"))
    if not data:
        return None
    if "text/html" in data:
        return "text/html"
    image = next((mime for mime in data if mime.startswith("image/")), None)
    return image or ("text/plain" if "text/plain" in data else next(iter(data)))


def output_anchor(cell_id: str, outputs: Sequence[dict[str, Any]], index: int) -> dict[str, Any]:
    output = outputs[index]
    anchor = {"kind": "output", "cellId": cell_id, "outputIndex": index, "outputFingerprint": output_fingerprint(output)}
    mime = primary_mime(output)
    if mime is not None:
        anchor["mimeType"] = mime
    return anchor


@dataclass(frozen=True)
class LiveCell:
    index: int
    source: str
    outputs: Sequence[dict[str, Any]]


def _legacy_fingerprint(output: dict[str, Any]) -> str:
    """The output fingerprint this bridge stored before it wrote the reference extension's format."""
    reduced = {key: value for key, value in output.items() if key != "execution_count"}
    data = reduced.get("data")
    if isinstance(data, dict):
        reduced["data"] = {
            mime: (value if is_text_like(mime) or mime == "text/plain" else f"{mime}:{media_size(value)}")
            for mime, value in data.items()
        }
    return sha256_hex(json.dumps(reduced, sort_keys=True, ensure_ascii=False, default=str))


legacy_output_fingerprint = JsonMemo(_legacy_fingerprint)


def _occurrences(source: str, text: str) -> list[int]:
    found, at = [], source.find(text)
    while at >= 0:
        found.append(at)
        at = source.find(text, at + len(text))
    return found


def _common_suffix(a: str, b: str) -> int:
    count = 0
    while count < min(len(a), len(b)) and a[-1 - count] == b[-1 - count]:
        count += 1
    return count


def _common_prefix(a: str, b: str) -> int:
    count = 0
    while count < min(len(a), len(b)) and a[count] == b[count]:
        count += 1
    return count


def _stored_offsets(anchor: StoredAnchor, source: str) -> Optional[tuple[int, int]]:
    """The stored range as character offsets (either order), or None when it lies outside the source."""
    if anchor.range is None:
        return None
    offsets = []
    for point in (anchor.range["start"], anchor.range["end"]):
        if anchor.range_in_utf16:
            lines = source.split("\n")
            if not 0 <= point["line"] < len(lines) or not 0 <= point["column"] <= utf16_units(lines[point["line"]]):
                return None
            point = from_utf16(source, point)
        offset = strict_offset(source, point)
        if offset is None:
            return None
        offsets.append(offset)
    low, high = sorted(offsets)
    return low, high


def locate_range(anchor: StoredAnchor, source: str) -> tuple[AnchorState, Optional[int]]:
    """('exact'|'reanchored', start offset) or ('orphaned', None); a tie is never guessed."""
    text = anchor.selected_text
    if not text:
        return "orphaned", None
    stored = _stored_offsets(anchor, source)
    if stored is not None and source[stored[0] : stored[1]] == text:
        return "exact", stored[0]
    occurrences = _occurrences(source, text)
    if not occurrences:
        return "orphaned", None
    if len(occurrences) == 1:
        return "reanchored", occurrences[0]
    scores = [
        _common_suffix(anchor.prefix, source[max(0, at - len(anchor.prefix)) : at])
        + _common_prefix(anchor.suffix, source[at + len(text) : at + len(text) + len(anchor.suffix)])
        for at in occurrences
    ]
    best = max(scores)
    if scores.count(best) > 1:
        return "orphaned", None
    return "reanchored", occurrences[scores.index(best)]


def _output_changed(anchor: StoredAnchor, outputs: Sequence[dict[str, Any]]) -> bool:
    if anchor.output_index >= len(outputs):
        return True
    if anchor.fingerprint is None:
        return False
    current = outputs[anchor.output_index]
    hashed = legacy_output_fingerprint(current) if anchor.legacy_fingerprint else output_fingerprint(current)
    return hashed != anchor.fingerprint


def anchor_status(anchor: StoredAnchor, cell: Optional[LiveCell]) -> AnchorStatus:
    """Where the anchor points in the live notebook now."""
    status: AnchorStatus = {
        "kind": anchor.kind,
        "cellId": anchor.cell_id,
        "cellExists": cell is not None,
        "cellIndex": cell.index if cell is not None else None,
        "state": "exact",
    }
    if cell is None:
        status["state"] = "cell-missing"
        if anchor.kind == "output":
            status["outputIndex"] = anchor.output_index
            status["outputChanged"] = True
        return status
    if anchor.kind == "source-range":
        state, start = locate_range(anchor, cell.source)
        status["state"] = state
        status["text"] = clamp_utf8(anchor.selected_text or "", limits.MAX_SELECTED_TEXT_BYTES)[0]
        if start is not None:
            end = start + len(anchor.selected_text or "")
            status["range"] = {"start": position_of(cell.source, start), "end": position_of(cell.source, end)}
    elif anchor.kind == "output":
        status["outputIndex"] = anchor.output_index
        status["outputChanged"] = _output_changed(anchor, cell.outputs)
    return status


