"""The owner's settings, and the opt-in power tools on the in-memory lab: code snippets and allowlisted commands."""

import json

import pytest
from pyodide_webmcp import limits
from pyodide_webmcp.access import METADATA_KEY, cell_access, notebook_access
from pyodide_webmcp.commandargs import check_arguments
from pyodide_webmcp.errors import ToolError
from pyodide_webmcp.registry import REGISTRY, CallContext
from pyodide_webmcp.settings import Settings
from pyodide_webmcp.snippets import SnippetLog, SnippetOutputs
from pyodide_webmcp.text import utf8_len

from tests.unit.aio import run
from tests.unit.memory_lab import MemoryLab, MemoryNotebook, cell


def call(lab: MemoryLab, name: str, arguments: dict) -> dict:
    envelope = run(REGISTRY.get(name).call(arguments, CallContext(lab)))
    return json.loads(envelope["content"][0]["text"])


def test_settings_never_fail_to_read():
    assert Settings.read(None) == Settings() and Settings.read([1]) == Settings()
    odd = Settings.read({"enabled": "yes", "callBudgetSeconds": 999, "defaultCellAccess": "all",
                         "proposeActions": ["run", "fly"], "commandAllowlist": ["a:b", 3, "a:b", ""]})
    assert odd.enabled is True and odd.call_budget_ms == limits.MAX_CALL_BUDGET_S * 1000
    assert odd.access.cell == "write" and odd.propose_actions == frozenset({"run"})
    assert odd.command_allowlist == ("a:b",)
    assert Settings.read({"callBudgetSeconds": 0}).call_budget_ms == limits.MIN_CALL_BUDGET_S * 1000
    assert Settings.read({"callBudgetSeconds": True}).call_budget_ms == limits.CALL_BUDGET_MS


def test_opt_in_tools_follow_their_setting_and_the_bridge_switch():
    on = Settings.read({"runCode": True})
    assert on.allows("runCode") and not on.allows("commands") and on.allows(None)
    assert not Settings.read({"enabled": False, "runCode": True}).allows("runCode")
    assert not Settings.read({"enabled": False}).allows(None)
    opt_in = {tool.name: tool.setting for tool in REGISTRY if tool.setting}
    assert opt_in == {"jupyter_run_code": "runCode", "jupyter_execute_command": "commands", "jupyter_list_commands": "commands"}


def test_default_access_applies_only_where_metadata_says_nothing():
    strict = Settings.read({"defaultNotebookAccess": "none", "defaultCellAccess": "read"})
    assert notebook_access({}, strict.access.notebook) == "none"
    assert notebook_access({METADATA_KEY: {"notebookAccess": "write"}}, "none") == "write"
    assert cell_access({}, strict.access.cell) == "read"
    assert cell_access({METADATA_KEY: {"access": "write"}}, "read") == "write"


def test_snippet_outputs_stay_bounded_whatever_the_kernel_sends():
    outputs = SnippetOutputs()
    for _ in range(1000):
        outputs.add("stream", {"name": "stdout", "text": "x" * 10_000})  # 10 MB in all
    assert len(outputs.outputs) == 1 and utf8_len(outputs.outputs[0]["text"]) == limits.MAX_SNIPPET_STREAM_BYTES
    assert outputs.dropped > 0
    for index in range(limits.MAX_OUTPUTS_PER_CELL + 5):
        outputs.add("display_data", {"data": {"text/plain": str(index)}, "metadata": {}, "transient": {"x": 1}})
    assert len(outputs.outputs) == limits.MAX_OUTPUTS_PER_CELL
    assert all("transient" not in output for output in outputs.outputs)
    outputs.add("clear_output", {"wait": False})
    outputs.add("execute_result", {"data": {"text/plain": "3"}, "metadata": {}, "execution_count": 7})
    assert outputs.outputs == [{"data": {"text/plain": "3"}, "metadata": {}, "execution_count": 7, "output_type": "execute_result"}]
    assert outputs.execution_count == 7
    outputs.add("stream", "not a dict")  # ignored, not an exception


def test_the_snippet_log_keeps_the_latest_and_tells_its_listeners():
    log, seen = SnippetLog(), []
    log.on_change(lambda: seen.append(len(log.entries)))
    first = log.add("t0", "a.ipynb", "x" * (limits.MAX_LOGGED_CODE_BYTES + 100))
    assert utf8_len(first.code) <= limits.MAX_LOGGED_CODE_BYTES and first.status == "running"
    log.finish(first, "ok", "1")
    for index in range(limits.MAX_LOGGED_SNIPPETS + 3):
        log.add("t", "a.ipynb", str(index))
    assert len(log.entries) == limits.MAX_LOGGED_SNIPPETS and log.entries[-1].code == str(limits.MAX_LOGGED_SNIPPETS + 2)
    assert log.entries[-1].number == limits.MAX_LOGGED_SNIPPETS + 4
    log.clear()
    assert log.entries == [] and seen[:2] == [1, 1] and seen[-1] == 0


def notebook_lab(*cells: dict) -> MemoryLab:
    return MemoryLab(MemoryNotebook("n.ipynb", list(cells) or [cell("a = 1")]))


def test_run_code_runs_in_the_kernel_logs_it_and_bounds_a_huge_print():
    lab = notebook_lab()
    shown = call(lab, "jupyter_run_code", {"code": "x = 6 * 7\nprint(x)"})
    assert shown["status"] == "ok" and shown["outputs"][0]["text"] == "42\n" and not shown["outputsTruncated"]
    assert lab.notebooks["n.ipynb"].namespace["x"] == 42  # the kernel keeps what the snippet defines
    huge = call(lab, "jupyter_run_code", {"code": "print('y' * 10_000_000)"})
    assert huge["outputsTruncated"] and utf8_len(huge["outputs"][0]["text"]) <= limits.MAX_TEXT_OUTPUT_BYTES
    failed = call(lab, "jupyter_run_code", {"code": "1 / 0"})
    assert failed["status"] == "error" and failed["ename"] == "ZeroDivisionError"
    entries = lab.snippet_log.entries
    assert [entry.status for entry in entries] == ["ok", "ok", "error"]
    assert entries[0].code.startswith("x = 6 * 7") and entries[0].output == "42" and entries[0].notebook_path == "n.ipynb"


def test_run_code_is_refused_where_a_cell_is_hidden_and_on_read_only_notebooks():
    hidden = notebook_lab(cell("a = 1"), cell("secret = 2", **{METADATA_KEY: {"access": "none"}}))
    refused = call(hidden, "jupyter_run_code", {"code": "print(secret)"})
    assert refused["error"] == "NOTEBOOK_ACCESS_DENIED" and refused["detail"] == "HIDDEN_CELLS"
    assert hidden.snippet_log.entries == [] and hidden.notebooks["n.ipynb"].namespace == {}
    read_only = MemoryLab(MemoryNotebook("r.ipynb", [cell("1")], {METADATA_KEY: {"notebookAccess": "read"}}))
    assert call(read_only, "jupyter_run_code", {"code": "1"})["error"] == "NOTEBOOK_ACCESS_DENIED"
    too_long = call(notebook_lab(), "jupyter_run_code", {"code": "#" * (limits.MAX_SNIPPET_BYTES + 1)})
    assert too_long["error"] == "INVALID_ARGUMENT" and too_long["field"] == "code"


SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "count": {"type": "integer"}, "mode": {"enum": ["a", "b"]}},
    "required": ["path"],
}


@pytest.mark.parametrize(
    ("args", "field"),
    [({"path": "x", "colour": 1}, "args.colour"), ({}, "args.path"), ({"path": 3}, "args.path"),
     ({"path": "x", "count": True}, "args.count"), ({"path": "x", "mode": "c"}, "args.mode")],
)
def test_command_arguments_are_checked_against_the_declared_schema(args, field):
    with pytest.raises(ToolError) as refused:
        check_arguments(args, SCHEMA)
    assert refused.value.details["field"] == field and refused.value.details["accepted"] == ["count", "mode", "path"]


def test_command_arguments_pass_when_they_fit_or_nothing_is_declared():
    check_arguments({"path": "x", "count": 2, "mode": "b"}, SCHEMA)
    check_arguments({"anything": 1}, None)
    check_arguments({"anything": 1}, {"type": "object"})  # open schema, no properties
    with pytest.raises(ToolError):
        check_arguments({"anything": 1}, {"type": "object", "additionalProperties": False})


def command_lab() -> MemoryLab:
    lab = notebook_lab()
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
