"""Byte-bounded text helpers shared by every serializer."""

import json
import re
from typing import Any

TRUNCATION_MARK = "…[truncated]"

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def clamp_utf8(text: str, max_bytes: int, mark: str = TRUNCATION_MARK) -> tuple[str, bool]:
    """Cut `text` so its UTF-8 form, `mark` included, fits `max_bytes`.

    Returns the (possibly cut) text and whether it was cut. The cut never
    splits a code point.
    """
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text, False
    room = max(0, max_bytes - utf8_len(mark))
    while 0 < room < len(data) and data[room] & 0xC0 == 0x80:  # never split a code point
        room -= 1
    return data[:room].decode("utf-8", "surrogatepass") + mark, True


def clamp_chars(text: str, max_chars: int, mark: str = TRUNCATION_MARK) -> tuple[str, bool]:
    """Cut `text` to at most `max_chars` characters, `mark` included."""
    if len(text) <= max_chars:
        return text, False
    return text[: max(0, max_chars - len(mark))] + mark, True


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def one_line(text: str) -> str:
    """Collapse all whitespace runs, newlines included, to single spaces."""
    return " ".join(text.split())


def to_json(value: Any) -> str:
    """Compact JSON as results cross to the page (non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def json_size(value: Any) -> int:
    """The UTF-8 size of a value's compact JSON: the one measure every bound uses."""
    return utf8_len(to_json(value))


def json_object(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one (stored data may hold anything)."""
    return value if isinstance(value, dict) else {}
