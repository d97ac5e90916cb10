import json

from webmcp_bridge import limits
from webmcp_bridge.review import (
    LiveCell,
    anchor_status,
    capped_messages,
    locate_range,
    normalize_threads,
    output_anchor,
    output_fingerprint,
    range_anchor,
    thread_summary,
)

SOURCE = "total = 0\nfor x in data:\n    total += x\nprint(total)"


def anchor_for(text: str, source: str = SOURCE) -> dict:
    start = source.index(text)
    return range_anchor("c", source, start, start + len(text))


def test_unchanged_range_is_exact():
    assert locate_range(anchor_for("total += x"), SOURCE) == ("exact", SOURCE.index("total += x"))


def test_text_moved_by_an_edit_elsewhere_is_reanchored():
    edited = "# summing\n" + SOURCE
    state, start = locate_range(anchor_for("total += x"), edited)
    assert state == "reanchored" and edited[start:].startswith("total += x")


def test_deleted_text_is_orphaned():
    assert locate_range(anchor_for("total += x"), SOURCE.replace("total += x", "pass")) == ("orphaned", None)


def test_several_occurrences_are_decided_by_context():
    source = "a = f(1)\nb = f(1)\nc = f(1)"
    anchor = anchor_for("f(1)", source)
    anchor = {**anchor, **range_anchor("c", source, source.index("b = ") + 4, source.index("b = ") + 8)}
    shifted = source.replace("b = f(1)", "bb = f(1)")  # the original position no longer holds the text
    state, start = locate_range(anchor, shifted)
    assert state == "reanchored" and shifted[start - 5 : start] == "bb = "


def test_a_tie_is_never_guessed():
    anchor = {"selectedText": "x", "range": {"start": {"line": 5, "column": 0}, "end": {"line": 5, "column": 1}}, "prefix": "", "suffix": ""}
    assert locate_range(anchor, "x x") == ("orphaned", None)


def test_anchor_status_branches():
    cell = LiveCell(2, SOURCE, [])
    exact = anchor_status(anchor_for("print(total)"), cell)
    assert exact["state"] == "exact" and exact["cellIndex"] == 2
    assert exact["range"] == {"start": {"line": 3, "column": 0}, "end": {"line": 3, "column": 12}}
    missing = anchor_status(anchor_for("print(total)"), None)
    assert missing == {"kind": "source-range", "cellId": "c", "cellExists": False, "cellIndex": None, "state": "cell-missing"}
    assert anchor_status({"kind": "cell", "cellId": "c"}, cell)["state"] == "exact"


def test_output_fingerprints_ignore_counts_and_detect_changes():
    first = {"output_type": "execute_result", "execution_count": 1, "data": {"text/plain": "42", "image/png": "AAAA"}, "metadata": {}}
    rerun = {**first, "execution_count": 7}
    other = {**first, "data": {"text/plain": "43", "image/png": "AAAA"}}
    assert output_fingerprint(first) == output_fingerprint(rerun) != output_fingerprint(other)
    anchor = output_anchor("c", [first], 0)
    assert anchor["mimeType"] == "text/plain"
    assert anchor_status(anchor, LiveCell(0, "", [rerun]))["outputChanged"] is False
    assert anchor_status(anchor, LiveCell(0, "", [other]))["outputChanged"] is True
    assert anchor_status(anchor, LiveCell(0, "", []))["outputChanged"] is True


def test_hostile_metadata_is_normalized_without_raising():
    good = {
        "id": "t1", "status": "open", "createdAt": "2026", "anchor": {"kind": "cell", "cellId": "c"},
        "messages": [{"id": "m", "author": {"kind": "human", "name": "n" * 500}, "createdAt": "2026", "body": "b" * 20_000}],
    }
    entry = {"threads": [good, None, "junk", {**good, "status": "weird"}, {**good, "anchor": {"kind": "source-range", "cellId": "c"}},
                         {**good, "messages": [{"author": "x"}]}, {**good, "id": 5}]}
    threads = normalize_threads(entry)
    assert [t["id"] for t in threads] == ["t1"]
    message = threads[0]["messages"][0]
    assert len(message["author"]["name"]) <= 80
    assert len(message["body"].encode()) <= limits.MAX_COMMENT_BODY_BYTES
    for hostile in (None, [], "x", {"threads": "x"}, {"threads": [{"anchor": []}]}):
        assert normalize_threads(hostile) == []


def test_long_threads_keep_the_first_and_most_recent_messages():
    messages = [{"id": str(i), "body": "x" * 100} for i in range(50)]
    kept, omitted = capped_messages(messages)
    assert kept[0]["id"] == "0" and kept[-1]["id"] == "49"
    assert len(kept) == limits.MAX_COMMENT_MESSAGES_RETURNED and omitted == 50 - len(kept)
    big = [{"id": str(i), "body": "y" * 6000} for i in range(10)]
    kept, omitted = capped_messages(big)
    assert len(json.dumps(kept).encode()) <= limits.MAX_COMMENT_MESSAGE_BUDGET_BYTES
    assert [m["id"] for m in kept][0] == "0" and omitted > 0


def test_summary_previews_are_bounded():
    thread = {"id": "t", "status": "open", "createdAt": "a", "updatedAt": "b", "anchor": {"kind": "cell", "cellId": "c"},
              "messages": [{"id": "m", "author": {"kind": "agent", "name": "A"}, "createdAt": "a", "body": "z" * 1000}]}
    summary = thread_summary(thread, {"kind": "cell", "cellId": "c", "cellIndex": 0, "state": "exact"})
    assert len(summary["lastMessage"]["body"]) <= limits.MAX_PREVIEW_CHARS and summary["messageCount"] == 1
