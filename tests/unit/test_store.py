"""review/store.py: threads as stored (the reference extension's format and this bridge's earlier one); the store
keeps every byte it does not understand."""

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyodide_webmcp.base.errors import ErrorCode, ToolError
from pyodide_webmcp.review.anchors import (
    LiveCell,
    anchor_status,
    cell_anchor,
    legacy_output_fingerprint,
)
from pyodide_webmcp.review.store import (
    AGENT_AUTHOR,
    HUMAN_AUTHOR,
    ReviewStore,
    StoredAnchor,
)

from tests.unit.review_data import NOW, thread


def test_this_bridges_earlier_format_is_read():
    source = "a = 1\nb = 2"
    legacy_range = {"kind": "source-range", "cellId": "c", "selectedText": "b = 2", "prefix": "a = 1\n", "suffix": "",
                    "range": {"start": {"line": 1, "column": 0}, "end": {"line": 1, "column": 5}}}
    assert anchor_status(StoredAnchor.read(legacy_range), LiveCell(0, source, []))["state"] == "exact"
    output = {"output_type": "stream", "name": "stdout", "text": "hi\n"}
    legacy_output = {"kind": "output", "cellId": "c", "outputIndex": 0, "fingerprint": legacy_output_fingerprint(output)}
    assert anchor_status(StoredAnchor.read(legacy_output), LiveCell(0, "", [output]))["outputChanged"] is False
    assert StoredAnchor.read(legacy_output).public()["outputFingerprint"] == legacy_output["fingerprint"]


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
