"""review/anchors.py: anchors made as the reference extension makes them, and re-found in the live cell."""


import pytest
from pyodide_webmcp.base import limits
from pyodide_webmcp.base.hashing import output_fingerprint
from pyodide_webmcp.review.anchors import (
    LiveCell,
    anchor_status,
    cell_anchor,
    locate_range,
    output_anchor,
    range_anchor,
)
from pyodide_webmcp.review.store import (
    StoredAnchor,
)

from tests.unit.review_data import SOURCE, VECTORS, anchor_for


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
