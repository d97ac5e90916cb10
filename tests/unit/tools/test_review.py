"""tools/review.py: the comment tools on the in-memory lab."""

import copy

import pytest
from pyodide_webmcp.base import hashing, limits
from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call, cell
from pyodide_webmcp.review import anchors as review_anchors

LONG = {"output_type": "stream", "name": "stdout", "text": "x" * 99 + "\n" + "y" * (hashing.FNV_FINGERPRINT_CHARS * 4)}


def output_changed(listed):
    return {t["threadId"]: t["anchor"]["outputChanged"] for t in listed["threads"] if "outputChanged" in t["anchor"]}


class CopyingNotebook(MemoryNotebook):
    """Hands out a fresh copy on every read, as the adapter does when the document changed, and counts the reads."""

    cell_reads = output_reads = 0

    def cell_json(self, index):
        self.cell_reads += 1
        return copy.deepcopy(super().cell_json(index))

    def cell_outputs(self, index):
        self.output_reads += 1
        return copy.deepcopy(super().cell_outputs(index))


def test_comment_tools_hash_a_long_output_once_and_read_outputs_only_for_output_anchors(monkeypatch):
    printed = {**cell("print(x)", cell_id="big"), "outputs": [LONG]}
    notebook = CopyingNotebook("long.ipynb", [printed, cell("y = 1", cell_id="small")])
    lab = MemoryLab(notebook)
    calls = []  # every output the memo hashed
    monkeypatch.setattr(review_anchors.output_fingerprint, "compute",
                        lambda output: calls.append(output) or hashing.output_fingerprint(output))
    review_anchors.output_fingerprint.clear()
    on_output = call(lab, "jupyter_create_comment", {"anchor": {"kind": "output", "cellId": "big"}, "message": "m"})
    call(lab, "jupyter_create_comment", {"anchor": {"kind": "cell", "cellId": "big"}, "message": "n"})
    notebook.cell_reads = notebook.output_reads = 0
    for _ in range(3):
        assert output_changed(call(lab, "jupyter_list_comments", {})) == {on_output["thread"]["id"]: False}
    assert notebook.output_reads == 3 and notebook.cell_reads == 0  # the whole-cell thread reads no outputs
    shown = call(lab, "jupyter_get_comment", {"threadId": on_output["thread"]["id"]})
    assert shown["anchorStatus"]["outputChanged"] is False and shown["context"]["cell"]["outputs"]
    assert notebook.cell_reads == 1 and len(calls) == 1  # one read serves the anchor and the context
    notebook.data[0]["outputs"] = [{**LONG, "text": "x" + LONG["text"][1:-1] + "!"}]
    assert output_changed(call(lab, "jupyter_list_comments", {})) == {on_output["thread"]["id"]: True}
    assert len(calls) == 2


@pytest.mark.parametrize("count", [2, 25])
def test_every_tool_that_returns_a_thread_returns_it_as_jupyter_get_comment_does(count):
    """One cap for all five: the first message, then the most recent, 20 at most, the rest counted."""
    lab = MemoryLab(MemoryNotebook("review.ipynb", [cell("x = 1", cell_id="c")]))
    created = call(lab, "jupyter_create_comment", {"anchor": {"kind": "cell", "cellId": "c"}, "message": "first"})
    thread_id = created["thread"]["id"]

    def as_read():
        read = call(lab, "jupyter_get_comment", {"threadId": thread_id})
        return read["thread"], read["omittedMessages"]

    assert (created["thread"], created["omittedMessages"]) == as_read()
    for number in range(1, count):
        replied = call(lab, "jupyter_reply_comment", {"threadId": thread_id, "message": f"reply {number}"})
        assert (replied["thread"], replied["omittedMessages"]) == as_read()
    for name in ("jupyter_resolve_comment", "jupyter_reopen_comment"):
        changed = call(lab, name, {"threadId": thread_id})
        assert (changed["thread"], changed["omittedMessages"]) == as_read(), name
    thread, omitted = as_read()
    shown = min(count, limits.MAX_COMMENT_MESSAGES_RETURNED)
    assert len(thread["messages"]) == shown and omitted == count - shown
    assert [m["body"] for m in thread["messages"]][:1] == ["first"]
    assert thread["messages"][-1]["body"] == f"reply {count - 1}" and thread["status"] == "open"
    closed = call(lab, "jupyter_resolve_comment", {"threadId": thread_id, "resolutionMessage": "done"})
    assert (closed["thread"], closed["omittedMessages"]) == as_read()
    assert closed["thread"]["messages"][-1]["body"] == "done" and closed["thread"]["status"] == "resolved"


def test_a_thread_is_started_on_a_cell_on_text_of_it_or_on_an_output_and_the_reference_shape_still_works():
    printed = {**cell("print(1)", cell_id="p"), "outputs": [{"output_type": "stream", "name": "stdout", "text": "1\n"}]}
    lab = MemoryLab(MemoryNotebook("c.ipynb", [cell("x = 1\ny = 2", cell_id="a"), cell("z = 3", cell_id="b"), printed]))
    whole = call(lab, "jupyter_create_comment", {"cellId": "a", "message": "why?"})
    assert whole["thread"]["anchor"] == {"kind": "cell", "cellId": "a"}
    part = call(lab, "jupyter_create_comment", {"cellId": "a", "text": "y = 2", "message": "this"})
    assert part["thread"]["anchor"]["kind"] == "source-range" and part["thread"]["anchor"]["selectedText"] == "y = 2"
    output = call(lab, "jupyter_create_comment", {"cellId": "p", "outputIndex": 0, "message": "that"})
    assert output["thread"]["anchor"]["kind"] == "output" and output["thread"]["anchor"]["outputIndex"] == 0
    reference = call(lab, "jupyter_create_comment", {"anchor": {"kind": "source-range", "cellId": "b", "selection": {
        "start": {"line": 0, "column": 0}, "end": {"line": 0, "column": 1}}}, "message": "and this"})
    assert reference["thread"]["anchor"]["cellId"] == "b" and reference["thread"]["anchor"]["selectedText"] == "z"
    refused = [
        ({"cellId": "a", "anchor": {"kind": "cell", "cellId": "b"}}, "anchor.cellId"),
        ({"cellId": "a", "anchor": {"kind": "cell"}, "text": "x"}, "anchor"),
        ({"cellId": "a", "text": "x", "outputIndex": 0}, "outputIndex"),
        ({"cellId": "a", "text": "x" * (limits.MAX_SELECTED_TEXT_BYTES + 1)}, "text"),
        ({}, "cellId"),
    ]
    for arguments, field in refused:
        error = call(lab, "jupyter_create_comment", {**arguments, "message": "m"})
        assert error["error"] == "INVALID_ARGUMENT" and error["field"] == field, arguments
    assert call(lab, "jupyter_list_comments", {})["counts"]["totalThreads"] == 4
