"""Both ways the bridge's interpreter starts: from the build-time memory snapshot, and plain."""

import json
import re

import brotli
import pytest
from jupyterlite_pyodide_webmcp.sites import SETTINGS_ID

from buildkit.env import CHROMIUM_FLAGS
from buildkit.paths import SITE, SITE_BRIDGE_ASSETS
from buildkit.snapshot import snapshot_inputs_digest
from tests.browser.conftest import (
    DEFAULT_TOOLS,
    READY,
    SETTLED,
    RequestRecorder,
    chromium_path,
    payload,
)
from tests.measure import ARRAY_BUFFER_DATA, heap_snapshot, node_sizes
from tests.waiting import KERNEL_IDLE

MANIFEST = SITE_BRIDGE_ASSETS / "manifest.json"


DEMO = "?path=demo.ipynb"


def open_lab(browser, site_url, query="", route=None, requests=None, path=""):
    """The lab in a fresh context; `requests` collects the URL of every request the page and its workers make.
    No notebook is open unless `path` names one (`?path=demo.ipynb`): each would start a kernel, ~10 CPU-s."""
    # The service worker would answer requests beyond page.route's reach.
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    if route:
        page.route(*route)
    if requests is not None:
        page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{site_url}/lab/index.html{path}{query}")
    page.wait_for_selector(SETTLED, timeout=120_000)
    return context, page


def kept_copies(page, count: int) -> list[str]:
    """The URLs kept in Cache Storage, once `count` are (copies are kept in the background), or after 10 s."""
    return page.evaluate("""async count => {
        const cache = await caches.open('jupyterlite-pyodide-webmcp');
        for (let tries = 0; tries < 100 && (await cache.keys()).length < count; tries++) {
            await new Promise(r => setTimeout(r, 100));
        }
        return (await cache.keys()).map(r => r.url);
    }""", count)


def assert_tools_work(page):
    assert len(page.webmcp.tools()) == len(DEFAULT_TOOLS)
    result = page.webmcp.call_tool("jupyter_get_cells", {"notebookPath": "demo.ipynb", "startIndex": 0, "endIndex": 2})
    assert not result.get("isError"), result
    assert [cell["id"] for cell in payload(result)["cells"]] == ["intro", "greeting"]


def test_the_built_site_ships_a_snapshot_of_its_own_inputs():
    snapshot = json.loads(MANIFEST.read_text())["snapshot"]
    assert snapshot["inputs"] == snapshot_inputs_digest(chromium_path(), SITE_BRIDGE_ASSETS, SITE / "static" / "pyodide")
    assert (SITE_BRIDGE_ASSETS / snapshot["file"]).stat().st_size > 0
    assert snapshot["loadedPackages"].keys() >= {"pydantic", "pydantic_core", "pyodide_webmcp"}
    # A restore writes back only the files of modules the snapshot does not hold imported.
    pack = brotli.decompress((SITE_BRIDGE_ASSETS / "site-packages.pack.br").read_bytes())
    packed = {path for path, _ in json.loads(pack[4:4 + int.from_bytes(pack[:4], "little")])}
    imported = ("pydantic/main.", "pydantic/__pycache__/main.", "pyodide_webmcp/adapter/")
    on_demand = "owner_install"  # imported only on a site with its own tools, so written back
    assert not [path for path in packed if path.startswith(imported) and on_demand not in path]
    assert [path for path in packed if on_demand in path]
    # What a later import or a metadata read needs:
    assert "pydantic/deprecated/json.py" in packed
    assert [path for path in packed if path.startswith("pydantic-") and path.endswith(".dist-info/METADATA")]


def test_a_normal_load_restores_the_snapshot_and_its_reload_reads_the_large_files_from_cache_storage(
        browser, site_url):
    # A private window's memory cache keeps no file over 6.25 MiB: the kept copies must serve the reload.
    requests = []
    context, page = open_lab(browser, site_url, requests=requests)
    try:
        assert page.inner_text(".jp-webmcp-status") == f"WebMCP: ready ({len(DEFAULT_TOOLS)} tools; snapshot start)"
        # The runtime was linked in steps, each in a task of its own (the page's longest tasks were the linking).
        assert page.evaluate("() => performance.getEntriesByName('webmcp:stage:linked-in-steps').length") == 1
        # This host compresses text: the module with those steps is the build's copy, not the site's own edited.
        assert [url for url in requests if "/static/bridge/pyodide.asm.stepped.mjs?" in url], requests
        assert not [url for url in requests if url.split("?")[0].endswith("/static/pyodide/pyodide.asm.mjs")]
        assert_tools_work(page)
        manifest = json.loads(MANIFEST.read_text())
        large = [manifest["snapshot"]["file"], manifest["files"], manifest["stdlib"], "pyodide.asm.wasm",
                 *(dynlib["file"] for dynlib in manifest["dynlibs"])]
        kept = kept_copies(page, len(large))
        assert sorted(url.split("?")[0].split("/static/bridge/")[-1].split("/static/pyodide/")[-1]
                      for url in kept) == sorted(large)
        # Restored, the snapshot's bytes are let go: no array buffer that large is left but the wasm memory.
        sizes = node_sizes(heap_snapshot(page), ARRAY_BUFFER_DATA)
        assert sizes[0] >= manifest["snapshot"]["heapBytes"] > sizes[1], sizes[:3]
        # The memory was sized with room for the start, not grown by Emscripten's 20 % step during it.
        assert sizes[0] < manifest["snapshot"]["heapBytes"] * 1.1, (sizes[0], manifest["snapshot"]["heapBytes"])
        requests.clear()
        page.reload()
        page.wait_for_selector(READY, timeout=120_000)
        assert page.inner_text(READY).endswith("snapshot start)")
        # Asked for again: the manifest (revalidated), but none of the large files (no kernel is running here,
        # which would ask for the runtime and the standard library it shares, from the browser's HTTP cache).
        fetched = [url for url in requests if "/static/bridge/" in url or "/static/pyodide/" in url]
        assert fetched and not [url for url in fetched if any(name in url for name in large)], fetched
        assert_tools_work(page)
    finally:
        context.close()


def test_on_a_host_that_does_not_compress_text_the_restore_steps_the_sites_own_pyodide_module(browser, site_url):
    """There the build's copy of Pyodide's module would cost 1.2 MB more: the restore edits the site's own (the
    kernel's download) instead, and still links in steps."""
    def uncompressed(route):
        response = route.fetch()
        dropped = ("content-encoding", "content-length")
        route.fulfill(status=response.status, body=response.body(),
                      headers={name: value for name, value in response.headers.items() if name.lower() not in dropped})

    requests = []
    context, page = open_lab(browser, site_url, route=("**/static/bridge/manifest.json*", uncompressed),
                             requests=requests)
    try:
        assert page.inner_text(READY).endswith("snapshot start)")
        assert page.evaluate("() => performance.getEntriesByName('webmcp:stage:linked-in-steps').length") == 1
        assert not [url for url in requests if "pyodide.asm.stepped.mjs" in url], requests
        assert [url for url in requests if url.split("?")[0].endswith("/static/pyodide/pyodide.asm.mjs")], requests
        assert_tools_work(page)
    finally:
        context.close()


def test_a_runtime_other_than_the_one_the_snapshot_was_made_with_is_never_kept(browser, site_url):
    def other_runtime(route):
        manifest = route.fetch().json()
        manifest["snapshot"]["runtimeBytes"] += 1
        route.fulfill(json=manifest)

    # The snapshot, the pack, the standard library and the extension modules, but not the runtime.
    others = 3 + len(json.loads(MANIFEST.read_text())["dynlibs"])
    context, page = open_lab(browser, site_url, route=("**/static/bridge/manifest.json*", other_runtime))
    try:
        kept_copies(page, others)
        page.wait_for_timeout(1000)  # a copy of the runtime, if kept, would be in by now
        kept = kept_copies(page, others)
        assert len(kept) == others and not [url for url in kept if "pyodide.asm.wasm" in url], kept
        assert_tools_work(page)
    finally:
        context.close()


@pytest.mark.parametrize("served", [
    pytest.param({"status": 404, "body": ""}, id="missing", marks=pytest.mark.hosts_long),  # build.py hosts
    pytest.param({"status": 200, "body": "onmessage = () => {};", "content_type": "text/javascript"}, id="silent"),
])
def test_where_no_worker_starts_the_page_loads_the_files_itself_and_still_restores(browser, site_url, served):
    refused = []

    def no_worker(route):
        refused.append(route.request.url)
        route.fulfill(**served)

    context, page = open_lab(browser, site_url, route=("**/static/bridge/offload-worker.mjs*", no_worker))
    try:
        assert refused
        assert page.inner_text(".jp-webmcp-status") == f"WebMCP: ready ({len(DEFAULT_TOOLS)} tools; snapshot start)"
        assert_tools_work(page)
    finally:
        context.close()


def test_a_worker_that_fails_while_loading_fails_the_restore_not_the_start(browser, site_url):
    # Answers the ping, then fails each file it is asked for (the first messages come in its URL).
    broken = ("const answer = ({ id, url }) => postMessage(url ? { id, error: new Error('broken') } : { id, done: true });"
              "onmessage = ({ data }) => answer(data);"
              "JSON.parse(decodeURIComponent(location.hash.slice(1)) || '[]').forEach(answer);")
    route = ("**/static/bridge/offload-worker.mjs*",
             lambda route: route.fulfill(status=200, body=broken, content_type="text/javascript"))
    context, page = open_lab(browser, site_url, route=route)
    try:
        status = page.inner_text(READY)
        # Whichever stream fails first says why (a compile of the extension module names only the stream).
        assert "plain start, snapshot not used: " in status, status
        assert_tools_work(page)
    finally:
        context.close()


def test_the_plain_start_can_be_chosen_by_url_and_serves_edits_and_runs(browser, site_url):
    context, page = open_lab(browser, site_url, "&webmcp=plain", path=DEMO)
    try:
        status = page.inner_text(READY)
        assert status.endswith("; plain start, snapshot not used: the URL asks for ?webmcp=plain)"), status
        assert_tools_work(page)
        page.wait_for_function(KERNEL_IDLE, timeout=120_000, polling=200)
        inserted = payload(page.webmcp.call_tool("jupyter_insert_cell", {"source": "6 * 7"}))["cell"]
        ran = payload(page.webmcp.call_tool("jupyter_run_cells", {"cellIds": [inserted["id"]]}))
        assert ran["results"][0]["status"] == "ok", ran
        assert "42" in ran["results"][0]["outputSummary"], ran
    finally:
        context.close()


HEAP_BYTES = json.loads(MANIFEST.read_text())["snapshot"]["heapBytes"] if MANIFEST.exists() else 0


@pytest.mark.parametrize(
    "body, reasons",
    [  # the first two in build.py hosts
        pytest.param(brotli.compress(bytes(HEAP_BYTES)), ["Snapshot has invalid magic number"], id="zeros",
                     marks=pytest.mark.hosts_long),
        pytest.param(brotli.compress(b"not a snapshot" * 1000), ["snapshot.br is smaller than the manifest says"],
                     id="short", marks=pytest.mark.hosts_long),
        # What a host that alters .br files (or answers them with a page) causes: the reason says what to fix.
        pytest.param(b"<!doctype html><title>Not found</title>", [
            "snapshot.br arrived altered (served as ", "not a whole brotli stream",
            "): serve .br files byte for byte"], id="not-brotli"),
    ],
)
def test_a_broken_snapshot_falls_back_to_the_plain_start(browser, site_url, body, reasons):
    route = ("**/static/bridge/snapshot.br*", lambda route: route.fulfill(status=200, body=body))
    context, page = open_lab(browser, site_url, route=route)
    try:
        status = page.inner_text(READY)
        assert "plain start, snapshot not used: " in status, status
        assert all(reason in status for reason in reasons), status
        assert_tools_work(page)
    finally:
        context.close()


def test_a_snapshot_made_against_another_runtime_memory_falls_back_to_the_plain_start(browser, site_url):
    """The snapshot ships as its difference from the runtime's memory as instantiated: a restore whose
    runtime began from other bytes refuses it, instead of starting from a spoiled heap."""
    def other_memory(route):
        manifest = route.fetch().json()
        manifest["snapshot"]["initialDigest"] = "0:0"
        route.fulfill(json=manifest)

    context, page = open_lab(browser, site_url, route=("**/static/bridge/manifest.json*", other_memory))
    try:
        status = page.inner_text(READY)
        assert status.endswith("plain start, snapshot not used: the runtime's memory is not the one the snapshot "
                               "was made against)"), status
        assert_tools_work(page)
    finally:
        context.close()


RUNTIME, STDLIB = "**/pyodide.asm.wasm*", "**/static/bridge/python_stdlib.zip*"


@pytest.mark.parametrize("served, failures, status", [
    # The runtime: the restore fails, and the plain start downloads it again.
    pytest.param(RUNTIME, 1, re.escape("plain start, snapshot not used: Pyodide's runtime did not load ("),
                 id="runtime-once"),
    pytest.param(RUNTIME, None, "^" + re.escape("WebMCP unavailable: Pyodide's runtime did not load ("),
                 id="runtime-always", marks=pytest.mark.hosts_long),  # build.py hosts
    # The standard library, read off the page's thread first, is read again on the page.
    pytest.param(STDLIB, 1, f"^{re.escape(f'WebMCP: ready ({len(DEFAULT_TOOLS)} tools; snapshot start)')}$",
                 id="stdlib-once"),
    pytest.param(STDLIB, None, "^" + re.escape("WebMCP unavailable: the standard library did not load ("),
                 id="stdlib-always"),
])
def test_a_file_that_fails_to_download_is_fetched_again_or_ends_the_start_with_its_reason(
        browser, site_url, served, failures, status):
    """Pyodide's loader only logs a runtime or a standard library that fails to load, then waits forever: the
    start fetches it again, or says why it cannot start."""
    failed = []

    def fail(route):
        if failures is None or len(failed) < failures:
            failed.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    context, page = open_lab(browser, site_url, route=(served, fail))
    try:
        shown = page.inner_text(".jp-webmcp-status")
        assert failed, f"{served} was never asked for"
        assert re.search(status, shown), shown
        if failures:
            assert_tools_work(page)
        else:
            assert page.webmcp.tools() == []
    finally:
        context.close()


def marks(page) -> list[str]:
    """The bridge's User Timing marks, in the order they were made."""
    return page.evaluate("() => performance.getEntriesByType('mark').map(m => m.name).filter(n => n.startsWith('webmcp:'))")


def own_requests(page) -> list[str]:
    """What the page itself fetched (the kernel's worker fetches its Pyodide on its own)."""
    return page.evaluate("() => performance.getEntriesByType('resource').map(e => e.name)")


def test_the_start_begins_as_the_extension_loads_and_activation_takes_it_over(browser, site_url):
    requests = []
    # No notebook open, so no kernel: its worker would ask for Pyodide's runtime too.
    context, page = open_lab(browser, site_url, requests=requests)
    try:
        assert page.inner_text(".jp-webmcp-status") == f"WebMCP: ready ({len(DEFAULT_TOOLS)} tools; snapshot start)"
        made = marks(page)
        assert "webmcp:stage:dropped" not in made, made
        order = ["webmcp:evaluated", "webmcp:stage:started-early", "webmcp:activated", "webmcp:ready"]
        assert [mark for mark in made if mark in order] == order, made
        # Activation started nothing of its own: every file was asked for once (by the page or its worker).
        fetched = [url.split("?")[0].rsplit("/", 1)[-1] for url in requests]
        for name in ("manifest.json", "boot.mjs", "snapshot.br", "pyodide.asm.wasm"):
            assert fetched.count(name) == 1, (name, fetched)
        assert_tools_work(page)
    finally:
        context.close()


def assert_nothing_of_the_bridge_loaded(page):
    assert "webmcp:stage:started-early" not in marks(page)
    loaded = [url for url in own_requests(page)
              if "/static/bridge/" in url or url.split("?")[0].rsplit("/", 1)[-1].startswith("pyodide")]
    assert loaded == [], loaded


@pytest.mark.parametrize("path, status", [
    ("lab/index.html?path=demo.ipynb&webmcp=off", "WebMCP: off (?webmcp=off)"),
    # The REPL's configuration looks like the lab's: only the plugin's activation tells it has no notebooks.
    ("repl/index.html", "WebMCP: not on this page (the agent's tools run in the lab and notebook pages)"),
], ids=["off-by-url", "repl"])
def test_a_page_where_the_bridge_does_not_start_loads_nothing_of_it(browser, site_url, path, status):
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        page.goto(f"{site_url}/{path}")
        page.wait_for_selector(".jp-webmcp-status[data-state=off]", timeout=120_000)
        assert page.inner_text(".jp-webmcp-status") == status
        page.evaluate("() => window.jupyterapp.restored")  # the app has done its loading
        assert_nothing_of_the_bridge_loaded(page)
    finally:
        context.close()


def test_a_browser_without_webmcp_keeps_a_working_lab_and_loads_nothing_of_the_bridge(playwright, site_url):
    flags = [flag for flag in CHROMIUM_FLAGS if "WebMCP" not in flag]
    browser = playwright.chromium.launch(executable_path=chromium_path(), args=flags)
    try:
        page = browser.new_page(service_workers="block")
        recorder = RequestRecorder(site_url)
        page.on("request", recorder.record)
        page.goto(f"{site_url}/lab/index.html?path=demo.ipynb")
        page.wait_for_selector(".jp-webmcp-status[data-state=unavailable]", timeout=120_000)
        assert page.inner_text(".jp-webmcp-status") == (
            "WebMCP unavailable: this browser has no WebMCP · click for the access and review controls (no agent "
            "can connect)")
        assert page.evaluate("() => 'modelContext' in document || 'modelContext' in navigator") is False
        page.wait_for_function(KERNEL_IDLE, timeout=120_000, polling=200)  # the notebook open, its kernel started
        assert page.evaluate("() => window.jupyterapp.shell.currentWidget.content.model.cells.length") == 6
        assert_nothing_of_the_bridge_loaded(page)  # the page's own requests: the kernel reads the shared library
        assert recorder.foreign() == []
    finally:
        browser.close()




def test_settings_that_keep_the_bridge_off_drop_the_early_start_and_switching_on_starts_it(browser, site_url):
    context, page = open_lab(browser, site_url)
    try:
        page.evaluate("id => window.jupyterapp.serviceManager.settings.save(id, JSON.stringify({enabled: false}))",
                      SETTINGS_ID)
        page.reload()
        page.wait_for_selector(".jp-webmcp-status[data-state=off]", timeout=120_000)
        assert page.inner_text(".jp-webmcp-status") == "WebMCP: off (settings)"
        made = marks(page)
        assert made.index("webmcp:stage:started-early") < made.index("webmcp:stage:dropped"), made
        assert page.webmcp.tools() == []
        # Switched on in the Settings Editor, as the owner would: the start begins again, and serves.
        page.evaluate("() => window.jupyterapp.commands.execute('settingeditor:open', {query: 'WebMCP'})")
        page.click(f'.jp-PluginList-entry[data-id="{SETTINGS_ID}"]')
        page.locator(f'[id="jp-SettingsEditor-{SETTINGS_ID}_enabled"]').check()
        page.wait_for_selector(READY, timeout=120_000)
        assert page.inner_text(READY).endswith("snapshot start)")
        assert_tools_work(page)
    finally:
        context.close()


# What JupyterLab itself needs (inline styles, eval, data: images), nothing more: no blob: fetch.
STRICT_CSP = {"Content-Security-Policy": "default-src 'self' 'unsafe-inline' 'unsafe-eval'; img-src 'self' data: blob:"}


def test_a_reload_under_a_strict_content_security_policy_restores_from_the_kept_copies(browser, served):
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        violations = []
        page.on("console", lambda message: violations.append(message.text)
                if "Content Security Policy" in message.text else None)
        page.goto(f"{served(headers=STRICT_CSP)}/lab/index.html")
        page.wait_for_selector(READY, timeout=120_000)
        manifest = json.loads(MANIFEST.read_text())
        kept_copies(page, 4 + len(manifest["dynlibs"]))  # the snapshot, the pack, the standard library, the runtime
        page.reload()
        page.wait_for_selector(READY, timeout=120_000)
        assert page.inner_text(READY).endswith("snapshot start)")
        assert_tools_work(page)
        assert violations == []
    finally:
        context.close()
