"""calls/dialog_views.py: JupyterLab's dialogs as agents see them, and which one and which button an answer means."""

import pytest
from pyodide_webmcp.base import limits
from pyodide_webmcp.base.errors import ErrorCode, ToolError
from pyodide_webmcp.calls.dialog_views import (
    choose_button,
    choose_dialog,
    dialog_view,
)
from pyodide_webmcp.kit.testing import dialog
from pyodide_webmcp.port import Dialog


def test_dialog_views_are_bounded_and_the_humans_say_nothing():
    own = dialog("d1", "call-1", input="secret", password=True)
    shown = dialog_view(own)
    assert shown["title"] == "File Changed" and shown["buttons"] == ["Cancel", "Revert", "Overwrite"]
    assert "input" not in shown and shown["passwordField"] is True
    assert dialog_view(dialog("d2", None)) == {"id": "d2", "owner": "human", "shown": True}
    huge = Dialog("d3", "call-1", "T" * 1000, "é" * 10_000, ["x" * 500], True, input="v" * 5000)
    bounded = dialog_view(huge)
    assert len(bounded["title"]) <= limits.MAX_DIALOG_TITLE_CHARS
    assert len(bounded["body"].encode()) <= limits.MAX_DIALOG_BODY_BYTES
    assert len(bounded["buttons"][0]) <= limits.MAX_DIALOG_BUTTON_CHARS
    assert len(bounded["input"]) <= limits.MAX_DIALOG_INPUT_CHARS
    assert bounded["error"] is True  # one button: it only reports something


def test_choosing_a_dialog_and_a_button():
    mine, humans = dialog("d1", "call-1"), dialog("d2", None)
    assert choose_dialog([mine, humans], None) is mine
    assert choose_button(mine, "overwrite") == 2 and choose_button(mine, 0) == 0
    for bad in ("Save", 3, -1):
        with pytest.raises(ToolError) as wrong:
            choose_button(mine, bad)
        assert wrong.value.details["buttons"] == ["Cancel", "Revert", "Overwrite"]
    with pytest.raises(ToolError) as not_yours:
        choose_dialog([humans], None)
    assert not_yours.value.code is ErrorCode.DIALOG_NOT_YOURS
    with pytest.raises(ToolError) as named:
        choose_dialog([mine, humans], "d2")
    assert named.value.code is ErrorCode.DIALOG_NOT_YOURS and "File Changed" not in named.value.message
    with pytest.raises(ToolError) as queued:
        choose_dialog([humans, dialog("d3", "call-1", shown=False)], "d3")
    assert queued.value.code is ErrorCode.DIALOG_NOT_FOUND and '"d2"' in queued.value.message
    with pytest.raises(ToolError) as several:
        choose_dialog([mine, dialog("d4", "call-2")], None)
    assert several.value.details["dialogIds"] == ["d1", "d4"]
    with pytest.raises(ToolError) as none:
        choose_dialog([], None)
    assert none.value.code is ErrorCode.DIALOG_NOT_FOUND
