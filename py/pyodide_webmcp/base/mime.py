"""MIME bundle payloads, as nbformat stores them: which are text, and how large a payload is."""

import json
from typing import Any

from .text import utf8_len

_TEXT_LIKE_EXACT = {"application/json", "application/javascript", "application/x-latex"}


def joined(value: Any) -> str:
    """nbformat multiline strings may be lists of lines."""
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def is_text_like(mime_type: str) -> bool:
    if mime_type.startswith("image/"):
        return False
    return (
        mime_type.startswith("text/")
        or mime_type in _TEXT_LIKE_EXACT
        or mime_type.endswith("+json")
        or mime_type.endswith("+xml")
    )


def looks_base64(text: str) -> bool:
    compact = "".join(text.split())
    return bool(compact) and all(char.isalnum() or char in "+/=" for char in compact)


def media_size(value: Any) -> int:
    """Approximate payload size in bytes (base64 is decoded arithmetically)."""
    text = joined(value)
    if looks_base64(text):
        compact = "".join(text.split())
        return len(compact) * 3 // 4 - compact.count("=")
    return utf8_len(text)
