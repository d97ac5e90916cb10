"""review/threads.py: comment threads, anchored as the reference extension anchors them, and their store, which keeps
every byte it does not understand."""

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyodide_webmcp.base import limits
from pyodide_webmcp.base.errors import ErrorCode, ToolError
from pyodide_webmcp.base.hashing import output_fingerprint
from pyodide_webmcp.review.threads import (
    AGENT_AUTHOR,
    HUMAN_AUTHOR,
    LiveCell,
    ReviewStore,
    StoredAnchor,
    anchor_status,
    capped_messages,
    cell_anchor,
    legacy_output_fingerprint,
    locate_range,
    output_anchor,
    range_anchor,
    thread_summary,
)

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


# Anchors as the reference extension writes them -----------------------------------------------------------


@pytest.mark.parametrize("name", ["anchor_basic", "anchor_astral"])
def test_new_range_anchors_are_written_as_the_reference_extension_writes_them(name):
    expected = VECTORS[name]
    before = expected["prefix"]
    source = before + expected["selectedText"] + expected["suffix"]
    start = len(before)
    assert range_anchor(expected["cellId"], source, start, start + len(expected["selectedText"])) == expected


def test_a_reversed_stored_range_still_resolves_exactly():
    anchor = StoredAnchor.read(VECTORS["anchor_reversed"])
    source = "a" + "bc\nde" + "f"
    assert locate_range(anchor, source) == ("exact", 1)


def test_stored_utf16_columns_are_converted_to_characters():
    stored = VECTORS["anchor_astral"]
    source = stored["prefix"] + stored["selectedText"] + stored["suffix"]
    status = anchor_status(StoredAnchor.read(stored), LiveCell(0, source, []))
    assert status["state"] == "exact"
    assert status["range"] == {"start": {"line": 0, "column": 4}, "end": {"line": 0, "column": 8}}


def test_selected_text_over_the_bound_shrinks_the_range():
    source = "é" * 3000
    anchor = range_anchor("c", source, 0, len(source))
    assert len(anchor["selectedText"].encode()) <= limits.MAX_SELECTED_TEXT_BYTES
    assert anchor["sourceRange"]["end"]["column"] == len(anchor["selectedText"])


# Anchoring ------------------------------------------------------------------------------------------------


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
    start = source.index("b = ") + 4
    anchor = StoredAnchor.read(range_anchor("c", source, start, start + 4))
    shifted = source.replace("b = f(1)", "bb = f(1)")  # the original position no longer holds the text
    state, found = locate_range(anchor, shifted)
    assert state == "reanchored" and shifted[found - 5 : found] == "bb = "


def test_a_tie_is_never_guessed():
    raw = {"kind": "source-range", "cellId": "c", "selectedText": "x",
           "sourceRange": {"start": {"line": 5, "column": 0}, "end": {"line": 5, "column": 1}}}
    assert locate_range(StoredAnchor.read(raw), "x x") == ("orphaned", None)


def test_anchor_status_branches():
    cell = LiveCell(2, SOURCE, [])
    exact = anchor_status(anchor_for("print(total)"), cell)
    assert exact["state"] == "exact" and exact["cellIndex"] == 2
    assert exact["range"] == {"start": {"line": 3, "column": 0}, "end": {"line": 3, "column": 12}}
    missing = anchor_status(anchor_for("print(total)"), None)
    assert missing == {"kind": "source-range", "cellId": "c", "cellExists": False, "cellIndex": None, "state": "cell-missing"}
    assert anchor_status(StoredAnchor.read(cell_anchor("c")), cell)["state"] == "exact"


def test_output_fingerprints_ignore_counts_and_detect_changes():
    first = {"output_type": "execute_result", "execution_count": 1, "data": {"text/plain": "42", "image/png": "AAAA"}, "metadata": {}}
    rerun = {**first, "execution_count": 7}
    other = {**first, "data": {"text/plain": "43", "image/png": "AAAA"}}
    assert output_fingerprint(first) == output_fingerprint(rerun) != output_fingerprint(other)
    anchor = output_anchor("c", [first], 0)
    assert anchor["mimeType"] == "image/png" and anchor["outputFingerprint"] == output_fingerprint(first)
    stored = StoredAnchor.read(anchor)
    assert anchor_status(stored, LiveCell(0, "", [rerun]))["outputChanged"] is False
    assert anchor_status(stored, LiveCell(0, "", [other]))["outputChanged"] is True
    assert anchor_status(stored, LiveCell(0, "", []))["outputChanged"] is True


def test_this_bridges_earlier_format_is_read():
    source = "a = 1\nb = 2"
    legacy_range = {"kind": "source-range", "cellId": "c", "selectedText": "b = 2", "prefix": "a = 1\n", "suffix": "",
                    "range": {"start": {"line": 1, "column": 0}, "end": {"line": 1, "column": 5}}}
    assert anchor_status(StoredAnchor.read(legacy_range), LiveCell(0, source, []))["state"] == "exact"
    output = {"output_type": "stream", "name": "stdout", "text": "hi\n"}
    legacy_output = {"kind": "output", "cellId": "c", "outputIndex": 0, "fingerprint": legacy_output_fingerprint(output)}
    assert anchor_status(StoredAnchor.read(legacy_output), LiveCell(0, "", [output]))["outputChanged"] is False
    assert StoredAnchor.read(legacy_output).public()["outputFingerprint"] == legacy_output["fingerprint"]


# The store: reading like the reference extension, writing only what changed -------------------------------


def test_the_reference_extensions_lenient_reading_and_what_cannot_be_read():
    entry = {"version": 1, "threads": [
        thread("t1", {"kind": "cell", "cellId": "a"}),
        thread("t2", {"kind": "mystery", "cellId": "a"}, status="closed"),  # read as an open cell thread
        {**thread("t3", {"kind": "cell", "cellId": "b"}), "messages": []},
        {**thread("t4", {"kind": "cell", "cellId": "b"}), "messages": [{"author": "x"}, {"id": "m", "body": 5}]},
        thread("", {"kind": "cell", "cellId": "c"}),  # no id: unreadable, on cell c
        {**thread("t6", {"kind": "cell", "cellId": "d"}), "messages": "junk"},  # unreadable, on cell d
        {"id": "t7", "anchor": "junk", "messages": []},  # unreadable, cell unknown
        None, "junk",
    ]}
    store = ReviewStore(entry)
    assert [t.id for t in store.threads] == ["t1", "t2", "t3", "t4"]
    assert store.threads[1].status == "open" and store.threads[1].anchor.kind == "cell"
    assert [m["body"] for m in store.threads[3].messages] == [""]
    assert store.unreadable_count() == 2
    assert store.unreadable_count(frozenset({"d"})) == 1  # never counted on a hidden cell
    assert [t.id for t in store.visible(frozenset({"a"}))] == ["t3", "t4"]
    for hostile in (None, [], "x", {"threads": "x"}, {"threads": [{"anchor": []}]}, 7):
        store = ReviewStore(hostile)
        assert store.threads == [] and store.unreadable_count() == 0


def test_writes_keep_every_other_stored_byte():
    unreadable = {"id": 7, "anchor": {"cellId": "z"}, "messages": [], "future": {"x": [1.5, None]}}
    other = thread("t-other", {"kind": "cell", "cellId": "b", "note": "kept"}, extra={"k": 1})
    target = thread("t-target", {"kind": "cell", "cellId": "a"}, custom=True)
    entry = {"version": 1, "threads": [unreadable, target, other], "futureKey": "kept"}
    original = copy.deepcopy(entry)
    store = ReviewStore(entry)

    replied, changed = store.reply(store.find("t-target"), "answer", AGENT_AUTHOR, NOW)
    assert entry == original  # the input is never mutated
    assert replied["futureKey"] == "kept" and replied["threads"][0] == unreadable and replied["threads"][2] == other
    assert replied["threads"][1]["custom"] is True and len(replied["threads"][1]["messages"]) == 2
    assert changed.messages[-1]["author"] == AGENT_AUTHOR

    resolved, changed = ReviewStore(replied).set_status(changed, "resolved", NOW, ("done", AGENT_AUTHOR))
    assert changed.status == "resolved" and changed.messages[-1]["body"] == "done"
    assert resolved["threads"][0] == unreadable and resolved["threads"][2] == other

    created, new = ReviewStore(resolved).create(cell_anchor("b"), "new", HUMAN_AUTHOR, NOW)
    assert created["threads"][:3] == resolved["threads"] and created["threads"][3]["id"] == new.id
    assert new.messages[0]["author"] == {"kind": "human", "name": None}


def test_a_damaged_entry_is_never_overwritten():
    store = ReviewStore({"version": 1, "threads": "not a list"})
    with pytest.raises(ToolError) as refused:
        store.create(cell_anchor("a"), "x", AGENT_AUTHOR, NOW)
    assert refused.value.code is ErrorCode.REVIEW_DATA_UNREADABLE
    created, _ = ReviewStore(None).create(cell_anchor("a"), "x", AGENT_AUTHOR, NOW)
    assert created["version"] == 1 and len(created["threads"]) == 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(extra=st.dictionaries(st.text(min_size=1, max_size=6), json_values, max_size=4), junk=json_values)
def test_unknown_data_survives_every_operation(extra, junk):
    # Every field the store reads (both anchor formats); anything else is unknown data to keep.
    known = {"id", "status", "createdAt", "updatedAt", "anchor", "messages", "kind", "cellId", "sourceRange",
             "selectedText", "selectedTextHash", "prefix", "suffix", "outputFingerprint", "outputIndex", "range",
             "fingerprint", "version"}
    extra = {k: v for k, v in extra.items() if k not in known}
    entry = {"version": 1, "threads": [junk, thread("t", {"kind": "cell", "cellId": "a", **extra}, **extra)], **{
        k: v for k, v in extra.items() if k != "threads"}}
    store = ReviewStore(json.loads(json.dumps(entry)))
    target = store.find("t")
    for result, _ in (
        store.reply(target, "r", AGENT_AUTHOR, NOW),
        store.set_status(target, "resolved", NOW),
        store.reanchor(target, cell_anchor("a"), NOW),
        store.create(cell_anchor("a"), "n", AGENT_AUTHOR, NOW),
    ):
        assert json.dumps(result["threads"][0]) == json.dumps(junk)
        for key, value in extra.items():
            if key != "threads":
                assert json.dumps(result[key]) == json.dumps(value)
            assert json.dumps(result["threads"][1][key]) == json.dumps(value)


# Shaping threads for agents -------------------------------------------------------------------------------


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
