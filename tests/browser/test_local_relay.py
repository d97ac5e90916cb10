"""The lab in the user's own browser, reached through @mcp-b/webmcp-local-relay: its real CLI (the npm package
pinned in package.json) driven over stdio by the MCP Python SDK, the lab open in Chromium with the relay's
connector switched on by the site's owner. The owner's access rules hold through every tool the relay gives
the host."""

import json
import os
import shutil
import socket
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from jupyterlite_pyodide_webmcp.site_server import site_server
from jupyterlite_pyodide_webmcp.sites import SETTINGS_ID
from pyodide_webmcp.notebook.access import METADATA_KEY

from buildkit.env import CHROMIUM_FLAGS
from buildkit.paths import ROOT, SITE
from tests.browser.conftest import (
    DEFAULT_TOOLS,
    READY,
    Lab,
    RequestRecorder,
    chromium_path,
    code_cell,
    notebook_json,
)
from tests.browser.test_hosting import CSP
from tests.browser.test_settings import field, open_settings, stored_settings
from tests.hostclients import POLYFILL, McpHost
from tests.waiting import wait_until

RELAY_CLI = ROOT / "node_modules" / "@mcp-b" / "webmcp-local-relay" / "dist" / "cli.js"
RELAY_TOOLS = {"webmcp_list_sources", "webmcp_list_tools", "webmcp_call_tool", "webmcp_open_page"}
EMBED = "/extensions/jupyterlite-pyodide-webmcp/static/bridge/relay/embed.js"
CONNECTOR = "/extensions/jupyterlite-pyodide-webmcp/static/bridge/relay/connector.html"
FRAME = "iframe[data-webmcp-relay-connector]"
PATH = "relay/secret.ipynb"
VISIBLE, HIDDEN = f"visible{uuid.uuid4().hex[:10]}", f"hidden{uuid.uuid4().hex[:10]}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def texts(result) -> str:
    return "\n".join(part.text for part in result.content if part.type == "text")


@pytest.fixture(scope="module")
def relay_port() -> int:
    return free_port()


def serve_site_with_relay(folder, port: int, headers=None):
    """The built site with the relay's connector switched on by its owner (jupyter-lite.json), on `port`."""
    site = folder / "site"
    shutil.copytree(SITE, site, copy_function=lambda src, dst: os.link(src, dst))
    config_path = site / "jupyter-lite.json"
    config = json.loads(config_path.read_text())
    data = config["jupyter-config-data"]
    data["litePluginSettings"] = {**data.get("litePluginSettings", {}),
                                  SETTINGS_ID: {"localRelay": True, "localRelayPort": port}}
    config_path.unlink()  # a new file: the copy's others are links to the built site's
    config_path.write_text(json.dumps(config))
    server = site_server(0, site, headers=headers)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def start_relay(home, port: int, origin: str) -> McpHost:
    """The relay as a desktop host starts it: node, the pinned package's CLI, one page origin allowed."""
    return McpHost("node", [str(RELAY_CLI), "--port", str(port), "--widget-origin", origin], home / "relay.log",
                   env={"PATH": os.environ["PATH"], "HOME": str(home)}).start(60)  # it keeps its port in ~/.webmcp


@pytest.fixture(scope="module")
def relay_site(tmp_path_factory, relay_port):
    server, origin = serve_site_with_relay(tmp_path_factory.mktemp("relay-site"), relay_port)
    yield origin
    server.shutdown()


@pytest.fixture(scope="module")
def relay(tmp_path_factory, relay_site, relay_port):
    host = start_relay(tmp_path_factory.mktemp("relay-home"), relay_port, relay_site)
    yield host
    host.close()


@pytest.fixture(scope="module")
def lab(browser, relay_site, relay):
    context = browser.new_context()
    recorder = RequestRecorder(relay_site)
    context.on("request", recorder.record)
    sockets: list[str] = []
    context.on("page", lambda page: page.on("websocket", lambda ws: sockets.append(ws.url)))
    lab = Lab(context.new_page(), relay_site)
    lab.page.on("websocket", lambda ws: sockets.append(ws.url))
    lab.open()
    lab.make_directory("relay")
    hidden = code_cell("hiddencell", f"{HIDDEN} = 2")
    hidden["metadata"] = {METADATA_KEY: {"access": "none"}}
    lab.save_file(PATH, notebook_json([code_cell("shown", f"{VISIBLE} = 1"), hidden]))
    yield lab, recorder, sockets
    context.close()
    assert recorder.foreign() == [], f"requests left the site: {recorder.foreign()[:5]}"
    # The only connection beyond the site's origin: the connector's WebSocket to the relay on this computer.
    assert sockets and all(url.startswith(("ws://127.0.0.1:", "ws://[::1]:")) for url in sockets), sockets


def relayed(relay: McpHost) -> set[str]:
    return {tool.name for tool in relay.list_tools()} - RELAY_TOOLS


def test_the_relay_lists_the_labs_tools_and_its_own_four(lab, relay):
    names = wait_until(lambda: relayed(relay) >= {tool.name for tool in DEFAULT_TOOLS} and relayed(relay),
                       timeout=60, what="the lab's tools at the relay")
    assert names == {tool.name for tool in DEFAULT_TOOLS}
    assert {tool.name for tool in relay.list_tools()} >= RELAY_TOOLS
    # The relay registers each page tool with an open input schema: the real one is in webmcp_list_tools.
    listed = json.loads(texts(relay.call("webmcp_list_tools", {})))
    by_name = {tool["name"]: tool for tool in listed["tools"]}
    assert by_name["jupyter_get_cells"]["inputSchema"]["properties"].keys() >= {"notebookPath", "cellIds"}
    sources = json.loads(texts(relay.call("webmcp_list_sources", {})))["sources"]
    assert [source["origin"] for source in sources] == [lab[0].origin]
    assert sources[0]["url"] == lab[0].origin + CONNECTOR  # the lab's hidden frame, without its query


def test_a_hidden_cell_is_absent_through_every_relay_tool(lab, relay):
    wait_until(lambda: "jupyter_get_cells" in relayed(relay), timeout=60, what="the lab's tools at the relay")
    direct = relay.call("jupyter_get_cells", {"notebookPath": PATH})
    assert not direct.is_error, texts(direct)
    cells = json.loads(direct.content[0].text)["cells"]
    assert [cell["id"] for cell in cells] == ["shown"] and VISIBLE in cells[0]["source"]
    generic = relay.call("webmcp_call_tool", {"name": "jupyter_get_cells",
                                              "arguments": {"notebookPath": PATH, "cellIds": ["hiddencell"]}})
    assert json.loads(generic.content[0].text)["error"] == "CELL_NOT_FOUND"
    search = relay.call("jupyter_search_notebook", {"notebookPath": PATH, "query": HIDDEN})
    assert json.loads(search.content[0].text)["matches"] == []
    # What the agent did not name itself: the hidden cell appears nowhere.
    everything = [texts(direct)] + [texts(relay.call(name, {})) for name in ("webmcp_list_sources", "webmcp_list_tools")]
    assert not any(HIDDEN in text or "hiddencell" in text for text in everything)


def test_read_only_cells_and_propose_mode_hold_through_the_relay(lab, relay):
    lab = lab[0]
    path = "relay/review.ipynb"
    read_only = code_cell("fixed", "kept = 1")
    read_only["metadata"] = {METADATA_KEY: {"access": "read"}}
    lab.save_file(path, notebook_json([code_cell("open", "x = 1"), read_only]))
    wait_until(lambda: "jupyter_update_cell" in relayed(relay), timeout=60, what="the lab's tools at the relay")
    assert not relay.call("jupyter_open_notebook", {"path": path}).is_error
    cells = json.loads(relay.call("jupyter_get_cells", {"notebookPath": path}).content[0].text)["cells"]
    hashes = {cell["id"]: cell["sourceHash"] for cell in cells}
    denied = relay.call("jupyter_update_cell", {"notebookPath": path, "cellId": "fixed", "source": "kept = 2",
                                                "expectedSourceHash": hashes["fixed"]})
    assert json.loads(denied.content[0].text)["error"] == "CELL_ACCESS_DENIED"

    lab.switch("propose-toggle", True)
    try:
        with ThreadPoolExecutor(1) as pool:
            call = pool.submit(relay.call, "jupyter_update_cell", {
                "notebookPath": path, "cellId": "open", "source": "x = 2", "expectedSourceHash": hashes["open"]})
            box = lab.page.locator(".jp-webmcp-proposal")
            box.wait_for(timeout=10_000)
            assert lab.live_cells(path)[0]["source"] == "x = 1"  # nothing changes before the human decides
            box.locator(".jp-webmcp-proposal-deny").click()
            result = json.loads(call.result(60).content[0].text)
            assert result["code"] == "PROPOSAL_DENIED" and lab.live_cells(path)[0]["source"] == "x = 1"
            # A human who takes longer than the relay's widget waits (10 s): the host gets the widget's
            # timeout, and the edit still waits for the human.
            call = pool.submit(relay.call, "jupyter_update_cell", {
                "notebookPath": path, "cellId": "open", "source": "x = 3", "expectedSourceHash": hashes["open"]})
            box.wait_for(timeout=10_000)
            late = call.result(60)
            assert late.is_error and "Host response timeout" in texts(late)
            assert box.is_visible() and lab.live_cells(path)[0]["source"] == "x = 1"
            box.locator(".jp-webmcp-proposal-deny").click()
    finally:
        lab.switch("propose-toggle", False)


def test_the_connector_and_the_relays_files_come_from_the_sites_origin(lab):
    lab, recorder, _ = lab
    frame = lab.page.locator(FRAME)
    assert frame.count() == 1 and frame.is_hidden()
    assert frame.get_attribute("src").startswith(f"{lab.origin}{CONNECTOR}?")
    widget = lab.page.frame_locator(FRAME).locator("iframe[data-webmcp-relay]")
    assert widget.get_attribute("src").startswith(f"{lab.origin}{EMBED.replace('embed.js', 'widget.html')}?")
    assert any(url.startswith(lab.origin + EMBED) for url in recorder.urls)
    # The lab's own page gains no WebMCP globals: the embed runs in the hidden frame.
    assert lab.page.evaluate("() => 'modelContextTesting' in navigator") is False


def test_the_relays_reload_reloads_its_frame_not_the_lab(lab, relay):
    lab = lab[0]
    lab.page.evaluate("() => { window.__notReloaded = true; }")

    def sources() -> list:
        return json.loads(texts(relay.call("webmcp_list_sources", {})))["sources"]

    before = [source["sourceId"] for source in sources()]
    answer = texts(relay.call("webmcp_open_page", {"url": f"{lab.origin}/lab/index.html", "refresh": True}))
    assert answer.startswith("Reload sent to source"), answer
    wait_until(lambda: (now := sources()) and now[0]["sourceId"] not in before and now[0]["toolCount"],
               timeout=60, what="the reloaded connector back at the relay")
    assert lab.page.evaluate("() => window.__notReloaded") is True
    assert not relay.call("jupyter_get_context", {}).is_error


CALL_THROUGH_RELAY = """([port, toolName, args]) => new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}`, ['webmcp.v1']);
    socket.onerror = () => reject(new Error('no connection'));
    socket.onmessage = event => {
        const message = JSON.parse(event.data);
        if (message.type === 'server-hello') {
            socket.send(JSON.stringify({type: 'relay/invoke', callId: 'from-another-page', toolName, args}));
        } else if (message.type === 'relay/result') {
            resolve(message.result);
            socket.close();
        }
    };
})"""


@pytest.mark.hosts_long
def test_the_origin_restriction_does_not_restrict_who_calls_the_tools(lab, relay, relay_port, served, tmp_path):
    """--widget-origin checks the origin a connector reports, not who connects: a page of another origin (or
    any program on this computer) calls the lab's tools through the relay's WebSocket. The tools' own rules
    still hold: the hidden cell stays hidden."""
    lab, recorder, _ = lab
    wait_until(lambda: "jupyter_get_cells" in relayed(relay), timeout=60, what="the lab's tools at the relay")
    (tmp_path / "elsewhere.html").write_text("<!doctype html><title>Another site</title>")
    elsewhere = served(tmp_path)
    page = lab.page.context.new_page()
    try:
        page.goto(f"{elsewhere}/elsewhere.html")
        result = page.evaluate(CALL_THROUGH_RELAY, [relay_port, "jupyter_get_cells", {"notebookPath": PATH}])
    finally:
        page.close()
    recorder.urls[:] = [url for url in recorder.urls if not url.startswith(elsewhere)]
    cells = json.loads(result["content"][0]["text"])["cells"]
    assert [cell["id"] for cell in cells] == ["shown"]
    assert HIDDEN not in json.dumps(result)


@pytest.mark.hosts_long
def test_the_relay_refuses_a_lab_of_an_origin_it_does_not_allow(browser, tmp_path_factory):
    port = free_port()
    home = tmp_path_factory.mktemp("relay-home-other")
    other = start_relay(home, port, "https://example.org")
    server, origin = serve_site_with_relay(tmp_path_factory.mktemp("relay-site-other"), port)
    context = browser.new_context()
    try:
        Lab(context.new_page(), origin).open()
        wait_until(lambda: f"disallowed host origin: {origin}" in (home / "relay.log").read_text(), timeout=60,
                   what="the relay's refusal")
        assert {tool.name for tool in other.list_tools()} == RELAY_TOOLS
        assert json.loads(texts(other.call("webmcp_list_sources", {})))["count"] == 0
    finally:
        context.close()
        server.shutdown()
        other.close()


def test_off_by_default_a_user_turns_it_on_and_off_live_and_no_hidden_name_reaches_the_relay(
        lab_page, site_url, tmp_path_factory):
    lab, recorder = lab_page
    sockets: list[str] = []
    lab.page.on("websocket", lambda ws: sockets.append(ws.url))
    lab.open()
    assert lab.page.locator(FRAME).count() == 0
    assert not any("/static/bridge/relay/" in url for url in recorder.urls)
    assert lab.page.evaluate("() => 'modelContextTesting' in navigator") is False
    assert sockets == []
    # The lab names its tab after the current document: here a notebook hidden from agents.
    private = f"h{uuid.uuid4().hex[:6]}.ipynb"  # short: the lab shortens long names in the title
    notebook = notebook_json([code_cell("p", "a = 1")])
    notebook["metadata"][METADATA_KEY] = {"notebookAccess": "none"}
    lab.save_file(private, notebook)
    lab.page.evaluate("path => window.jupyterapp.commands.execute('docmanager:open', {path})", private)
    wait_until(lambda: private in lab.page.title(), what="the hidden notebook's name in the tab's title")
    hidden_title = lab.page.title()

    port = free_port()
    relay = start_relay(tmp_path_factory.mktemp("relay-home-user"), port, site_url)
    try:
        open_settings(lab)
        field(lab, "localRelayPort").fill(str(port))
        wait_until(lambda: stored_settings(lab).get("localRelayPort") == port, what="the port stored")
        lab.page.evaluate("title => { document.title = title; }", hidden_title)  # as if it were still current
        field(lab, "localRelay").check()
        wait_until(lambda: relayed(relay) == {tool.name for tool in DEFAULT_TOOLS}, timeout=60,
                   what="the lab's tools at the relay")
        sources = texts(relay.call("webmcp_list_sources", {}))
        descriptions = [tool.description for tool in relay.list_tools()]
        assert json.loads(sources)["sources"][0]["title"] == "JupyterLite WebMCP demo"
        assert not any(private in text for text in [sources, *descriptions])

        field(lab, "localRelay").uncheck()
        wait_until(lambda: relayed(relay) == set(), timeout=60, what="the lab's tools gone from the relay")
        assert lab.page.locator(FRAME).count() == 0
        assert json.loads(texts(relay.call("webmcp_list_sources", {})))["count"] == 0
    finally:
        relay.close()


@pytest.mark.hosts_long
def test_a_lab_on_the_webmcp_polyfill_reaches_the_relay_too(playwright, tmp_path_factory):
    """A Chromium without WebMCP, the @mcp-b/global polyfill loaded in the lab's page (only there, as a site
    loads it), the connector using the polyfill's own testing API."""
    port = free_port()
    server, origin = serve_site_with_relay(tmp_path_factory.mktemp("relay-site-polyfill"), port)
    relay = start_relay(tmp_path_factory.mktemp("relay-home-polyfill"), port, origin)
    browser = playwright.chromium.launch(executable_path=chromium_path(),
                                         args=[flag for flag in CHROMIUM_FLAGS if "WebMCP" not in flag])
    try:
        context = browser.new_context()
        context.add_init_script(script=f"if (window === window.top) {{ {POLYFILL.read_text()} }}")
        page = context.new_page()
        page.goto(f"{origin}/lab/index.html")
        page.wait_for_selector(READY, timeout=120_000)
        assert page.evaluate("() => document.modelContext.__isBrowserMcpServer === true"), "not the polyfill"
        wait_until(lambda: relayed(relay) == {tool.name for tool in DEFAULT_TOOLS}, timeout=60,
                   what="the lab's tools at the relay")
        result = relay.call("jupyter_list_workspace", {})
        assert not result.is_error and "entries" in json.loads(result.content[0].text)
    finally:
        browser.close()
        relay.close()
        server.shutdown()


@pytest.mark.hosts_long
@pytest.mark.parametrize("connect", ["", " ws://127.0.0.1:*"])
def test_a_content_security_policy_must_allow_the_relays_websocket(browser, tmp_path_factory, connect):
    policy = CSP["Content-Security-Policy"] + f"; connect-src 'self'{connect}"
    port = free_port()
    server, origin = serve_site_with_relay(tmp_path_factory.mktemp("relay-site-csp"), port,
                                           {"Content-Security-Policy": policy})
    relay = start_relay(tmp_path_factory.mktemp("relay-home-csp"), port, origin)
    context = browser.new_context()
    violations: list[str] = []
    context.on("console", lambda message: "Content Security Policy" in message.text and violations.append(message.text))
    try:
        Lab(context.new_page(), origin).open()
        if connect:
            wait_until(lambda: relayed(relay) == {tool.name for tool in DEFAULT_TOOLS}, timeout=60,
                       what="the lab's tools at the relay")
            assert violations == []
        else:
            wait_until(lambda: violations, timeout=30, what="the policy's refusal of the WebSocket")
            assert "connect-src" in violations[0] and relayed(relay) == set()
    finally:
        context.close()
        relay.close()
        server.shutdown()
