"""The result envelope every tool returns, bounded to MAX_TOTAL_RESULT_BYTES.

An envelope is `{content: [{type: "text", text}], structuredContent?, isError?}` where `text` is
the payload as compact JSON (the reference extension's contract: clients parse `content[0].text`). Only
`content` and `isError` cross to the page (`wire`): every WebMCP client serializes the tool's
whole return value for the model, so a `structuredContent` beside the text made the model read
each payload twice, and neither Chromium nor the MCP servers pass it on as structured content.
It stays on the Python side, where a tool that hands on another call's result (with
`answered` added, say) reads it.
"""

import copy
from dataclasses import dataclass
from typing import Any, Generic, Iterator, TypeVar

from ..base import limits
from ..base.text import json_size as _size
from ..base.text import to_json, utf8_len

Shape = TypeVar("Shape")


class Delivered(dict[str, Any], Generic[Shape]):
    """An envelope a tool hands back as it is: the result of another call, of that call's shape."""


@dataclass(frozen=True)
class WithImages(Generic[Shape]):
    """A tool's result, and images to return beside its text as MCP image content."""

    payload: Shape
    images: list[dict[str, str]]


def with_images(envelope: dict[str, Any], images: list[dict[str, str]]) -> dict[str, Any]:
    """The envelope with image content items after its text (bounded separately, per image)."""
    return {**envelope, "content": [*envelope["content"], *images]}


TRUNCATION_REASON = "The result did not fit the size bound even after dropping list items."


def _object_arrays(value: Any, owner: Any = None) -> Iterator[tuple[Any, list[Any]]]:
    """Yield (owner, list) for every non-empty list of objects inside `value`."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _object_arrays(item, value)
    elif isinstance(value, list):
        if value and all(isinstance(item, dict) for item in value):
            yield owner, value
        for item in value:
            yield from _object_arrays(item, value)


def _trim_largest_array(root: dict[str, Any], excess: int) -> bool:
    """Drop trailing items of the largest object array; False when none is left."""
    candidates = list(_object_arrays(root))
    if not candidates:
        return False
    owner, array = max(candidates, key=lambda pair: _size(pair[1]))
    freed, dropped = 0, 0
    while array and (freed < excess or dropped == 0):
        freed += _size(array.pop()) + 1
        dropped += 1
    if isinstance(owner, dict):
        owner["truncated"] = True
        owner["omittedCount"] = owner.get("omittedCount", 0) + dropped
    root["truncated"] = True
    return True


def _text_result(text: str, structured: Any = None, is_error: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if structured is not None:
        result["structuredContent"] = structured
    if is_error:
        result["isError"] = True
    return result


def _last_resort(text: str, max_bytes: int) -> str:
    """A `{truncated, reason, maxBytes, partial}` envelope that fits `max_bytes`."""
    envelope = {"truncated": True, "reason": TRUNCATION_REASON, "maxBytes": max_bytes, "partial": ""}
    room = max_bytes - _size(envelope)
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if _size(text[:middle]) - 2 <= room:
            low = middle
        else:
            high = middle - 1
    envelope["partial"] = text[:low]
    return to_json(envelope)


def wire(envelope: dict[str, Any]) -> dict[str, Any]:
    """What crosses to the page: the payload once, as `content[0].text`, and `isError` on a failure."""
    sent: dict[str, Any] = {"content": envelope["content"]}
    if envelope.get("isError"):
        sent["isError"] = True
    return sent


def success(payload: Any, max_bytes: int = limits.MAX_TOTAL_RESULT_BYTES) -> dict[str, Any]:
    """Wrap a tool's return value, trimming its largest object arrays to fit."""
    text = to_json(payload)
    size = utf8_len(text)
    if size <= max_bytes:
        return _text_result(text, payload)
    if isinstance(payload, dict):
        trimmed = copy.deepcopy(payload)
        while size > max_bytes and _trim_largest_array(trimmed, size - max_bytes):
            text = to_json(trimmed)
            size = utf8_len(text)
        if size <= max_bytes:
            return _text_result(text, trimmed)
    return _text_result(_last_resort(to_json(payload), max_bytes))


def failure(error: dict[str, Any], max_bytes: int = limits.MAX_TOTAL_RESULT_BYTES) -> dict[str, Any]:
    """Wrap a structured error; one still over the bound keeps only error and message."""
    if _size(error) > max_bytes:
        error = {"error": error["error"], "message": error["message"]}
    return _text_result(to_json(error), error, is_error=True)
