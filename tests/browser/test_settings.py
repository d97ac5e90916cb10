"""The owner's settings through JupyterLab's Settings Editor, a site that fixes them, and the opt-in power tools."""

import json
import shutil
import threading

import pytest
from jupyterlite_pyodide_webmcp.site_server import site_server
from jupyterlite_pyodide_webmcp.sites import SETTINGS_ID
from pyodide_webmcp.base.hashing import source_hash

from buildkit.paths import SITE
from tests.browser.conftest import (
    DEFAULT_TOOLS,
    READY,
    Lab,
    code_cell,
    notebook_json,
    payload,
)
from tests.waiting import wait_until

POWER_TOOLS = {"jupyter_run_code", "jupyter_execute_command", "jupyter_list_commands"}


def tool_names(lab: Lab) -> set[str]:
    return {tool["name"] for tool in lab.page.webmcp.tools()}


def open_settings(lab: Lab) -> None:
    """The Settings Editor at the bridge's form, as a human opens it."""
    lab.page.evaluate("id => window.jupyterapp.commands.execute('settingeditor:open', {query: 'WebMCP'})", SETTINGS_ID)
    lab.page.click(f'.jp-PluginList-entry[data-id="{SETTINGS_ID}"]')
    field(lab, "runCode").wait_for(state="attached")


def field(lab: Lab, key: str):
    return lab.page.locator(f'[id="jp-SettingsEditor-{SETTINGS_ID}_{key}"]')


def stored_settings(lab: Lab) -> dict:
    """What the settings registry holds now (the Settings Editor's model), read the way JupyterLab reads it."""
    return lab.page.evaluate(
        """async id => {
            const settings = await window.jupyterapp.serviceManager.settings.fetch(id);
            return JSON.parse(settings.raw || '{}');
        }""",
        SETTINGS_ID,
    )


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    return lab.open("?path=demo.ipynb")


def test_power_tools_are_off_until_the_owner_turns_them_on_and_the_change_is_live(lab):
    assert tool_names(lab) == {tool.name for tool in DEFAULT_TOOLS}
    open_settings(lab)
    field(lab, "runCode").check()
    wait_until(lambda: "jupyter_run_code" in tool_names(lab))
    assert stored_settings(lab).get("runCode") is True
    assert lab.page.inner_text(".jp-webmcp-status").startswith(f"WebMCP: ready ({len(DEFAULT_TOOLS) + 1} tools;")
    assert not {"jupyter_execute_command", "jupyter_list_commands"} & tool_names(lab)


def test_run_code_runs_in_the_kernel_and_the_human_sees_it_in_the_activity_feed(lab):
    lab.open_with_idle_kernel("demo.ipynb")
    shown = lab.call("jupyter_run_code", {"code": "snippet_value = 6 * 7\nprint('hello from a snippet')\nsnippet_value"})
    assert shown["status"] == "ok" and shown["notebookPath"] == "demo.ipynb"
    texts = [output.get("text", "") for output in shown["outputs"]]
    assert "hello from a snippet\n" in texts and "42" in texts
    again = lab.call("jupyter_run_code", {"code": "snippet_value + 1"})  # the kernel keeps what a snippet defines
    assert [output.get("text") for output in again["outputs"]] == ["43"]
    failed = lab.call("jupyter_run_code", {"code": "1 / 0"})
    assert failed["status"] == "error" and failed["ename"] == "ZeroDivisionError"
    entries = lab.panel_tab("Activity").locator('.jp-webmcp-feed-line[data-tool="jupyter_run_code"]')
    assert entries.count() == 3
    newest = entries.nth(0)
    assert newest.get_attribute("data-outcome") == "failed" and "ZeroDivisionError" in newest.inner_text()
    assert "1 / 0" in newest.locator(".jp-webmcp-snippet").text_content()
    first = entries.nth(2)
    first.locator(".jp-webmcp-snippet summary").click()
    shown = first.inner_text()
    assert "demo.ipynb" in shown and "snippet_value = 6 * 7" in shown and "hello from a snippet" in shown


def test_a_ten_megabyte_print_comes_back_bounded(lab):
    result = lab.call_raw("jupyter_run_code", {"code": "print('x' * 10_000_000)"})
    assert len(result["content"][0]["text"].encode()) <= 50 * 1024
    shown = payload(result)
    assert shown["status"] == "ok" and shown["outputsTruncated"] is True
    assert 0 < len(shown["outputs"][0]["text"].encode()) <= 10 * 1024


def test_run_code_is_refused_on_a_notebook_with_a_hidden_cell(lab):
    hidden = code_cell("h", "secret = 'do not read'")
    hidden["metadata"] = {"jupyterlite_webmcp": {"access": "none"}}
    lab.save_file("with_hidden.ipynb", notebook_json([code_cell("v", "visible = 1"), hidden]))
    lab.share_kernel("with_hidden.ipynb")
    lab.open_with_idle_kernel("with_hidden.ipynb")
    refused = lab.error("jupyter_run_code", {"notebookPath": "with_hidden.ipynb", "code": "print(secret)"})
    assert refused["error"] == "NOTEBOOK_ACCESS_DENIED" and refused["detail"] == "HIDDEN_CELLS"
    newest = lab.panel_tab("Activity").locator(".jp-webmcp-feed-line").first
    assert newest.get_attribute("data-outcome") == "refused" and newest.locator(".jp-webmcp-snippet").count() == 0


def test_the_choice_survives_a_reload_and_turning_it_off_unregisters_at_once(lab):
    lab.open("?reset")  # a reload, with no notebook (and so no kernel) restored: the settings are kept apart
    assert "jupyter_run_code" in tool_names(lab)
    open_settings(lab)
    assert field(lab, "runCode").is_checked()
    field(lab, "runCode").uncheck()
    wait_until(lambda: "jupyter_run_code" not in tool_names(lab))
    field(lab, "enabled").uncheck()
    wait_until(lambda: tool_names(lab) == set())
    assert lab.page.inner_text(".jp-webmcp-status") == "WebMCP: off (settings)"
    field(lab, "enabled").check()
    wait_until(lambda: tool_names(lab) == {tool.name for tool in DEFAULT_TOOLS})
    lab.page.wait_for_selector(READY)


def add_allowed_command(lab: Lab, command_id: str) -> None:
    """Add an id to the allowlist in the Settings Editor's form, as a human types it."""
    title = lab.page.locator(f'[id="jp-SettingsEditor-{SETTINGS_ID}_commandAllowlist-title"]')
    count = lab.page.locator(f'input[id^="jp-SettingsEditor-{SETTINGS_ID}_commandAllowlist_"]').count()
    lab.page.locator(".field-array", has=title).locator('button[title="Add item"]').click()
    entry = field(lab, f"commandAllowlist_{count}")
    entry.fill(command_id)
    entry.press("Tab")


ALLOWED = ("docmanager:open", "application:toggle-left-area", "notebook:clear-all-cell-outputs", "notebook:restart-kernel")


def test_allowlisted_commands_run_others_are_refused_alike_and_arguments_are_checked(lab):
    open_settings(lab)
    field(lab, "commands").check()
    for command_id in ALLOWED:
        add_allowed_command(lab, command_id)
    wait_until(lambda: stored_settings(lab).get("commandAllowlist") == list(ALLOWED))
    wait_until(lambda: {"jupyter_execute_command", "jupyter_list_commands"} <= tool_names(lab))

    listed = lab.call("jupyter_list_commands")["commands"]
    assert [entry["id"] for entry in listed] == list(ALLOWED)
    assert "path" in listed[0]["argsSchema"]["properties"] and listed[0]["label"]

    opened = lab.call("jupyter_execute_command", {"commandId": "docmanager:open", "args": {"path": "demo.ipynb"}})
    assert opened["result"]["title"] == "demo.ipynb" and "warning" not in opened
    bad = lab.error("jupyter_execute_command", {"commandId": "docmanager:open", "args": {"file": "demo.ipynb"}})
    assert bad["error"] == "INVALID_ARGUMENT" and bad["field"] == "args.file" and "path" in bad["accepted"]
    assert '"path"' in bad["message"]

    existing = lab.error("jupyter_execute_command", {"commandId": "application:close-all"})
    missing = lab.error("jupyter_execute_command", {"commandId": "no-such:command"})
    assert existing["error"] == missing["error"] == "COMMAND_NOT_ALLOWED"
    assert existing["message"].replace("application:close-all", "X") == missing["message"].replace("no-such:command", "X")
    assert lab.page.evaluate("() => Array.from(window.jupyterapp.shell.widgets('main')).length") > 0  # nothing was closed

    open_settings(lab)  # the Settings Editor is now the current widget: notebook commands are not enabled
    disabled = lab.call("jupyter_execute_command", {"commandId": "notebook:clear-all-cell-outputs"})
    assert "not enabled" in disabled["warning"]


def test_a_dialog_a_command_raises_belongs_to_its_call(lab):
    lab.call("jupyter_open_notebook", {"path": "demo.ipynb"})
    pending = lab.call("jupyter_execute_command", {"commandId": "notebook:restart-kernel"})
    assert pending["status"] == "pending" and pending["waitingFor"]["kind"] == "dialog"
    assert pending["dialog"]["owner"] == "agent" and "Restart" in pending["dialog"]["buttons"]
    result = lab.call("jupyter_answer_dialog", {"button": "Restart"})
    assert result["commandId"] == "notebook:restart-kernel" and result["result"] is True
    assert lab.call("jupyter_get_context").get("dialogs", []) == []


@pytest.fixture(scope="module")
def fixing_site(tmp_path_factory):
    """The built site, with a deployer's choices in its own jupyter-lite.json: one value fixed, one default changed."""
    site = tmp_path_factory.mktemp("site") / "site"
    shutil.copytree(SITE, site, copy_function=lambda src, dst: shutil.os.link(src, dst))
    config_path = site / "jupyter-lite.json"
    config = json.loads(config_path.read_text())
    data = config["jupyter-config-data"]
    data["litePluginSettings"] = {**data.get("litePluginSettings", {}), SETTINGS_ID: {"runCode": True}}
    data["settingsOverrides"] = {**data.get("settingsOverrides", {}), SETTINGS_ID: {"defaultCellAccess": "read"}}
    config_path.unlink()  # a new file: the copy's others are links to the built site's
    config_path.write_text(json.dumps(config))
    server = site_server(0, site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_site_fixes_a_setting_and_changes_a_default_in_its_own_files(browser, fixing_site):
    context = browser.new_context()
    try:
        lab = Lab(context.new_page(), fixing_site).open()
        assert "jupyter_run_code" in tool_names(lab)
        open_settings(lab)
        fixed = field(lab, "runCode")
        assert fixed.is_checked() and fixed.is_disabled()
        # A value set behind the form's back (the JSON editor, a stored value) does not undo the site's.
        lab.page.evaluate(
            """async id => {
                const settings = window.jupyterapp.serviceManager.settings;
                await settings.save(id, JSON.stringify({runCode: false}));
            }""",
            SETTINGS_ID,
        )
        lab.open()
        assert "jupyter_run_code" in tool_names(lab)
        lab.save_file("plain.ipynb", notebook_json([code_cell("p", "a = 1")]))
        lab.call("jupyter_open_notebook", {"path": "plain.ipynb"})
        cells = lab.call("jupyter_get_cell_access", {"notebookPath": "plain.ipynb"})["cells"]
        assert [(entry["cellId"], entry["access"]) for entry in cells] == [("p", "read")]  # the site's default
        denied = lab.error("jupyter_update_cell", {"notebookPath": "plain.ipynb", "cellId": "p", "source": "b = 2",
                                                   "expectedSourceHash": source_hash("a = 1")})
        assert denied == {**denied, "error": "CELL_ACCESS_DENIED", "cellId": "p", "access": "read"}
    finally:
        context.close()
