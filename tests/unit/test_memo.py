"""base/memo.py: output fingerprints remembered between calls (a 100 MB print was hashed again on every comment read)."""

import copy

import pytest
from pyodide_webmcp.base import hashing
from pyodide_webmcp.base.memo import JsonMemo, flat

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
