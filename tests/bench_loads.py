"""Page loads as the benchmark measures them: a first visit in a fresh browser profile and its reload.

A fresh profile has its own disk cache, as a visitor's browser does; a private window (`private=True`) has
Chromium's in-memory cache instead, which keeps no file over 6.25 MiB (an eighth of its 50 MB), so large
files are downloaded again on every load there. Each load is traced with the DevTools protocol (the
longest and the total main-thread task time, and where it goes: bench_profile.py), and reports the bytes
the site's server sent for it and the memory left after a full garbage collection.
"""

import base64
import contextlib
import json
import shutil
import tempfile

from bench_profile import child_costs, described

from buildkit.env import CHROMIUM_FLAGS
from tests.measure import TRACE_CATEGORIES, judged_tasks, memory_after_gc, task_events
from tests.waiting import KERNEL_IDLE, wait_until

MIB = 2**20

# Records when app.restored settles (JupyterLite exposes the app early, as window.jupyterapp), when each
# WebMCP tool appears in the browser's own list and when each name first does (polled every 10 ms until its
# tools are listed and the first call answered; `seen`, by name, in ms from the page's navigation), and when a
# jupyter_get_context made as soon as it is listed is answered (a tool listed before it can serve waits),
# the same way for any extension and without touching the browser's WebMCP API.
LOAD_RECORDER = """(() => {
    window.__bench = {registered: [], seen: {}, restoredAt: null, stop: false, answeredAt: null, answer: null};
    let asked = false;
    let app;
    Object.defineProperty(window, 'jupyterapp', {
        configurable: true,
        get: () => app,
        set: value => {
            app = value;
            value.restored.then(() => { window.__bench.restoredAt = performance.now(); });
        }
    });
    const webmcp = document.modelContext;
    const count = async () => {
        const tools = await webmcp.getTools();
        const now = performance.now();
        while (window.__bench.registered.length < tools.length) window.__bench.registered.push(now);
        for (const tool of tools) window.__bench.seen[tool.name] ??= now;
        const context = tools.find(tool => tool.name === 'jupyter_get_context');
        if (context && !asked) {
            asked = true;
            const answered = answer => Object.assign(window.__bench, {answeredAt: performance.now(), answer});
            webmcp.executeTool(context, {}).then(text => answered(String(text)), e => answered(`rejected: ${e}`));
        }
        if (!window.__bench.stop) setTimeout(count, 10);
    };
    if (webmcp) count();
})()"""

# A fresh Chromium window preloads its omnibox popup, a WebUI page of its own: 0.6 s of a core during the first
# page load in each new browser, which a visitor's browser, open long before, spent long before. Turned off for
# every site alike. A --disable-features flag replaces Playwright's own list (1.65's, repeated here).
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding", "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin", "OptimizationHints",
    "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch")
BROWSER_START_WEBUI = ("PreloadTopChromeWebUI", "WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup")
LOAD_FLAGS = [*CHROMIUM_FLAGS, "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + BROWSER_START_WEBUI)]

# DevTools network emulation: a 20 Mbit/s link with 40 ms latency.
SLOW_LINK = {"offline": False, "latency": 40, "downloadThroughput": 20e6 / 8, "uploadThroughput": 20e6 / 8}


class Trace:
    """A DevTools trace of a page (through its own CDP session, so it works in any browser context)."""

    def __init__(self, page):
        self.page = page
        self.session = page.context.new_cdp_session(page)
        self.completed = []
        self.session.on("Tracing.tracingComplete", lambda event: self.completed.append(event))
        self.session.send("Tracing.start", {"traceConfig": {"includedCategories": TRACE_CATEGORIES},
                                            "transferMode": "ReturnAsStream"})

    def stop(self) -> bytes:
        self.session.send("Tracing.end")
        wait_until(lambda: self.completed, timeout=300, interval=0.02, what="the trace's end",
                   pause=lambda seconds: self.page.wait_for_timeout(seconds * 1000))
        stream = self.completed[0]["stream"]
        chunks = []
        while True:
            chunk = self.session.send("IO.read", {"handle": stream, "size": 1 << 22})
            data = chunk.get("data", "")
            chunks.append(base64.b64decode(data) if chunk.get("base64Encoded") else data.encode())
            if chunk.get("eof"):
                break
        self.session.send("IO.close", {"handle": stream})
        self.session.detach()
        return b"".join(chunks)


@contextlib.contextmanager
def browser_page(playwright, chromium: str, private: bool = False, link: dict = None):
    """A page in a fresh profile (or a private window), the load recorder installed, the link emulated if given."""
    profile = tempfile.mkdtemp(prefix="bench-profile-")
    browser = None
    try:
        if private:
            browser = playwright.chromium.launch(executable_path=chromium, args=LOAD_FLAGS)
            context = browser.new_context()
            page = context.new_page()
        else:
            context = playwright.chromium.launch_persistent_context(profile, executable_path=chromium,
                                                                    args=LOAD_FLAGS, headless=True)
            page = context.pages[0] if context.pages else context.new_page()
        context.add_init_script(LOAD_RECORDER)
        if link:
            session = context.new_cdp_session(page)
            session.send("Network.enable")
            session.send("Network.emulateNetworkConditions", link)
        yield page
        context.close()
    finally:
        if browser:
            browser.close()
        shutil.rmtree(profile, ignore_errors=True)


# The site's Pyodide loaded on the page as it is, nothing imported: what any Python on the page's main thread
# costs in memory, whatever runs in it.
BARE_PYODIDE = """async indexURL => {
    const {loadPyodide} = await import(indexURL + 'pyodide.mjs');
    window.__barePyodide = await loadPyodide({indexURL}); // held, so that the collection after keeps it
    window.__barePyodide.runPython('1 + 1');
}"""


def bare_pyodide_mib(page, index_url: str) -> float:
    """The JS heap and array buffers a bare Pyodide adds to the page (MiB, after a full collection each side)."""
    before = memory_after_gc(page)
    page.evaluate(BARE_PYODIDE, index_url)
    after = memory_after_gc(page)
    return sum(after[key] - before[key] for key in ("jsHeapMiB", "arrayBuffersMiB"))


def load(page, site, reload: bool, trace: bool = True, memory: bool = True, listed: tuple[str, ...] = ()) -> dict:
    """Load (or reload) the site's page and wait until its tools are registered and its kernel is idle, and
    until the tools named `listed` are in the browser's list too (`seen` gives when each was first)."""
    tracing = Trace(page) if trace else None
    site.server.take_served()
    if reload:
        page.reload()
    else:
        page.goto(site.url)
    page.wait_for_function(site.ready, timeout=180_000, polling=50)
    if site.tools:
        page.wait_for_function(f"() => window.__bench.registered.length >= {site.tools}", timeout=30_000, polling=50)
        page.wait_for_function("() => window.__bench.answeredAt !== null", timeout=60_000, polling=50)
    if listed:
        page.wait_for_function(f"() => {json.dumps(listed)}.every(name => name in window.__bench.seen)",
                               timeout=120_000, polling=50)
    # The recorder's polling of the tools' list stops: it is work of the page's thread that no visitor has.
    page.evaluate("() => { window.__bench.stop = true; }")
    page.wait_for_function(KERNEL_IDLE, timeout=180_000, polling=50)
    kernel_idle = page.evaluate("() => performance.now()")
    recorded = page.evaluate("() => window.__bench")
    marks = page.evaluate(
        "() => Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name, m.startTime]))")
    figures = {"appRestoredMs": recorded["restoredAt"], "kernelIdleMs": kernel_idle}
    if listed:
        figures["seenMs"] = {name: recorded["seen"][name] for name in listed}
    if site.tools:
        registered = recorded["registered"][site.tools - 1]
        figures["toolsRegisteredMs"] = registered
        figures["toolsAfterRestoredMs"] = registered - recorded["restoredAt"]
        if '"isError":true' in recorded["answer"] or recorded["answer"].startswith("rejected"):
            raise RuntimeError(f"{site.label}: the first jupyter_get_context failed: {recorded['answer'][:300]}")
        figures["firstCallAfterRestoredMs"] = recorded["answeredAt"] - recorded["restoredAt"]
    if "webmcp:activated" in marks:
        figures["evaluatedToActivatedMs"] = marks["webmcp:activated"] - marks["webmcp:evaluated"]
        # The start's stages (boot.md, "Seeing it in DevTools"), from app.restored: where the first call's wait goes.
        figures["stagesMs"] = {name: time - recorded["restoredAt"] for name, time in marks.items()
                               if name.startswith("webmcp:")}
    if "webmcp:ready" in marks:
        figures["bootPath"] = page.inner_text(".jp-webmcp-status").rpartition("; ")[2].split(" start")[0]
    if tracing:
        parsed = task_events(tracing.stop())
        figures["profile"] = child_costs(parsed, site.own_urls, site.own_events)
        tasks = judged_tasks(parsed, site.own_urls, site.own_events)
        figures["longestMainThreadTaskMs"] = max((duration for duration, *_ in tasks), default=0)
        figures["mainThreadTaskTotalMs"] = sum(duration for duration, *_ in tasks)
        # The thread's own CPU time in those tasks: the task time less the time other threads held the processor.
        figures["mainThreadCpuMs"] = sum(task.get("tdur", 0) for task, *_ in parsed) / 1000
        if site.tools:
            own = [task for task in tasks if task[1]]
            longest = max(own, key=lambda task: task[0], default=(0, True, [], []))
            figures["longestOwnTaskMs"] = longest[0]
            figures["longestOwnTaskRan"] = described(longest[2], longest[3], site.own_urls)
            figures["ownTaskTotalMs"] = sum(duration for duration, *_ in own)
    if memory:
        figures.update(memory_after_gc(page))
    figures["servedMiB"] = sum(site.server.take_served().values()) / MIB
    return figures
