"""tools/commands.py: the owner's opt-in JupyterLab commands, only those on the allowlist."""

from pyodide_webmcp.base import limits
from pyodide_webmcp.base.text import utf8_len
from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call, cell


def command_lab() -> MemoryLab:
    lab = MemoryLab(MemoryNotebook("n.ipynb", [cell("a = 1")]))
    lab.command_allowlist = ("app:open", "app:idle", "app:big")
    lab.commands.defined = {
        "app:open": ("Open", True, {"type": "object", "properties": {"path": {"type": "string"}}}, lambda a: {"opened": a.get("path")}),
        "app:idle": ("Idle", False, None, lambda a: None),
        "app:big": ("Big", True, None, lambda a: "z" * 100_000),
        "app:secret": ("Secret", True, None, lambda a: "ran"),
    }
    return lab


def test_allowlisted_commands_run_and_others_are_refused_alike():
    lab = command_lab()
    ran = call(lab, "jupyter_execute_command", {"commandId": "app:open", "args": {"path": "n.ipynb"}})
    assert ran == {"commandId": "app:open", "result": {"opened": "n.ipynb"}}
    off_list = call(lab, "jupyter_execute_command", {"commandId": "app:secret"})
    nonexistent = call(lab, "jupyter_execute_command", {"commandId": "app:nothing"})
    assert off_list["error"] == nonexistent["error"] == "COMMAND_NOT_ALLOWED"
    assert off_list["message"].replace("app:secret", "ID") == nonexistent["message"].replace("app:nothing", "ID")
    assert ("app:secret", {}) not in lab.commands.ran
    bad = call(lab, "jupyter_execute_command", {"commandId": "app:open", "args": {"file": "n.ipynb"}})
    assert bad["error"] == "INVALID_ARGUMENT" and '"path"' in bad["message"] and bad["accepted"] == ["path"]


def test_a_disabled_command_warns_and_a_big_result_is_cut():
    lab = command_lab()
    idle = call(lab, "jupyter_execute_command", {"commandId": "app:idle"})
    assert idle["result"] is None and "not enabled" in idle["warning"]
    big = call(lab, "jupyter_execute_command", {"commandId": "app:big"})
    assert big["resultTruncated"] and utf8_len(big["result"]) <= limits.MAX_COMMAND_RESULT_BYTES


def test_list_commands_shows_only_the_allowlist():
    lab = command_lab()
    lab.command_allowlist = ("app:open", "app:missing", "app:idle")
    listed = call(lab, "jupyter_list_commands", {})["commands"]
    assert [entry["id"] for entry in listed] == ["app:open", "app:idle"]
    assert listed[0]["argsSchema"]["properties"] == {"path": {"type": "string"}} and listed[1]["enabled"] is False
