"""What the review tests share: the reference extension's vectors, a source, a time, and thread builders."""

import json
from pathlib import Path

from pyodide_webmcp.review.anchors import range_anchor
from pyodide_webmcp.review.store import StoredAnchor

VECTORS = json.loads((Path(__file__).parent / "data" / "reference_vectors.json").read_text())
SOURCE = "total = 0\nfor x in data:\n    total += x\nprint(total)"
NOW = "2026-11-30T12:00:00.000Z"


def anchor_for(text: str, source: str = SOURCE) -> StoredAnchor:
    start = source.index(text)
    return StoredAnchor.read(range_anchor("c", source, start, start + len(text)))


def thread(thread_id: str, anchor: dict, **extra) -> dict:
    message = {"id": f"m-{thread_id}", "author": {"kind": "human", "name": None}, "createdAt": NOW, "body": "hi"}
    return {"id": thread_id, "status": "open", "createdAt": NOW, "updatedAt": NOW, "anchor": anchor,
            "messages": [message], **extra}
