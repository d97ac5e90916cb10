"""owner/site_settings.py: the owner's settings, read whatever they hold."""

from pyodide_webmcp.base import limits
from pyodide_webmcp.owner.site_settings import Settings
from pyodide_webmcp.tools import BUILT_IN


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
    opt_in = {tool.name: tool.setting for tool in BUILT_IN if tool.setting}
    assert opt_in == {"jupyter_run_code": "runCode", "jupyter_execute_command": "commands", "jupyter_list_commands": "commands"}
