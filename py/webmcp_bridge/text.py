"""Byte-bounded text helpers shared by every serializer."""

import re

TRUNCATION_MARK = "…[truncated]"

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def clamp_utf8(text: str, max_bytes: int, mark: str = TRUNCATION_MARK) -> tuple[str, bool]:
    """Cut `text` so its UTF-8 form, `mark` included, fits `max_bytes`.

    Returns the (possibly cut) text and whether it was cut. The cut never
    splits a code point.
    """
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text, False
    room = max(0, max_bytes - utf8_len(mark))
    head = data[:room].decode("utf-8", errors="ignore")
    return head + mark, True


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
