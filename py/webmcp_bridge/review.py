"""Review threads stored in notebook metadata, and anchoring that never guesses.

Everything here is pure: the adapter reads and writes the metadata entry, the
tools and the Comments tab share these rules.
"""

import hashlib
import json
import uuid
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from . import limits
from .outputs import is_text_like, media_size
from .snapshots import editor_coordinates
from .text import clamp_chars, clamp_utf8

REVIEW_KEY = "jupyterlite_webmcp_review"
REVIEW_VERSION = 1
AGENT_AUTHOR = {"kind": "agent", "name": "Browser agent"}
ANCHOR_KINDS = ("cell", "source-range", "output")
MAX_ID_CHARS = 64
MAX_STAMP_CHARS = 40
MAX_NAME_CHARS = 80


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


# Normalization of stored data -----------------------------------------------------------------


def _text(value: Any, max_chars: int) -> Optional[str]:
    return clamp_chars(value, max_chars)[0] if isinstance(value, str) else None


def _position(value: Any) -> Optional[dict[str, int]]:
    if isinstance(value, dict) and all(isinstance(value.get(k), int) and value[k] >= 0 for k in ("line", "column")):
        return {"line": value["line"], "column": value["column"]}
    return None


def _anchor(raw: Any) -> Optional[dict[str, Any]]:
    if not isinstance(raw, dict) or raw.get("kind") not in ANCHOR_KINDS:
        return None
    cell_id = _text(raw.get("cellId"), MAX_ID_CHARS)
    if not cell_id:
        return None
    anchor: dict[str, Any] = {"kind": raw["kind"], "cellId": cell_id}
    if raw["kind"] == "source-range":
        selected = raw.get("selectedText")
        start, end = _position((raw.get("range") or {}).get("start")), _position((raw.get("range") or {}).get("end"))
        if not isinstance(selected, str) or not selected or start is None or end is None:
            return None
        anchor["selectedText"] = clamp_utf8(selected, limits.MAX_SELECTED_TEXT_BYTES, "")[0]
        anchor["range"] = {"start": start, "end": end}
        anchor["prefix"] = _text(raw.get("prefix"), limits.MAX_ANCHOR_CONTEXT_CHARS) or ""
        anchor["suffix"] = _text(raw.get("suffix"), limits.MAX_ANCHOR_CONTEXT_CHARS) or ""
    elif raw["kind"] == "output":
        if not isinstance(raw.get("outputIndex"), int) or raw["outputIndex"] < 0:
            return None
        anchor["outputIndex"] = raw["outputIndex"]
        anchor["fingerprint"] = _text(raw.get("fingerprint"), MAX_ID_CHARS) or ""
        anchor["mimeType"] = _text(raw.get("mimeType"), MAX_NAME_CHARS) or ""
    return anchor


def _message(raw: Any) -> Optional[dict[str, Any]]:
    if not isinstance(raw, dict):
        return None
    author = raw.get("author") if isinstance(raw.get("author"), dict) else {}
    body, stamp, message_id = raw.get("body"), _text(raw.get("createdAt"), MAX_STAMP_CHARS), _text(raw.get("id"), MAX_ID_CHARS)
    if not isinstance(body, str) or not stamp or not message_id or author.get("kind") not in ("human", "agent"):
        return None
    return {
        "id": message_id,
        "author": {"kind": author["kind"], "name": _text(author.get("name"), MAX_NAME_CHARS) or author["kind"]},
        "createdAt": stamp,
        "body": clamp_utf8(body, limits.MAX_COMMENT_BODY_BYTES)[0],
    }


def normalize_threads(entry: Any) -> list[dict[str, Any]]:
    """Well-formed threads from the stored entry; anything malformed or foreign is dropped, never raised."""
    raw_threads = entry.get("threads") if isinstance(entry, dict) else None
    threads = []
    for raw in raw_threads if isinstance(raw_threads, list) else []:
        if not isinstance(raw, dict) or raw.get("status") not in ("open", "resolved"):
            continue
        anchor = _anchor(raw.get("anchor"))
        messages = [m for m in (_message(item) for item in raw.get("messages") or []) if m is not None]
        thread_id, created = _text(raw.get("id"), MAX_ID_CHARS), _text(raw.get("createdAt"), MAX_STAMP_CHARS)
        if anchor is None or not messages or not thread_id or not created:
            continue
        threads.append(
            {
                "id": thread_id,
                "status": raw["status"],
                "createdAt": created,
                "updatedAt": _text(raw.get("updatedAt"), MAX_STAMP_CHARS) or created,
                "anchor": anchor,
                "messages": messages,
            }
        )
    return threads


def stored_entry(threads: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": REVIEW_VERSION, "threads": threads}


# Fingerprints ---------------------------------------------------------------------------------


def _reduced(output: dict[str, Any]) -> dict[str, Any]:
    reduced = {key: value for key, value in output.items() if key != "execution_count"}
    data = reduced.get("data")
    if isinstance(data, dict):
        reduced["data"] = {
            mime: (value if is_text_like(mime) or mime == "text/plain" else f"{mime}:{media_size(value)}")
            for mime, value in data.items()
        }
    return reduced


def output_fingerprint(output: dict[str, Any]) -> str:
    """Stable across re-runs that produce the same output (execution count ignored, binaries by size)."""
    encoded = json.dumps(_reduced(output), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:16]


def primary_mime(output: dict[str, Any]) -> str:
    if output.get("output_type") == "stream":
        return "text/plain"
    if output.get("output_type") == "error":
        return "application/vnd.jupyter.error"
    data = output.get("data") if isinstance(output.get("data"), dict) else {}
    return next(iter(data), "text/plain")


# Anchoring ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LiveCell:
    index: int
    source: str
    outputs: Sequence[dict[str, Any]]


def strict_offset(source: str, position: dict[str, int]) -> Optional[int]:
    """The offset of a (line, character column) position, or None when it is outside the source."""
    lines = source.split("\n")
    if position["line"] >= len(lines) or position["column"] > len(lines[position["line"]]):
        return None
    return sum(len(line) + 1 for line in lines[: position["line"]]) + position["column"]


def _position_of(source: str, offset: int) -> dict[str, int]:
    before = source[:offset]
    return {"line": before.count("\n"), "column": offset - (before.rfind("\n") + 1)}


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


def locate_range(anchor: dict[str, Any], source: str) -> tuple[str, Optional[int]]:
    """('exact'|'reanchored', start offset) or ('orphaned', None); a tie is never guessed."""
    text = anchor["selectedText"]
    start = strict_offset(source, anchor["range"]["start"])
    if start is not None and source[start : start + len(text)] == text:
        return "exact", start
    occurrences = []
    found = source.find(text)
    while found >= 0:
        occurrences.append(found)
        found = source.find(text, found + 1)
    if not occurrences:
        return "orphaned", None
    if len(occurrences) == 1:
        return "reanchored", occurrences[0]
    scores = [
        _common_suffix(anchor["prefix"], source[max(0, at - len(anchor["prefix"])) : at])
        + _common_prefix(anchor["suffix"], source[at + len(text) : at + len(text) + len(anchor["suffix"])])
        for at in occurrences
    ]
    best = max(scores)
    if scores.count(best) > 1:
        return "orphaned", None
    return "reanchored", occurrences[scores.index(best)]


def anchor_status(anchor: dict[str, Any], cell: Optional[LiveCell]) -> dict[str, Any]:
    """Where the anchor points in the live notebook now."""
    status: dict[str, Any] = {"kind": anchor["kind"], "cellId": anchor["cellId"], "cellExists": cell is not None}
    status["cellIndex"] = cell.index if cell is not None else None
    if cell is None:
        status["state"] = "cell-missing"
        if anchor["kind"] == "output":
            status.update(outputIndex=anchor["outputIndex"], outputChanged=True)
        return status
    if anchor["kind"] == "source-range":
        state, start = locate_range(anchor, cell.source)
        status["state"] = state
        status["text"] = anchor["selectedText"]
        if start is not None:
            end = start + len(anchor["selectedText"])
            status["range"] = {"start": _position_of(cell.source, start), "end": _position_of(cell.source, end)}
    else:
        status["state"] = "exact"
    if anchor["kind"] == "output":
        index = anchor["outputIndex"]
        current = cell.outputs[index] if index < len(cell.outputs) else None
        status["outputIndex"] = index
        status["outputChanged"] = current is None or output_fingerprint(current) != anchor["fingerprint"]
    return status


def editor_selection(status: dict[str, Any], source: str) -> Optional[tuple[tuple[int, int], tuple[int, int]]]:
    """The resolved range of a source-range anchor as editor coordinates, or None."""
    if "range" not in status:
        return None
    start, end = (editor_coordinates(source, status["range"][side]) for side in ("start", "end"))
    return start, end


def range_anchor(cell_id: str, source: str, start: int, end: int) -> dict[str, Any]:
    """A source-range anchor for source[start:end], with its context."""
    context = limits.MAX_ANCHOR_CONTEXT_CHARS
    return {
        "kind": "source-range",
        "cellId": cell_id,
        "selectedText": source[start:end],
        "range": {"start": _position_of(source, start), "end": _position_of(source, end)},
        "prefix": source[max(0, start - context) : start],
        "suffix": source[end : end + context],
    }


def output_anchor(cell_id: str, outputs: Sequence[dict[str, Any]], index: int) -> dict[str, Any]:
    output = outputs[index]
    return {
        "kind": "output",
        "cellId": cell_id,
        "outputIndex": index,
        "fingerprint": output_fingerprint(output),
        "mimeType": primary_mime(output),
    }


# Shaping threads for agents -------------------------------------------------------------------


def capped_messages(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The first message plus the most recent ones that fit the count and byte caps; how many were left out."""
    budget = limits.MAX_COMMENT_MESSAGE_BUDGET_BYTES - len(json.dumps(messages[0]).encode("utf-8"))
    recent: list[dict[str, Any]] = []
    for message in reversed(messages[1:]):
        size = len(json.dumps(message).encode("utf-8"))
        if len(recent) + 1 >= limits.MAX_COMMENT_MESSAGES_RETURNED or size > budget:
            break
        recent.append(message)
        budget -= size
    kept = [messages[0], *reversed(recent)]
    return kept, len(messages) - len(kept)


def public_thread(thread: dict[str, Any]) -> tuple[dict[str, Any], int]:
    messages, omitted = capped_messages(thread["messages"])
    return {**thread, "messages": messages}, omitted


def counts(threads: Sequence[dict[str, Any]]) -> dict[str, int]:
    return {"openThreads": sum(t["status"] == "open" for t in threads), "totalThreads": len(threads)}


def thread_summary(thread: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    last = thread["messages"][-1]
    anchor = {key: status[key] for key in ("kind", "cellId", "cellIndex", "state") if key in status}
    if "text" in status:
        anchor["selectedText"] = clamp_chars(status["text"], limits.MAX_PREVIEW_CHARS)[0]
    for key in ("outputIndex", "outputChanged"):
        if key in status:
            anchor[key] = status[key]
    return {
        "threadId": thread["id"],
        "status": thread["status"],
        "createdAt": thread["createdAt"],
        "updatedAt": thread["updatedAt"],
        "messageCount": len(thread["messages"]),
        "anchor": anchor,
        "lastMessage": {
            "author": last["author"],
            "createdAt": last["createdAt"],
            "body": clamp_chars(last["body"], limits.MAX_PREVIEW_CHARS)[0],
        },
    }
