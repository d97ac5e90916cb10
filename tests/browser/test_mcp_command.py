"""The installed console command, `jupyterlite-pyodide-webmcp mcp`, as a pip user runs it.

The prebuilt wheel is installed with its `mcp` extra into a fresh venv, and the command is started by
the MCP Python SDK as the host, with a PATH that has no Node.js, on a folder of notebooks whose owner
hid one cell (access `none`), made one read-only and hid one notebook, and with a browser profile in
which an earlier version kept edits. The host must get the page's tools and nothing else, no tool,
called with whatever arguments, may show what is hidden, and what the agent saves is in the folder.
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import nbformat
import pytest
from jupyterlite_pyodide_webmcp.site_server import site_server
from jupyterlite_pyodide_webmcp.sites import contents_key
from pyodide_webmcp.base.hashing import source_hash

from buildkit.env import CHROMIUM_FLAGS
from buildkit.paths import DIST, ROOT, SITE
from tests.browser.conftest import (
    BOOT_TIMEOUT_MS,
    DEFAULT_TOOLS,
    READY,
    RequestRecorder,
    chromium_path,
)
from tests.hostclients import McpClient, McpHost, code_cell, notebook
from tests.unit.desktop.test_mcp_server import MCP_LIST_BUDGET
from tests.waiting import wait_until

COMMAND = "jupyterlite-pyodide-webmcp"
INSTALLED_CONFIG = {"mcpServers": {"jupyterlite": {"command": COMMAND, "args": ["mcp"]}}}
CONFIG_BLOCK = re.compile(r"```json\n(\{\s*\"mcpServers\".*?)\n```", re.S)
SECRET = "owner-secret-7f3a"
HIDDEN_ID = "hidden-cell"
READ_ID = "read-only-cell"
RED_SQUARE = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGP4z8AARwzEcQCukw/x0F8jngAAAABJRU5ErkJggg=="


def with_access(cell: dict, access: str) -> dict:
    cell["metadata"]["jupyterlite_webmcp"] = {"access": access}
    return cell


COURSE = notebook([
    {"cell_type": "markdown", "id": "e1", "metadata": {}, "source": "## Exercise 1: add\nAdd two numbers."},
    code_cell("a1", "total = 1 + 2"),
])


def write_contents(folder: Path) -> None:
    hidden = with_access(code_cell(HIDDEN_ID, f"token = '{SECRET}'",
                                   [{"output_type": "stream", "name": "stdout", "text": f"{SECRET}\n"}], 1), "none")
    cells = [code_cell("visible", "x = 1"), with_access(code_cell(READ_ID, "kept = 'as the owner wrote it'"), "read"),
             hidden]
    (folder / "work.ipynb").write_text(json.dumps(notebook(cells)))
    image = {"output_type": "display_data", "metadata": {}, "data": {"image/png": RED_SQUARE, "text/plain": "<Figure>"}}
    (folder / "plot.ipynb").write_text(json.dumps(notebook([code_cell("plot", "plot()", [image], 1)])))
    private = notebook([code_cell("private-cell", f"print('{SECRET}')")])
    private["metadata"]["jupyterlite_webmcp"] = {"notebookAccess": "none"}
    (folder / "private.ipynb").write_text(json.dumps(private))
    (folder / "week1.ipynb").write_text(json.dumps(COURSE))


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with the wheel and its `mcp` extra, as `pip install --find-links dist 'jupyterlite-pyodide-webmcp[mcp]'`."""
    wheel = next(DIST.glob("jupyterlite_pyodide_webmcp-*.whl"), None) or pytest.fail("no wheel in dist/")
    venv = tmp_path_factory.mktemp("user") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", f"{wheel}[mcp]",
                    "--find-links", str(DIST), "-c", str(ROOT / "constraints.txt")], check=True)
    return venv / "bin"


def user_environment(bin_folder: Path, home: Path) -> dict:
    """Only the venv on PATH (no Node.js, no npm), the browser named as a user would, a home of its own."""
    assert not (bin_folder / "node").exists()
    return {"PATH": str(bin_folder), "HOME": str(home), "CHROME_PATH": chromium_path(),
            "JUPYTERLITE_WEBMCP_CACHE": str(home / "cache")}


def test_the_documented_configuration_is_the_one_tested():
    """README.md and docs/connecting.md give a pip user's host this configuration, which `start` runs."""
    for doc in (ROOT / "README.md", ROOT / "docs" / "connecting.md"):
        blocks = [json.loads(block) for block in CONFIG_BLOCK.findall(doc.read_text())]
        assert INSTALLED_CONFIG in blocks, doc


def start(bin_folder: Path, home: Path, contents: Path, log_name: str = "server.log", port: int = 0,
          tools: tuple[Path, ...] = ()) -> McpHost:
    """The documented configuration (the command found on PATH, as a host finds it), on `contents`, with the
    site tools' wheels `tools`."""
    server = INSTALLED_CONFIG["mcpServers"]["jupyterlite"]
    extra = ["--tools", *map(str, tools)] if tools else []
    return McpHost(str(bin_folder / server["command"]),
                   [*server["args"], "--contents", str(contents), "--port", str(port), *extra],
                   home / log_name, user_environment(bin_folder, home)).start(120)


SITE_TOOLS = {"course_list_exercises", "course_mark_for_review"}


def course_tools_wheel(folder: Path) -> Path:
    """The owner example's wheel, as its README builds it."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    str(ROOT / "examples" / "owner-tools"), "-w", str(folder)], check=True)
    return next(folder.glob("course_tools-*.whl"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


EARLIER_EDIT = "x = 'edited in the browser by an earlier version'"


def earlier_version_profile(browser_type, profile: Path, port: int) -> None:
    """A browser profile as an earlier version left it: the lab on this origin kept its saves in browser
    storage (the demo site's JupyterLite drive), an edit of work.ipynb and a notebook made there."""
    server = site_server(port, SITE)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    context = browser_type.launch_persistent_context(str(profile), executable_path=chromium_path(),
                                                     args=CHROMIUM_FLAGS)
    try:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}/lab/index.html")
        page.wait_for_selector(READY, timeout=BOOT_TIMEOUT_MS)
        for path, source in (("work.ipynb", EARLIER_EDIT), ("made-in-browser.ipynb", "made = True")):
            page.evaluate("""([path, content]) => window.jupyterapp.serviceManager.contents.save(
                path, {type: 'notebook', format: 'json', content})""", [path, notebook([code_cell("c", source)])])
    finally:
        context.close()
        server.shutdown()
        server.server_close()


def answered(client: McpClient):
    outcome = client.call("jupyter_get_context")
    return None if outcome.client_error else outcome.payload


@pytest.fixture(scope="module")
def user(installed, tmp_path_factory, browser_type):
    home = tmp_path_factory.mktemp("home")
    contents = home / "notebooks"
    contents.mkdir()
    write_contents(contents)
    port = free_port()
    earlier_version_profile(browser_type, home / "cache" / "browser-profiles" / contents_key(contents), port)
    wheel = course_tools_wheel(home / "wheels")
    started = time.monotonic()
    host = start(installed, home, contents, port=port, tools=(wheel,))
    client = McpClient(host)
    listed = time.monotonic() - started
    wait_until(lambda: answered(client), timeout=300, interval=0.5, what=f"a first answer (see {home / 'server.log'})")
    print(f"\ntools listed {listed:.1f} s after start; first answer after {time.monotonic() - started:.1f} s")
    try:
        yield client, home, contents
    finally:
        host.close()
    assert host.stream_errors == [], f"the server wrote something that is not MCP to stdout: {host.stream_errors[:3]}"


def test_the_host_gets_the_page_tools_and_nothing_else(user):
    client, _, _ = user
    tools = client.host.list_tools()
    assert {tool.name for tool in tools} == {tool.name for tool in DEFAULT_TOOLS} | SITE_TOOLS
    listing = json.dumps([tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in tools
                          if tool.name not in SITE_TOOLS], separators=(",", ":"))
    print(f"\ntools/list: {len(tools)} tools, {len(listing):,} characters")
    assert len(listing) <= MCP_LIST_BUDGET
    for tool in tools:
        assert tool.title and tool.annotations is not None, tool.name
        assert tool.annotations.read_only_hint is not None and tool.annotations.open_world_hint is not None
        assert type(tool.meta["untrustedContentHint"]) is bool, tool.name
        if not tool.annotations.read_only_hint:
            assert tool.annotations.destructive_hint is not None and tool.annotations.idempotent_hint is not None


def test_an_output_image_arrives_as_image_content(user):
    client, _, _ = user
    outcome = client.call("jupyter_get_cells", {"notebookPath": "plot.ipynb", "includeImages": True})
    assert not outcome.client_error, outcome.seen[:300]
    images = [part for part in outcome.envelope["content"] if part["type"] == "image"]
    assert len(images) == 1 and images[0]["mimeType"] == "image/png" and images[0]["data"]


def test_a_read_only_cell_cannot_be_changed(user):
    client, _, _ = user
    assert not client.call("jupyter_open_notebook", {"path": "work.ipynb"}).client_error
    cells = {cell["id"]: cell for cell in client.call("jupyter_get_cells").payload["cells"]}
    read_only = cells[READ_ID]
    writes = [
        ("jupyter_update_cell", {"cellId": READ_ID, "source": "changed", "expectedSourceHash": read_only["sourceHash"]}),
        ("jupyter_update_cells", {"cells": [{"cellId": READ_ID, "source": "changed",
                                             "expectedSourceHash": read_only["sourceHash"]}]}),
        ("jupyter_replace_in_cell", {"cellId": READ_ID, "old": "kept", "new": "changed",
                                     "expectedSourceHash": read_only["sourceHash"]}),
        ("jupyter_delete_cell", {"cellId": READ_ID, "expectedSourceHash": read_only["sourceHash"]}),
        ("jupyter_clear_outputs", {"cellIds": [READ_ID]}),
        ("jupyter_run_cells", {"cellIds": [READ_ID]}),
    ]
    for name, arguments in writes:
        outcome = client.call(name, arguments)
        assert outcome.client_error, (name, outcome.seen[:300])
        assert outcome.payload["error"] == "CELL_ACCESS_DENIED", (name, outcome.payload)
    after = {cell["id"]: cell for cell in client.call("jupyter_get_cells").payload["cells"]}
    assert after[READ_ID]["sourceHash"] == source_hash("kept = 'as the owner wrote it'")


# Values an agent would try, by argument name: the hidden cell's id, the hidden notebook, the secret itself.
PROBES = {
    "notebookPath": ["work.ipynb", "private.ipynb"], "path": ["work.ipynb", "private.ipynb"],
    "cellId": [HIDDEN_ID, "private-cell"], "referenceCellId": [HIDDEN_ID, "private-cell"],
    "cellIds": [[HIDDEN_ID, "visible"], ["private-cell"]], "query": [SECRET, "token"], "old": [SECRET, "token"],
    "source": ["y = 2", "z = 3"], "name": ["probe.ipynb", "private.ipynb"], "recursive": [True, False],
    "includeOutputs": [True, True], "includeSource": [True, True], "regex": [False, True],
}


def probe_arguments(schema: dict, variant: int) -> dict:
    """Arguments from a tool's input schema: a probe for every argument it names, something plain for the
    rest of the required ones."""
    properties = schema.get("properties", {})
    arguments = {name: PROBES[name][variant] for name in properties if name in PROBES}
    for name in schema.get("required", []):
        if name in arguments:
            continue
        spec = properties.get(name, {})
        kind = spec.get("type", "string")
        kind = next((k for k in kind if k != "null"), "string") if isinstance(kind, list) else kind
        arguments[name] = (spec["enum"][0] if "enum" in spec else
                           {"string": "x", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}[kind])
    return arguments


def test_nothing_hidden_is_in_any_result_of_any_tool(user):
    client, _, _ = user
    calls = 0
    for tool in client.host.list_tools():
        for arguments in ({}, probe_arguments(tool.input_schema, 0), probe_arguments(tool.input_schema, 1)):
            outcome = client.call(tool.name, arguments, timeout=90)
            calls += 1
            assert outcome.text is not None, (tool.name, arguments)
            assert SECRET not in outcome.seen, (tool.name, arguments, outcome.seen[:500])
    print(f"\n{calls} calls, none showed what is hidden")


def browser_processes(profile: Path) -> list[tuple[int, int, str]]:
    """(pid, parent pid, command line) of the browser using `profile` and all its descendants."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        found[int(entry.name)] = (parent, command)
    family = {pid for pid, (_, command) in found.items() if f"--user-data-dir={profile}" in command
              and "--type=" not in command}
    while True:
        more = {pid for pid, (parent, _) in found.items() if parent in family} - family
        if not more:
            return [(pid, *found[pid]) for pid in family]
        family |= more


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the browser's processes in /proc")
def test_a_crashed_tab_and_a_closed_browser_come_back(user):
    client, home, contents = user
    profile = next((home / "cache" / "browser-profiles").iterdir())
    notified = len(client.host.notifications)
    renderers = [pid for pid, _, command in browser_processes(profile) if "--type=renderer" in command]
    assert renderers, browser_processes(profile)
    for pid in renderers:
        os.kill(pid, signal.SIGKILL)
    wait_until(lambda: answered(client), timeout=180, interval=1, what="an answer after the tab crashed")
    assert "crashed: reloading it" in (home / "server.log").read_text()
    browser = [pid for pid, _, command in browser_processes(profile) if "--type=" not in command]
    assert browser
    for pid in browser:
        os.kill(pid, signal.SIGKILL)
    wait_until(lambda: answered(client), timeout=180, interval=1, what="an answer after the browser was closed")
    assert "opens again on the next call" in (home / "server.log").read_text()
    assert len(client.host.notifications) > notified  # the host heard the list come back


@pytest.mark.hosts_long
def test_a_second_server_on_the_same_folder(installed, user):
    _, home, contents = user
    second = start(installed, home, contents, "second.log")
    try:
        client = McpClient(second)
        payload = wait_until(lambda: answered(client), timeout=300, interval=0.5, what="the second server answering")
        assert payload["workspace"] is not None
    finally:
        second.close()
    assert second.stream_errors == []
    assert "in use by another server" in (home / "second.log").read_text()


def test_the_site_it_built_stays_on_its_origin(user, browser, served):
    _, home, _ = user
    site = next((home / "cache" / "sites").glob("lab-*/site"))  # the site with the owner's tools
    origin = served(site)
    recorder = RequestRecorder(origin)
    page = browser.new_page()
    page.on("request", recorder.record)
    page.goto(f"{origin}/lab/index.html")
    page.wait_for_selector(".jp-webmcp-status[data-state=ready]", timeout=120_000)
    page.close()
    assert recorder.urls and recorder.foreign() == []


def test_what_the_agent_saves_is_in_the_folder_with_the_owners_settings(user):
    client, _, contents = user
    assert not client.call("jupyter_open_notebook", {"path": "work.ipynb"}).client_error
    visible = next(cell for cell in client.call("jupyter_get_cells").payload["cells"] if cell["id"] == "visible")
    assert not client.call("jupyter_update_cell", {"cellId": "visible", "source": "x = 'saved by the agent'",
                                                   "expectedSourceHash": visible["sourceHash"]}).client_error
    saved = client.call("jupyter_save_notebook").payload
    assert saved["saved"] is True and saved["dirty"] is False
    book = nbformat.read(contents / "work.ipynb", as_version=4)
    nbformat.validate(book)
    cells = {cell.id: cell for cell in book.cells}
    assert cells["visible"].source == "x = 'saved by the agent'"
    assert cells[READ_ID].source == "kept = 'as the owner wrote it'"
    assert cells[READ_ID].metadata["jupyterlite_webmcp"] == {"access": "read"}
    assert cells[HIDDEN_ID].source == f"token = '{SECRET}'" and SECRET in json.dumps(cells[HIDDEN_ID].outputs)
    assert cells[HIDDEN_ID].metadata["jupyterlite_webmcp"] == {"access": "none"}


def test_a_file_written_into_the_folder_is_listed_at_once(user):
    client, _, contents = user
    (contents / "from-a-script.ipynb").write_text(json.dumps(notebook([code_cell("s", "s = 1")])))
    listed = client.call("jupyter_list_workspace").payload
    assert "from-a-script.ipynb" in {entry["path"] for entry in listed["entries"]}


def test_the_earlier_versions_browser_edits_are_in_the_folder(user):
    _, home, contents = user
    kept = nbformat.read(contents / "work.from-browser.ipynb", as_version=4)
    assert kept.cells[0].source == EARLIER_EDIT
    assert nbformat.read(contents / "made-in-browser.from-browser.ipynb", as_version=4).cells[0].source == "made = True"
    assert EARLIER_EDIT not in (contents / "work.ipynb").read_text()  # nothing overwritten
    assert "work.from-browser.ipynb" in (home / "server.log").read_text()


def lab_port(home: Path) -> int:
    return int(re.search(r"the lab at http://127\.0\.0\.1:(\d+)/", (home / "server.log").read_text()).group(1))


@pytest.mark.parametrize("path, headers", [
    ("/api/contents/work.ipynb", {}),
    ("/api/contents/work.ipynb", {"Authorization": "token guessed"}),
    ("/api/contents/work.ipynb", {"Host": "attacker.example"}),
    ("/api/contents/work.ipynb", {"Origin": "http://evil.example"}),
    ("/api/contents/../../etc/passwd", {}),
    ("/api/contents/.git/config", {}),
    ("/lab/index.html", {"Host": "attacker.example"}),
])
def test_another_local_program_cannot_use_the_folder(user, path, headers):
    _, home, _ = user
    request = urllib.request.Request(f"http://127.0.0.1:{lab_port(home)}{path}", headers=headers)
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request)
    answer = json.loads(refused.value.read())
    print(f"\n{path} {headers}: {refused.value.code} {answer['message']}")
    assert refused.value.code == 403 and SECRET not in json.dumps(answer)


def test_the_runs_secret_is_never_logged(user):
    _, home, _ = user
    log = (home / "server.log").read_text()
    assert "contents-token" not in log and "files-token" not in log


def test_the_sites_own_tools_are_served_beside_the_built_in_ones(user):
    client, _, _ = user
    outcome = client.call("course_list_exercises", {"notebookPath": "week1.ipynb"})
    assert not outcome.client_error, outcome.seen[:300]
    assert outcome.payload == {"exercises": [{"title": "Exercise 1: add", "answerCellId": "a1", "answered": True}]}
