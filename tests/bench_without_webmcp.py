"""The bench's no-WebMCP section: what a browser without WebMCP pays for the lab with the bridge installed, and
what starting the human's controls (access, review, Propose mode: no tool) costs when the human asks for them."""

import contextlib
import json
import shutil
import statistics
import tempfile

from bench_loads import MIB, Trace

from buildkit.env import CHROMIUM_FLAGS
from tests.measure import memory_after_gc, task_events
from tests.waiting import KERNEL_IDLE

STATUS = ".jp-webmcp-status"
CONTROLS_ON = "() => document.querySelector('.jp-webmcp-status')?.textContent.includes('controls are on')"


@contextlib.contextmanager
def page_without_webmcp(playwright, chromium: str):
    """A page in a fresh profile of a Chromium without WebMCP."""
    profile = tempfile.mkdtemp(prefix="bench-no-webmcp-")
    flags = [flag for flag in CHROMIUM_FLAGS if "WebMCP" not in flag]
    context = playwright.chromium.launch_persistent_context(profile, executable_path=chromium, args=flags,
                                                            headless=True)
    try:
        yield context.pages[0] if context.pages else context.new_page()
    finally:
        context.close()
        shutil.rmtree(profile, ignore_errors=True)


def measure_without_webmcp(playwright, chromium: str, site, runs: int) -> dict:
    """Per cold visit: the page alone (until its kernel is idle, the human's controls only offered), then the
    controls started by a click on the status item."""
    rows: dict[str, list[float]] = {}

    def keep(name: str, value: float) -> None:
        rows.setdefault(name, []).append(value)

    for _ in range(runs):
        with page_without_webmcp(playwright, chromium) as page:
            site.server.take_served()
            page.goto(site.url)
            page.wait_for_function(KERNEL_IDLE, timeout=180_000, polling=50)
            memory = memory_after_gc(page)
            keep("page alone: bytes served (MiB)", sum(site.server.take_served().values()) / MIB)
            keep("page alone: JS heap + array buffers (MiB)", memory["jsHeapMiB"] + memory["arrayBuffersMiB"])
            trace = Trace(page)
            page.evaluate("0")  # the profiler starts with the first script run in the trace: 0.3-0.6 s, not the click's
            clicked = page.evaluate("s => { document.querySelector(s).click(); return performance.now(); }", STATUS)
            page.wait_for_function(CONTROLS_ON, timeout=180_000, polling=20)
            on = page.evaluate("() => performance.now()")
            longest = longest_task_since_click(trace.stop())
            started = memory_after_gc(page)
            keep("controls: click to on (ms)", on - clicked)
            keep("controls: longest main-thread task (ms)", longest)
            keep("controls: bytes served (MiB)", sum(site.server.take_served().values()) / MIB)
            keep("controls: JS heap + array buffers added (MiB)",
                 started["jsHeapMiB"] + started["arrayBuffersMiB"] - memory["jsHeapMiB"] - memory["arrayBuffersMiB"])
    return {name: statistics.median(values) for name, values in rows.items()}


def longest_task_since_click(trace: bytes) -> float:
    """The longest main-thread task from the one that dispatched the trace's first click on, ms."""
    click = min(event["ts"] for event in json.loads(trace)["traceEvents"]
                if event.get("name") == "EventDispatch"
                and ((event.get("args") or {}).get("data") or {}).get("type") == "click")
    return max(task["dur"] for task, _, _ in task_events(trace) if task["ts"] + task["dur"] >= click) / 1000


def print_without_webmcp(figures: dict, runs: int) -> None:
    print(f"\nA browser without WebMCP ({runs} cold visits, medians): the page alone, then the human's controls "
          "started on a click")
    for name, value in figures.items():
        print(f"  {name:52} {value:>10,.1f}")
