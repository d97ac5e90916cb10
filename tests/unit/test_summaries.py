"""review/summaries.py: threads as the tools show them, bounded."""

import json

from pyodide_webmcp.base import limits
from pyodide_webmcp.review.anchors import (
    LiveCell,
    anchor_status,
)
from pyodide_webmcp.review.store import (
    AGENT_AUTHOR,
    ReviewStore,
)
from pyodide_webmcp.review.summaries import capped_messages, thread_summary

from tests.unit.review_data import NOW, thread


def test_long_threads_keep_the_first_and_most_recent_messages():
    messages = [{"id": str(i), "author": AGENT_AUTHOR, "createdAt": NOW, "body": "x" * 100} for i in range(50)]
    kept, omitted = capped_messages(messages)
    assert kept[0]["id"] == "0" and kept[-1]["id"] == "49"
    assert len(kept) == limits.MAX_COMMENT_MESSAGES_RETURNED and omitted == 50 - len(kept)
    big = [{"id": str(i), "author": AGENT_AUTHOR, "createdAt": NOW, "body": "y" * 6000} for i in range(10)]
    kept, omitted = capped_messages(big)
    assert len(json.dumps(kept).encode()) <= limits.MAX_COMMENT_MESSAGE_BUDGET_BYTES
    assert [m["id"] for m in kept][0] == "0" and omitted > 0
    assert capped_messages([]) == ([], 0)


def test_summary_previews_are_bounded_and_an_empty_thread_has_no_last_message():
    raw = thread("t", {"kind": "cell", "cellId": "c"})
    raw["messages"][0]["body"] = "z" * 1000
    stored = ReviewStore({"threads": [raw]}).threads[0]
    status = anchor_status(stored.anchor, LiveCell(0, "", []))
    summary = thread_summary(stored, status)
    assert len(summary["lastMessage"]["body"]) <= limits.MAX_PREVIEW_CHARS and summary["messageCount"] == 1
    empty = ReviewStore({"threads": [{**raw, "messages": []}]}).threads[0]
    assert thread_summary(empty, status)["lastMessage"] is None
