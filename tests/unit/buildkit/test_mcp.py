"""buildkit/mcp.py: `build.py mcp`'s relay between a host and @playwright/mcp, against a stand-in server."""

import json
import os
import subprocess
import sys
import threading

from buildkit import mcp

# A stand-in for @playwright/mcp: answers initialize and tools/call, reports the page's tools once the
# second browser_wait_for succeeds (as the real one does when a snapshot collects them).
SERVER = r"""
import json, sys
waits = 0
def send(message):
    sys.stdout.write(json.dumps(message) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    result = {"echo": message["method"]}
    if message["method"] == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {"listChanged": True}},
                  "serverInfo": {"name": "stand-in", "version": "0"}}
    elif message["params"]["name"] == "browser_wait_for":
        waits += 1
        result = {"content": [{"type": "text", "text": "### Error\nTimeout"}], "isError": waits < 2}
        if waits == 2:
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    elif message["params"]["name"] == "browser_navigate":
        result = {"content": [{"type": "text", "text": "### Page\nopened " + message["params"]["arguments"]["url"]}]}
    send({"jsonrpc": "2.0", "id": message["id"], "result": result})
"""


def relay_session(tmp_path, messages):
    """Run the relay between pipes standing for the host and the stand-in server; returns what the host got."""
    (tmp_path / "server.py").write_text(SERVER)
    server = subprocess.Popen([sys.executable, str(tmp_path / "server.py")], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    host_in_read, host_in_write = os.pipe()
    host_out_read, host_out_write = os.pipe()
    relay = mcp.Relay(server, os.fdopen(host_in_read, "rb"), os.fdopen(host_out_write, "wb", buffering=0),
                      "http://127.0.0.1:9/lab/index.html")
    threads = [threading.Thread(target=target, daemon=True)
               for target in (relay.host_to_server, relay.server_to_host, relay.open_lab)]
    for thread in threads:
        thread.start()
    received = []
    with os.fdopen(host_in_write, "wb", buffering=0) as host_in, os.fdopen(host_out_read, "rb") as host_out:
        for message in messages:
            host_in.write((json.dumps(message) + "\n").encode())
            if "id" in message:  # wait for its answer, collecting what comes before it
                while True:
                    received.append(json.loads(host_out.readline()))
                    if received[-1].get("id") == message["id"]:
                        break
        threads[2].join(10)
        host_in.close()  # the host goes away: the server's stdin closes, it exits, the relay ends
        server.wait(10)
        threads[1].join(10)
        relay.host_out.close()
        received += [json.loads(line) for line in host_out]
    return received


def test_the_host_sees_its_own_exchange_the_instructions_and_the_tools_appearing(tmp_path):
    received = relay_session(tmp_path, [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "browser_tabs", "arguments": {}}},
    ])
    ids = [message.get("id") for message in received if "id" in message]
    assert ids == [1, 2]  # the relay's own calls are answered to it, never to the host
    assert "webmcp_jupyter_" in received[0]["result"]["instructions"]
    assert "http://127.0.0.1:9/lab/index.html" in received[0]["result"]["instructions"]
    assert {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"} in received


def test_the_documented_configuration_runs_build_py_mcp():
    server = mcp.host_config()["mcpServers"][mcp.SERVER_NAME]
    assert server["args"][-1] == "mcp" and server["args"][0].endswith("/build.py")


def test_the_polyfill_runs_in_a_chromium_without_webmcp(tmp_path):
    native = mcp.playwright_config("chromium", headless=True, profile=None, polyfill=False, output_dir=tmp_path)
    polyfill = mcp.playwright_config("chromium", headless=True, profile=None, polyfill=True, output_dir=tmp_path)
    assert "--enable-features=WebMCP" in native["browser"]["launchOptions"]["args"]
    assert "--enable-features=WebMCP" not in polyfill["browser"]["launchOptions"]["args"]
    assert polyfill["browser"]["initScript"] == [str(mcp.POLYFILL)] and "initScript" not in native["browser"]
    assert native["timeouts"]["settle"] == 0


def test_each_contents_folder_keeps_its_own_browser_profile(tmp_path):
    assert mcp.browser_profile(None) == mcp.PROFILE
    mine = mcp.browser_profile(tmp_path)
    assert mine != mcp.PROFILE and mine == mcp.browser_profile(tmp_path / ".")
    kept = mcp.playwright_config("chromium", headless=False, profile=mine, polyfill=False, output_dir=tmp_path)
    assert kept["browser"]["userDataDir"] == str(mine) and kept["browser"]["isolated"] is False
    isolated = mcp.playwright_config("chromium", headless=False, profile=None, polyfill=False, output_dir=tmp_path)
    assert "userDataDir" not in isolated["browser"] and isolated["browser"]["isolated"] is True
