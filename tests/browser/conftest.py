"""Browser fixtures: the built site on 127.0.0.1, Debian's Chromium with native WebMCP."""

import functools
import json
import os
import shutil
import threading
from urllib.parse import parse_qs, urlparse

import pytest
from jsonschema import Draft202012Validator
from jupyterlite_pyodide_webmcp.site_server import site_server
from pyodide_webmcp.base.errors import COMMON_ERRORS, ErrorCode
from pyodide_webmcp.tools import BUILT_IN

from buildkit.demo_site import site_is_current
from buildkit.env import CHROMIUM_FLAGS
from buildkit.paths import SITE
from tests.kernels import SHARE_KERNEL
from tests.waiting import wait_until

ERROR_CODES = {code.value for code in ErrorCode}

STATUS = ".jp-webmcp-status"
READY = ".jp-webmcp-status[data-state=ready]"
SETTLED = ".jp-webmcp-status[data-state=ready], .jp-webmcp-status[data-state=unavailable]"
BOOT_TIMEOUT_MS = 120_000
ERRORS_SEEN: dict[str, set[str]] = {}
DEFAULT_TOOLS = [tool for tool in BUILT_IN if tool.setting is None]  # registered unless the owner opts in to more
CONTROLS_ON = ("WebMCP unavailable: this browser has no WebMCP; the access, review and Propose-mode controls are on "
               "(no agent can connect)")


def pytest_collection_modifyitems(config, items):
    long_runs = "hosts_long" in (config.option.markexpr or "")
    for item in items:
        if "/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)
        if item.get_closest_marker("hosts_long") and not long_runs:
            item.add_marker(pytest.mark.skip(reason="a long run: python3 build.py hosts"))


def require_current_site() -> None:
    """Fail at once unless build/site was built from these sources (python3 build.py test rebuilds it first)."""
    if not site_is_current(snapshot=True):
        pytest.fail("build/site is missing or older than its sources: run python3 build.py test")


@pytest.fixture(scope="session")
def site_url():
    require_current_site()
    server = site_server(0, SITE)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture
def served():
    """Start a server of a folder (the built site by default) with site_server's options; yields its origin plus
    prefix (the servers in `.servers`). Every server it started stops after the test."""
    servers = []

    def start(directory=SITE, **options) -> str:
        if directory == SITE:
            require_current_site()
        server = site_server(0, directory, **options)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}{options.get('prefix', '/').rstrip('/')}"

    start.servers = servers
    yield start
    for server in servers:
        server.shutdown()


def chromium_path() -> str:
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or pytest.fail("Debian's chromium is not installed")


@pytest.fixture(scope="module")
def no_webmcp(playwright):
    """Chromium without WebMCP, as most browsers are: no agent can connect."""
    browser = playwright.chromium.launch(executable_path=chromium_path(),
                                         args=[flag for flag in CHROMIUM_FLAGS if "WebMCP" not in flag])
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": chromium_path(), "args": CHROMIUM_FLAGS}


def payload(result: dict):
    """A tool result's payload: `content[0].text`, the JSON the page sends once and nowhere else (image content
    items may follow it)."""
    assert set(result) <= {"content", "isError"}, f"more than the payload crossed: {sorted(result)}"
    kinds = [part["type"] for part in result["content"]]
    assert kinds[0] == "text" and set(kinds[1:]) <= {"image"}, kinds  # images only when asked (includeImages)
    return json.loads(result["content"][0]["text"])


def checked_payload(name: str, result: dict):
    """The payload, validated against the tool's output schema (its error variant on a failure, whose code is
    recorded: the run fails if a tool returns a code it does not declare)."""
    value = payload(result)
    tool = BUILT_IN.get(name)
    if result.get("isError"):
        assert set(value) >= {"error", "message"} and value["error"] in ERROR_CODES, value
        if tool.budgeted:
            ERRORS_SEEN.setdefault(name, set()).add(value["error"])
    if not (isinstance(value, dict) and "partial" in value and value.get("truncated")):
        errors = sorted(output_validator(name).iter_errors(value), key=lambda error: list(error.absolute_path))
        assert not errors, f"{name} result does not match its output schema: {errors[0].message} at {list(errors[0].absolute_path)}"
    return value


@functools.cache
def output_validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(BUILT_IN.get(name).output_schema)


class RequestRecorder:
    """Every request the page makes; the run fails if one leaves the site's origin."""

    def __init__(self, origin: str):
        self.origin = origin
        self.urls: list[str] = []

    def record(self, request) -> None:
        self.urls.append(request.url)

    def foreign(self) -> list[str]:
        return [
            url for url in self.urls
            if urlparse(url).scheme not in ("data", "blob") and not url.startswith(self.origin + "/")
        ]


def pytest_sessionfinish(session, exitstatus):
    undeclared = {
        name: sorted(codes - {c.value for c in (*BUILT_IN.get(name).errors, *COMMON_ERRORS)})
        for name, codes in ERRORS_SEEN.items()
    }
    undeclared = {name: codes for name, codes in undeclared.items() if codes}
    if undeclared and exitstatus == 0:
        session.exitstatus = 1
        print(f"\nerror codes returned but not declared by their tool: {undeclared}")


class Lab:
    """A JupyterLite page with the bridge, driven through page.webmcp as an agent would."""

    def __init__(self, page, origin: str):
        self.page = page
        self.origin = origin

    def open(self, query: str = "") -> "Lab":
        """The lab loaded and the bridge ready; with `?path=`, that document open and current too (the lab may
        open it after the bridge is ready, and it would then take the place of a panel a test opened)."""
        self.page.goto(f"{self.origin}/lab/index.html{query}")
        self.page.wait_for_selector(READY, timeout=BOOT_TIMEOUT_MS)
        for path in parse_qs(urlparse(query).query).get("path", []):
            self.page.wait_for_function("path => window.jupyterapp.shell.currentWidget?.context?.path === path", arg=path,
                                        timeout=BOOT_TIMEOUT_MS)
        return self

    def call_raw(self, name: str, arguments=None) -> dict:
        """The call's whole result; checked, as a validating MCP client would, against the tool's output schema."""
        result = self.page.webmcp.call_tool(name, {} if arguments is None else arguments)
        checked_payload(name, result)
        return result

    def call(self, name: str, arguments=None) -> dict:
        """The payload of a successful call (fails the test on an error), checked against its output schema."""
        result = self.call_raw(name, arguments)
        assert not result.get("isError"), result
        return payload(result)

    def error(self, name: str, arguments=None) -> dict:
        """The structured error (fails the test on a success), without its generic `hint` and `retryable`."""
        result = self.call_raw(name, arguments)
        assert result.get("isError") is True, result
        error = dict(payload(result))
        assert isinstance(error.pop("hint"), str) and isinstance(error.pop("retryable"), bool)
        return error

    def start_call(self, name: str, arguments: dict, key: str = "call") -> None:
        """Start a call through the browser's own WebMCP API without waiting; finish_call(key) awaits it."""
        self.page.evaluate(
            """async ([name, input, key]) => {
                const tool = (await document.modelContext.getTools()).find(t => t.name === name);
                window.__webmcpAborts = window.__webmcpAborts || {};
                window.__webmcpCalls = window.__webmcpCalls || {};
                window.__webmcpAborts[key] = new AbortController();
                window.__webmcpCalls[key] = document.modelContext.executeTool(
                    tool, input, {signal: window.__webmcpAborts[key].signal});
                window.__webmcpCall = window.__webmcpCalls[key];
            }""",
            [name, arguments, key],
        )

    def abort_call(self, key: str = "call") -> None:
        self.page.evaluate("key => window.__webmcpAborts[key].abort()", key)

    def finish_call(self, key: str = "call") -> dict:
        """The call's structured result, or {"rejected": ...} when the browser rejected it (as on abort)."""
        outcome = self.page.evaluate(
            "key => window.__webmcpCalls[key].then(text => ({text}), error => ({rejected: error.name}))", key
        )
        return outcome if "rejected" in outcome else payload(json.loads(outcome["text"]))

    def panel_tab(self, label: str):
        """The Agent panel shown on one of its tabs (Activity, Changes, Comments, Access); that tab's body."""
        self.page.evaluate("() => window.jupyterapp.shell.activateById('jp-webmcp-agent-panel')")
        self.page.locator(".jp-webmcp-tabs .lm-TabBar-tab", has_text=label).click()
        return self.page.locator(f"#jp-webmcp-tab-{label.lower()}")

    def switch(self, name: str, on: bool) -> None:
        """Turn one of the Agent panel's switches on or off as the human does (propose-toggle, review-insert, ...)."""
        self.page.evaluate("() => window.jupyterapp.shell.activateById('jp-webmcp-agent-panel')")
        self.page.locator(f".jp-webmcp-{name} [role=switch]").set_checked(on)

    def share_kernel(self, path: str) -> None:
        """Let `path`'s notebook, when it opens, use a kernel already running rather than start one
        (tests/kernels.py)."""
        self.page.evaluate(SHARE_KERNEL, path)

    def open_with_idle_kernel(self, path: str) -> None:
        self.call("jupyter_open_notebook", {"path": path})
        # `kernel` is null until the notebook's session has one.
        wait_until(lambda: (self.call("jupyter_get_context")["kernel"] or {}).get("status") == "idle", timeout=120)

    def live_cells(self, path: str) -> list[dict]:
        """Cells straight from JupyterLab's shared model, bypassing the bridge."""
        return self.page.evaluate(
            """path => {
                const panel = Array.from(window.jupyterapp.shell.widgets('main'))
                    .find(w => w.context && w.context.path === path);
                return panel.content.model.sharedModel.cells.map(
                    c => ({id: c.id, type: c.cell_type, source: c.getSource()}));
            }""",
            path,
        )

    def set_source(self, path: str, index: int, source: str) -> None:
        """A human edit through the shared model."""
        self.page.evaluate(
            """([path, index, source]) => {
                const panel = Array.from(window.jupyterapp.shell.widgets('main'))
                    .find(w => w.context && w.context.path === path);
                panel.content.model.sharedModel.cells[index].setSource(source);
            }""",
            [path, index, source],
        )

    def save_file(self, path: str, notebook: dict) -> None:
        self.page.evaluate(
            """([path, content]) => window.jupyterapp.serviceManager.contents.save(
                path, {type: 'notebook', format: 'json', content})""",
            [path, notebook],
        )

    def make_directory(self, path: str) -> None:
        self.page.evaluate(
            "path => window.jupyterapp.serviceManager.contents.save(path, {type: 'directory'})", path
        )

    def read_file(self, path: str) -> dict:
        return self.page.evaluate(
            "path => window.jupyterapp.serviceManager.contents.get(path, {content: true}).then(m => m.content)",
            path,
        )

@pytest.fixture(scope="module")
def lab_page(browser, site_url):
    """A fresh browser context per test module, with its requests recorded."""
    context = browser.new_context()
    recorder = RequestRecorder(site_url)
    context.on("request", recorder.record)
    page = context.new_page()
    yield Lab(page, site_url), recorder
    context.close()
    assert recorder.urls, "no request was recorded"
    assert recorder.foreign() == [], f"requests left the site: {recorder.foreign()[:5]}"


def diff_lines(diff) -> list[tuple[str, str]]:
    """A diff as the human's views draw it (ui/diff_view.py): (removed | added | same, the line's text)."""
    return [tuple(row) for row in diff.evaluate("""node => Array.from(node.querySelectorAll('.jp-webmcp-diff-row')).map(
        row => [row.className.match(/jp-webmcp-diff-(same|removed|added)/)[1],
                Array.from(row.childNodes).filter(c => !c.classList || !c.matches('.jp-webmcp-diff-mark, .jp-webmcp-sr-only'))
                    .map(c => c.textContent).join('')])""")]


def code_cell(cell_id: str, source: str) -> dict:
    return {"cell_type": "code", "id": cell_id, "metadata": {}, "source": source, "outputs": [],
            "execution_count": None}


def notebook_json(cells: list[dict]) -> dict:
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}},
        "cells": cells,
    }
