"""Output fingerprints remembered between calls (issue 18: a 100 MB print was hashed again on every comment read)."""

import copy

import pytest
from pyodide_webmcp import hashing, review
from pyodide_webmcp.memo import JsonMemo, flat
from pyodide_webmcp.registry import REGISTRY, CallContext

from tests.unit.aio import run
from tests.unit.memory_lab import MemoryLab, MemoryNotebook, cell

LONG = {"output_type": "stream", "name": "stdout", "text": "x" * 99 + "\n" + "y" * (hashing.FNV_FINGERPRINT_CHARS * 4)}


def counting(compute):
    calls = []

    def spy(value):
        calls.append(value)
        return compute(value)

    return spy, calls


def test_an_unchanged_output_read_again_as_a_fresh_copy_is_not_hashed_again():
    spy, calls = counting(hashing.output_fingerprint)
    memo = JsonMemo(spy)
    first = memo(LONG)
    assert [memo(copy.deepcopy(LONG)) for _ in range(5)] == [first] * 5
    assert len(calls) == 1 and first == hashing.output_fingerprint(LONG)


@pytest.mark.parametrize(
    "changed",
    [
        {**LONG, "text": LONG["text"][:5000] + "z" + LONG["text"][5001:]},  # same length, same ends, one character
        {**LONG, "text": LONG["text"] + "y"},
        {**LONG, "name": "stderr"},
        {"name": "stdout", "output_type": "stream", "text": LONG["text"]},  # the same keys in another order
    ],
)
def test_a_changed_output_is_hashed_again_and_gets_its_own_fingerprint(changed):
    spy, calls = counting(hashing.output_fingerprint)
    memo = JsonMemo(spy)
    memo(LONG)
    assert memo(changed) == hashing.output_fingerprint(changed)
    assert len(calls) == 2
    assert memo(LONG) == hashing.output_fingerprint(LONG)  # and the first one is still right


@pytest.mark.parametrize(("before", "after"), [(1, True), (1, 1.0), (0.0, -0.0), ("1", 1), (None, "null"), ([1], (1,))])
def test_values_python_calls_equal_but_json_writes_differently_are_not_confused(before, after):
    spy, calls = counting(repr)
    memo = JsonMemo(spy)
    assert memo({"data": {"v": before}}) == repr({"data": {"v": before}})
    assert memo({"data": {"v": after}}) == repr({"data": {"v": after}})
    assert len(calls) == 2


def test_flat_forms_are_equal_only_for_the_same_structure():
    assert flat({"a": ["b", "c"]}) != flat({"a": ["b"], "c": []}) != flat({"a": "b", "c": None})
    assert flat({"a": [{"b": 1}]}) == flat(copy.deepcopy({"a": [{"b": 1}]}))


def test_json_nested_far_deeper_than_the_recursion_limit_is_remembered():
    def deep(leaf):
        value = leaf
        for level in range(5000):
            value = {"level": level, "child": [value]}
        return value

    spy, calls = counting(hashing.output_fingerprint)
    memo = JsonMemo(spy)
    assert memo(deep(1)) == memo(deep(1)) != memo(deep(2))
    assert len(calls) == 2


def test_the_memo_is_bounded_in_entries_and_characters():
    spy, calls = counting(len)
    memo = JsonMemo(spy, max_entries=3, max_chars=100)
    for text in ("a", "b", "c", "d"):
        memo(text)
    memo("a")  # the oldest was forgotten
    assert len(calls) == 5
    memo("x" * 101)
    memo("x" * 101)  # too large to keep
    assert len(calls) == 7
    for text in ("y" * 60, "z" * 60, "y" * 60):  # together over the character bound: the older one goes
        memo(text)
    assert len(calls) == 10


def call(lab, name, arguments):
    return run(REGISTRY.get(name).call(arguments, CallContext(lab)))["structuredContent"]


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
    spy, calls = counting(hashing.output_fingerprint)
    monkeypatch.setattr(review.output_fingerprint, "compute", spy)
    review.output_fingerprint.clear()
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

