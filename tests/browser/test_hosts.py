"""Real clients end to end, as agents reach the lab.

- A desktop MCP host: the MCP Python SDK over stdio to `python3 build.py mcp` (the package's own MCP
  server on this checkout), started from exactly the configuration docs/connecting.md gives for a
  clone, on the demo's files and on a folder of the user's own (`--contents`). The installed
  command (`jupyterlite-pyodide-webmcp mcp`) has its own tests: test_mcp_command.py.
- An in-page agent on the @mcp-b/global polyfill, in a Chromium without WebMCP.

Each does what an agent does: list the tools, get_context, get_cells, insert, update with a stale
hash (the client itself says the call failed), update, run_cells, save. `python3 build.py hosts`
adds the long runs: a cell run past the call budget and collected with wait_for_result through every
client, a host whose request timeout runs out first, the server on Playwright's own Chromium.
"""

import json
import re
import shutil
import sys
import time
from pathlib import Path

import pytest
from jupyterlite_pyodide_webmcp.browser import LINUX_PLACES
from pyodide_webmcp.base.hashing import source_hash
from pyodide_webmcp.base.limits import CALL_BUDGET_MS
from pyodide_webmcp.tools import BUILT_IN

from buildkit.env import CHROMIUM_FLAGS
from buildkit.mcp import DOCS_BUILD_PY, SERVER_NAME, host_config
from buildkit.paths import ROOT
from tests.browser.conftest import (
    DEFAULT_TOOLS,
    READY,
    RequestRecorder,
    checked_payload,
    chromium_path,
    require_current_site,
)
from tests.hostclients import (
    POLYFILL,
    McpClient,
    McpHost,
    Outcome,
    PageClient,
    code_cell,
    notebook,
)
from tests.waiting import wait_until

BUDGET = CALL_BUDGET_MS / 1000
TOOLS_TIMEOUT = 240
CONFIG_BLOCK = re.compile(r"```json\n(\{\s*\"mcpServers\".*?)\n```", re.S)
POLYFILL_KEEPS = ("readOnlyHint", "untrustedContentHint")  # what the polyfill passes on of a tool's hints


def documented_configs() -> list[dict]:
    """Every host configuration block in docs/connecting.md that runs a clone's build.py."""
    blocks = [json.loads(block) for block in CONFIG_BLOCK.findall((ROOT / "docs" / "connecting.md").read_text())]
    return [block for block in blocks if DOCS_BUILD_PY in json.dumps(block)]


def start_documented_server(tmp_path: Path, *extra: str, env: dict | None = None) -> McpHost:
    """The documented host configuration, with this checkout's build.py, a fresh profile and any free port."""
    require_current_site()
    server = documented_configs()[0]["mcpServers"][SERVER_NAME]
    args = [str(ROOT / "build.py") if arg == DOCS_BUILD_PY else arg for arg in server["args"]]
    return McpHost(server["command"], [*args, "--isolated", "--port", "0", *extra], tmp_path / "server.log",
                   env).start()


def machine_without_a_browser(tmp_path: Path) -> dict:
    """An environment whose PATH has only Python and Node (npm), and whose home holds no browser yet."""
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "python3").symlink_to(sys.executable)  # the venv's (a pyenv shim would need bash on PATH)
    for name in ("node", "npm"):
        (tools / name).symlink_to(shutil.which(name))
    if any(Path(place).is_file() for place in LINUX_PLACES):
        pytest.skip("a browser is installed outside PATH here")
    return {"PATH": str(tools), "HOME": str(tmp_path), "CHROME_PATH": "", "PLAYWRIGHT_BROWSERS_PATH": "",
            "XDG_CACHE_HOME": ""}


def wait_for_page_tools(client: McpClient) -> dict:
    """The tools, once the lab answers a call (they are listed from the start; calls wait for the lab)."""
    wait_until(lambda: not client.call("jupyter_get_context").client_error, timeout=TOOLS_TIMEOUT, interval=0.5,
               what=f"the lab answering (see {client.host.errlog_path})")
    return client.tools()


@pytest.fixture(scope="module")
def mcp_client(tmp_path_factory):
    host = start_documented_server(tmp_path_factory.mktemp("mcp"))
    client = McpClient(host)
    try:
        wait_for_page_tools(client)
        yield client
    finally:
        host.close()
    assert host.stream_errors == [], f"the server wrote something that is not MCP to stdout: {host.stream_errors[:3]}"


def polyfill_lab(playwright, site_url):
    """A Chromium without WebMCP, the @mcp-b/global polyfill loaded before the page's own scripts."""
    flags = [flag for flag in CHROMIUM_FLAGS if "WebMCP" not in flag]
    browser = playwright.chromium.launch(executable_path=chromium_path(), args=flags)
    context = browser.new_context()
    context.add_init_script(path=str(POLYFILL))
    recorder = RequestRecorder(site_url)
    context.on("request", recorder.record)
    page = context.new_page()
    page.goto(f"{site_url}/lab/index.html")
    page.wait_for_selector(READY, timeout=120_000)
    return browser, page, recorder


@pytest.fixture(scope="module")
def polyfill_client(playwright, site_url):
    browser, page, recorder = polyfill_lab(playwright, site_url)
    try:
        assert page.evaluate("() => document.modelContext.__isBrowserMcpServer === true"), "not the polyfill"
        yield PageClient(page, "@mcp-b/global")
    finally:
        browser.close()
    assert recorder.foreign() == [], f"requests left the site: {recorder.foreign()[:5]}"


# --- what an agent does ---------------------------------------------------------------------------


def lean(tool: str, outcome: Outcome):
    """The payload of one call, after checking what the client got: the payload once, and the error flag."""
    assert outcome.envelope is not None, outcome.seen[:800]
    value = checked_payload(tool, outcome.envelope)
    assert outcome.client_error is bool(outcome.envelope.get("isError")), "the client lost the error flag"
    return value


def call(client, tool: str, arguments: dict = None, **options):
    outcome = client.call(tool, arguments or {}, **options)
    value = lean(tool, outcome)
    assert not outcome.client_error, value
    return value, outcome


def wait_until_idle(client) -> None:
    wait_until(lambda: call(client, "jupyter_get_context")[0]["kernel"]["status"] == "idle", timeout=180, interval=1,
               what="an idle kernel")


def wait_for_result(client, pending_id: str) -> dict:
    """jupyter_wait_for_result until the call settles (each wait answers within the budget)."""

    def settled():
        started = time.monotonic()
        result, _ = call(client, "jupyter_wait_for_result", {"pendingId": pending_id})
        assert time.monotonic() - started < BUDGET + 10
        assert result.get("status") != "pending" or result["pendingId"] == pending_id
        return result.get("status") != "pending" and result

    return wait_until(settled, timeout=300, interval=0, what="the pending call settling")


def agent_session(client, path: str, *, long_run: bool, on_disk: bool = True) -> None:
    """List tools, read, insert, update (stale, then fresh), run, a run past the budget, save."""
    tools = client.tools()
    assert set(tools) == {tool.name for tool in DEFAULT_TOOLS}

    created, _ = call(client, "jupyter_create_notebook", {"name": path})
    path = created["path"]
    context, _ = call(client, "jupyter_get_context")
    assert context["notebook"]["path"] == path
    before, _ = call(client, "jupyter_get_cells")

    source = "answer = 6 * 7\nprint(answer)"
    inserted, seen = call(client, "jupyter_insert_cell", {"cells": [{"source": source}], "activate": False})
    (cell,) = inserted["cells"]
    assert cell["sourceHash"] == source_hash(source) and "source" not in cell
    assert "answer = 6 * 7" not in seen.seen, "a batch insert echoes no source back"
    assert inserted["notebook"]["cellCount"] == before["notebook"]["cellCount"] + 1

    stale = client.call("jupyter_update_cell", {"cellId": cell["id"], "source": "answer = 0",
                                                "expectedSourceHash": source_hash("something else")})
    assert stale.client_error is True, "the client cannot tell the call failed"
    error = lean("jupyter_update_cell", stale)
    assert error["error"] == "STALE_CELL" and error["currentSourceHash"] == cell["sourceHash"]

    source = "answer = 6 * 7\nprint('the answer is', answer)"
    updated, _ = call(client, "jupyter_update_cell", {"cellId": cell["id"], "source": source,
                                                      "expectedSourceHash": cell["sourceHash"]})
    assert updated["cell"]["sourceHash"] == source_hash(source) and updated["cell"]["id"] == cell["id"]
    read, seen = call(client, "jupyter_get_cells", {"cellIds": [cell["id"]]})
    assert read["cells"][0]["source"] == source
    assert seen.seen.count("the answer is") == 1, "the payload reached the model more than once"

    wait_until_idle(client)
    ran, _ = call(client, "jupyter_run_cells", {"cellIds": [cell["id"]]})
    assert ran["status"] == "ok" and "the answer is 42" in ran["results"][0]["outputSummary"]

    if long_run:
        slow = call(client, "jupyter_insert_cell",
                    {"source": f"import time\ntime.sleep({BUDGET + 4:.0f})\nprint('woke up')"})[0]["cell"]
        started = time.monotonic()
        pending, _ = call(client, "jupyter_run_cells", {"cellIds": [slow["id"]]})
        assert time.monotonic() - started < BUDGET + 10
        assert pending["status"] == "pending" and pending["waitingFor"]["kind"] == "kernel"
        listed = call(client, "jupyter_get_context")[0].get("pending", [])
        assert [entry["pendingId"] for entry in listed] == [pending["pendingId"]]
        final = wait_for_result(client, pending["pendingId"])
        assert final["status"] == "ok" and final["results"][0]["outputSummary"] == "woke up"

    saved, _ = call(client, "jupyter_save_notebook", {})
    assert saved["saved"] is True and saved["dirty"] is False
    if not on_disk:
        return
    on_disk = client.evaluate(
        "path => window.jupyterapp.serviceManager.contents.get(path, {content: true}).then(m => m.content.cells)",
        path)
    assert any("".join(c["source"]) == source for c in on_disk)


def mcp_annotations_as_set(client: McpClient) -> None:
    """What the host is told of each tool: the registry's title, description, schema and hints."""
    for name, listed in client.tools().items():
        tool = BUILT_IN.get(name)
        hints = tool.hints
        read_only = hints["readOnlyHint"]
        assert (listed.title, listed.description, listed.input_schema) == (
            tool.title, tool.description, tool.input_schema), name
        assert listed.annotations.read_only_hint is read_only, name
        assert listed.annotations.destructive_hint is (None if read_only else hints["destructiveHint"]), name
        assert listed.annotations.idempotent_hint is (None if read_only else hints["idempotentHint"]), name
        assert listed.annotations.open_world_hint is (name in ("jupyter_run_cells", "jupyter_run_code")), name
        assert listed.meta == {"untrustedContentHint": hints["untrustedContentHint"]}, name


# --- the tests ------------------------------------------------------------------------------------


def test_the_documented_host_configuration_is_the_one_tested():
    configs = documented_configs()
    assert configs, "docs/connecting.md shows a clone's host configuration"
    assert all(config == host_config() for config in configs)


def test_an_mcp_host_gets_the_page_tools_and_nothing_else(mcp_client):
    assert set(mcp_client.tools()) == {tool.name for tool in DEFAULT_TOOLS}
    mcp_annotations_as_set(mcp_client)
    assert "jupyter_get_context" in mcp_client.host.initialize_result.instructions
    assert any(type(n).__name__ == "ToolListChangedNotification" for n in mcp_client.host.notifications)


def test_an_mcp_host_agent_session(mcp_client):
    agent_session(mcp_client, "host-session.ipynb", long_run=False, on_disk=False)


@pytest.mark.hosts_long
def test_an_mcp_host_agent_session_with_a_run_past_the_budget(mcp_client):
    agent_session(mcp_client, "host-long.ipynb", long_run=True, on_disk=False)


@pytest.mark.hosts_long
def test_an_mcp_host_on_the_users_own_folder(tmp_path):
    """`build.py mcp --contents DIR`: the lab's files are DIR's, and what the agent saves is written to DIR."""
    mine = tmp_path / "my notebooks"
    (mine / "data").mkdir(parents=True)
    source = "marker = 'from my folder'"
    (mine / "mine.ipynb").write_text(json.dumps(notebook([code_cell("first", source)])))
    (mine / "data" / "numbers.csv").write_text("a,b\n1,2\n")
    host = start_documented_server(tmp_path, "--contents", str(mine))
    client = McpClient(host)
    try:
        wait_for_page_tools(client)
        listed, _ = call(client, "jupyter_list_workspace", {"recursive": True})
        assert {entry["path"] for entry in listed["entries"]} == {"data", "data/numbers.csv", "mine.ipynb"}
        call(client, "jupyter_open_notebook", {"path": "mine.ipynb"})
        cell = call(client, "jupyter_get_cells")[0]["cells"][0]
        assert cell["source"] == source
        edited = "marker = 'edited in the lab'"
        call(client, "jupyter_update_cell", {"cellId": cell["id"], "source": edited,
                                             "expectedSourceHash": cell["sourceHash"]})
        assert call(client, "jupyter_save_notebook", {})[0]["saved"] is True
        assert [cell["source"] for cell in call(client, "jupyter_get_cells")[0]["cells"]] == [edited]
        saved = json.loads((mine / "mine.ipynb").read_text())
        assert ["".join(cell["source"]) for cell in saved["cells"]] == [edited]
    finally:
        host.close()
    assert host.stream_errors == []


def test_an_mcp_host_without_a_browser_is_told_what_to_install(tmp_path):
    host = start_documented_server(tmp_path, env=machine_without_a_browser(tmp_path))
    try:
        outcome = McpClient(host).call("jupyter_get_context")
    finally:
        host.close()
    assert outcome.client_error and outcome.payload["error"] == "BRIDGE_UNAVAILABLE"
    assert "No Chromium-based browser was found" in outcome.payload["message"]
    assert "python -m playwright install chromium" in outcome.payload["message"]


@pytest.mark.hosts_long
def test_an_mcp_host_on_playwrights_own_chromium(tmp_path):
    """No browser on PATH: the Chromium `playwright install chromium` put in the home's cache is found."""
    environment = machine_without_a_browser(tmp_path)
    downloaded = tmp_path / ".cache" / "ms-playwright" / "chromium-1255" / "chrome-linux64" / "chrome"
    downloaded.parent.mkdir(parents=True)
    downloaded.symlink_to(chromium_path())
    host = start_documented_server(tmp_path, env=environment)
    client = McpClient(host)
    try:
        assert set(wait_for_page_tools(client)) == {tool.name for tool in DEFAULT_TOOLS}
    finally:
        host.close()
    assert str(downloaded) in (tmp_path / "server.log").read_text()


def test_an_agent_on_the_polyfill(polyfill_client):
    agent_session(polyfill_client, "polyfill-session.ipynb", long_run=False)
    # The polyfill's testing API (navigator.modelContextTesting) answers the same text.
    listed, text = polyfill_client.page.evaluate("""async () => [
        navigator.modelContextTesting.listTools().map(tool => tool.name),
        await navigator.modelContextTesting.executeTool('jupyter_get_context', '{}')]""")
    assert set(listed) == {tool.name for tool in DEFAULT_TOOLS}
    result = json.loads(text)
    assert set(result) == {"content"} and json.loads(result["content"][0]["text"])["notebook"]


def test_the_polyfill_keeps_two_hints(polyfill_client):
    for name, listed in polyfill_client.tools().items():
        set_ = BUILT_IN.get(name).annotations
        assert listed["annotations"] == {key: set_[key] for key in POLYFILL_KEEPS}, name
        assert listed["title"] == BUILT_IN.get(name).title and "outputSchema" not in listed


# --- long runs (python3 build.py hosts) -----------------------------------------------------------


@pytest.mark.hosts_long
def test_a_host_whose_request_timeout_runs_out_first(mcp_client):
    """The host gives up after 5 s; the run goes on, returns pending at the budget, and is collected."""
    from mcp.shared.exceptions import MCPError

    call(mcp_client, "jupyter_create_notebook", {"name": "timeout.ipynb"})
    cell = call(mcp_client, "jupyter_insert_cell", {"source": "import time\ntime.sleep(30)\nprint('done')"})[0]["cell"]
    wait_until_idle(mcp_client)
    with pytest.raises(MCPError, match="timed out"):
        mcp_client.call("jupyter_run_cells", {"cellIds": [cell["id"]]}, timeout=5)
    assert "pending" not in call(mcp_client, "jupyter_get_context")[0]  # still within the budget
    # At the budget the call answers pending (to no one: the host gave up), and get_context lists it.
    pending = wait_until(lambda: call(mcp_client, "jupyter_get_context")[0].get("pending"), timeout=BUDGET + 30,
                         interval=1, what="the run answering pending")
    assert [entry["tool"] for entry in pending] == ["jupyter_run_cells"]
    final = wait_for_result(mcp_client, pending[0]["pendingId"])
    assert final["status"] == "ok" and final["results"][0]["outputSummary"] == "done"


@pytest.mark.hosts_long
def test_an_agent_on_the_polyfill_with_a_long_run(polyfill_client):
    agent_session(polyfill_client, "polyfill-long.ipynb", long_run=True)
